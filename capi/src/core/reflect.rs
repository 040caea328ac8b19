//! A module's imports and exports as `wasm_export.h` reflects them
//! (`wasm_runtime_get_import_type` and co.), made once with the module:
//! each entry has a type handle of its kind, freed with the module, so
//! the pointers a client is given stay valid for the module's life.
//! Imports are numbered as WAMR's loader lists them: functions first, then
//! tables, memories and globals, each in module order.

use std::ffi::CString;

use cranewasm::ExternType;

use crate::core::types::*;
use crate::handle::Kind;
use crate::object::{Handle, Object, Own};

/// The type of one import or export, behind the four type handles.
pub struct RtTypeObj(pub ExternType);

// SAFETY: RtType cells hold `RtTypeObj`s, named by the four handle types
// below only.
unsafe impl Object for RtTypeObj {
    fn kind(&self) -> Kind {
        Kind::RtType
    }
}

macro_rules! type_handles {
    ($($c:ident),*) => {$(
        // SAFETY: RtType cells hold `RtTypeObj`s.
        unsafe impl Handle for $c {
            type Obj = RtTypeObj;
            const KINDS: u32 = Kind::RtType.bit();
            const NAME: &'static str = stringify!($c);
        }
    )*};
}
type_handles!(WASMFuncType, WASMTableType, WASMGlobalType, WASMMemory);

/// One import of a module, as the queries hand it out.
pub struct ImportEntry {
    pub module: CString,
    pub name: CString,
    pub ty: ExternType,
    pub(crate) handle: TypeHandle,
}

/// One export of a module.
pub struct ExportEntry {
    pub name: CString,
    pub ty: ExternType,
    pub(crate) handle: TypeHandle,
}

/// A type handle of the right C type for its kind.
pub(crate) enum TypeHandle {
    Func(Own<WASMFuncType>),
    Table(Own<WASMTableType>),
    Memory(Own<WASMMemory>),
    Global(Own<WASMGlobalType>),
    /// The table was full (never in practice): queries give NULL.
    None,
}

impl TypeHandle {
    fn new(ty: ExternType) -> TypeHandle {
        let h = match &ty {
            ExternType::Func(_) => Own::new(RtTypeObj(ty)).map(TypeHandle::Func),
            ExternType::Table(_) => Own::new(RtTypeObj(ty)).map(TypeHandle::Table),
            ExternType::Memory(_) => Own::new(RtTypeObj(ty)).map(TypeHandle::Memory),
            ExternType::Global(_) => Own::new(RtTypeObj(ty)).map(TypeHandle::Global),
            // `wasm_export.h` has no tags; modules with them are refused.
            ExternType::Tag(_) => None,
        };
        h.unwrap_or(TypeHandle::None)
    }
}

/// The import kind of a type.
pub fn extern_kind(ty: &ExternType) -> wasm_import_export_kind_t {
    match ty {
        ExternType::Func(_) => KIND_FUNC,
        ExternType::Table(_) => KIND_TABLE,
        ExternType::Memory(_) => KIND_MEMORY,
        ExternType::Global(_) => KIND_GLOBAL,
        // Never reached: modules with tags are refused at load.
        ExternType::Tag(_) => KIND_FUNC,
    }
}

/// The imports of `m` in WAMR's order (by kind, then module order).
pub fn imports_of(m: &cranewasm::Module) -> Vec<ImportEntry> {
    let mut all: Vec<_> = m.imports().collect();
    // A stable sort keeps module order within each kind.
    all.sort_by_key(|i| extern_kind(&i.ty));
    all.into_iter()
        .map(|i| ImportEntry {
            module: CString::new(i.module).unwrap_or_default(),
            name: CString::new(i.name).unwrap_or_default(),
            handle: TypeHandle::new(i.ty.clone()),
            ty: i.ty,
        })
        .collect()
}

/// The exports of `m`, in module order./// The exports of `m`, in module order.
pub fn exports_of(m: &cranewasm::Module) -> Vec<ExportEntry> {
    m.exports()
        .map(|e| ExportEntry {
            name: CString::new(e.name).unwrap_or_default(),
            handle: TypeHandle::new(e.ty.clone()),
            ty: e.ty,
        })
        .collect()
}
