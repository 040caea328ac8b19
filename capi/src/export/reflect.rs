//! What a module imports and exports, and their types:
//! `wasm_runtime_get_import_count`/`_type`, `wasm_runtime_get_export_count`/
//! `_type`, and the `wasm_func_type_*`, `wasm_global_type_*`,
//! `wasm_memory_type_*` and `wasm_table_type_*` queries.
//!
//! The entries and their type handles are made with the module
//! ([`crate::core::reflect`]). WAMR gives `(wasm_valkind_t)-1` for a bad index, the default maximum
//! (65536 pages, or twice the table's minimum but at least 1024 elements)
//! where a module declares none, and so do these.

use cranewasm::{ExternType, FuncType};

use crate::core::kinds::valkind;
use crate::core::module::{RtModule, module};
use crate::core::reflect::{ImportEntry, RtTypeObj, TypeHandle};
use crate::core::val::wasm_valkind_t;
use crate::export::types::*;
use crate::object::{Handle, get};
use crate::*;

impl TypeHandle {
    /// Writes the handle into a `wasm_import_t`'s or `wasm_export_t`'s
    /// union, and gives the kind that says which member it is.
    fn write(&self, u: &mut wasm_import_export_type_t) -> wasm_import_export_kind_t {
        match self {
            TypeHandle::Func(h) => u.func_type = h.as_ptr(),
            TypeHandle::Table(h) => u.table_type = h.as_ptr(),
            TypeHandle::Memory(h) => u.memory_type = h.as_ptr(),
            TypeHandle::Global(h) => u.global_type = h.as_ptr(),
            TypeHandle::None => {}
        }
        kind_of(self)
    }
}

fn kind_of(h: &TypeHandle) -> wasm_import_export_kind_t {
    match h {
        TypeHandle::Func(_) | TypeHandle::None => KIND_FUNC,
        TypeHandle::Table(_) => KIND_TABLE,
        TypeHandle::Memory(_) => KIND_MEMORY,
        TypeHandle::Global(_) => KIND_GLOBAL,
    }
}

/// The module's number of imports; -1 for anything but a live module.
///
/// # Safety
/// `module` may be NULL or any pointer (anything but a live module is
/// refused); no other thread may unload it meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_import_count(module: wasm_module_t) -> i32 {
    // SAFETY: as the caller promises.
    unsafe { self::module(module) }.map_or(-1, |m| m.imports.len() as i32)
}

/// Fills `*import_type` with import `import_index` (zeroed first, and left
/// so for a bad module or index). `linked` says whether instantiation
/// would find it among the registered natives, the builtin libc, WASI or a
/// registered module.
///
/// # Safety
/// As for [`wasm_runtime_get_import_count`]; `import_type` NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_import_type(
    module: wasm_module_t,
    import_index: i32,
    import_type: *mut wasm_import_t,
) {
    // SAFETY: NULL or writable (caller).
    let Some(out) = (unsafe { import_type.as_mut() }) else { return };
    *out = wasm_import_t {
        module_name: std::ptr::null(),
        name: std::ptr::null(),
        kind: KIND_FUNC,
        linked: false,
        u: wasm_import_export_type_t { func_type: std::ptr::null_mut() },
    };
    // SAFETY: as the caller promises.
    let Some(m) = (unsafe { self::module(module) }) else { return };
    let Some(i) = usize::try_from(import_index).ok().and_then(|i| m.imports.get(i)) else { return };
    out.module_name = i.module.as_ptr();
    out.name = i.name.as_ptr();
    out.kind = i.handle.write(&mut out.u);
    out.linked = m.import_linked(i);
}

/// The module's number of exports; -1 for anything but a live module.
///
/// # Safety
/// As for [`wasm_runtime_get_import_count`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_export_count(module: wasm_module_t) -> i32 {
    // SAFETY: as the caller promises.
    unsafe { self::module(module) }.map_or(-1, |m| m.exports.len() as i32)
}

/// Fills `*export_type` with export `export_index` (zeroed first, and left
/// so for a bad module or index).
///
/// # Safety
/// As for [`wasm_runtime_get_import_type`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_export_type(
    module: wasm_module_t,
    export_index: i32,
    export_type: *mut wasm_export_t,
) {
    // SAFETY: NULL or writable (caller).
    let Some(out) = (unsafe { export_type.as_mut() }) else { return };
    *out = wasm_export_t {
        name: std::ptr::null(),
        kind: KIND_FUNC,
        u: wasm_import_export_type_t { func_type: std::ptr::null_mut() },
    };
    // SAFETY: as the caller promises.
    let Some(m) = (unsafe { self::module(module) }) else { return };
    let Some(e) = usize::try_from(export_index).ok().and_then(|i| m.exports.get(i)) else { return };
    out.name = e.name.as_ptr();
    out.kind = e.handle.write(&mut out.u);
}

/// The value a query gives for a bad handle or index: `(wasm_valkind_t)-1`.
const NO_KIND: wasm_valkind_t = u8::MAX;

/// The type behind a handle of type `C`, if it is a live one of its kind.
///
/// # Safety
/// As for [`object::get`](crate::object::get).
unsafe fn type_of<'a, C: Handle<Obj = RtTypeObj>>(p: *const C) -> Option<&'a ExternType> {
    // SAFETY: as the caller promises.
    unsafe { get::<C>(p) }.map(|t| &t.0)
}

/// The function type behind a `wasm_func_type_t`.
///
/// # Safety
/// As for [`type_of`].
unsafe fn func_type<'a>(p: wasm_func_type_t) -> Option<&'a FuncType> {
    // SAFETY: as the caller promises.
    match unsafe { type_of::<WASMFuncType>(p) } {
        Some(ExternType::Func(f)) => Some(f),
        // A defined function type of `gc_export.h` is a function type too.
        // SAFETY: as the caller promises.
        _ => unsafe { crate::export::gc::defined::func_type_of(p) },
    }
}

/// Number of parameters (0 for anything but a live function type).
///
/// # Safety
/// `func_type` may be NULL or any pointer; its module must not be unloaded
/// meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_func_type_get_param_count(func_type: wasm_func_type_t) -> u32 {
    // SAFETY: as the caller promises.
    unsafe { self::func_type(func_type) }.map_or(0, |f| f.params().len() as u32)
}

/// The kind of parameter `param_index`; -1 for a bad handle or index.
///
/// # Safety
/// As for [`wasm_func_type_get_param_count`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_func_type_get_param_valkind(
    func_type: wasm_func_type_t,
    param_index: u32,
) -> wasm_valkind_t {
    // SAFETY: as the caller promises.
    let f = unsafe { self::func_type(func_type) };
    f.and_then(|f| f.params().get(param_index as usize)).map_or(NO_KIND, |t| valkind(*t))
}

/// Number of results (0 for anything but a live function type).
///
/// # Safety
/// As for [`wasm_func_type_get_param_count`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_func_type_get_result_count(func_type: wasm_func_type_t) -> u32 {
    // SAFETY: as the caller promises.
    unsafe { self::func_type(func_type) }.map_or(0, |f| f.results().len() as u32)
}

/// The kind of result `result_index`; -1 for a bad handle or index.
///
/// # Safety
/// As for [`wasm_func_type_get_param_count`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_func_type_get_result_valkind(
    func_type: wasm_func_type_t,
    result_index: u32,
) -> wasm_valkind_t {
    // SAFETY: as the caller promises.
    let f = unsafe { self::func_type(func_type) };
    f.and_then(|f| f.results().get(result_index as usize)).map_or(NO_KIND, |t| valkind(*t))
}

/// The global type behind a handle.
///
/// # Safety
/// As for [`type_of`].
unsafe fn global_type<'a>(p: wasm_global_type_t) -> Option<&'a cranewasm::GlobalType> {
    // SAFETY: as the caller promises.
    match unsafe { type_of::<WASMGlobalType>(p) } {
        Some(ExternType::Global(g)) => Some(g),
        _ => None,
    }
}

/// The kind of the global's value; -1 for anything but a live global type.
///
/// # Safety
/// As for [`wasm_func_type_get_param_count`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_global_type_get_valkind(global_type: wasm_global_type_t) -> wasm_valkind_t {
    // SAFETY: as the caller promises.
    unsafe { self::global_type(global_type) }.map_or(NO_KIND, |g| valkind(g.content))
}

/// Whether the global is mutable (false for a bad handle).
///
/// # Safety
/// As for [`wasm_func_type_get_param_count`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_global_type_get_mutable(global_type: wasm_global_type_t) -> bool {
    // SAFETY: as the caller promises.
    unsafe { self::global_type(global_type) }.is_some_and(|g| g.mutability == cranewasm::Mutability::Var)
}

/// The memory type behind a handle.
///
/// # Safety
/// As for [`type_of`].
unsafe fn memory_type<'a>(p: wasm_memory_type_t) -> Option<&'a cranewasm::MemoryType> {
    // SAFETY: as the caller promises.
    match unsafe { type_of::<WASMMemory>(p) } {
        Some(ExternType::Memory(m)) => Some(m),
        _ => None,
    }
}

/// Whether the memory is shared (false for a bad handle).
///
/// # Safety
/// As for [`wasm_func_type_get_param_count`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_memory_type_get_shared(memory_type: wasm_memory_type_t) -> bool {
    // SAFETY: as the caller promises.
    unsafe { self::memory_type(memory_type) }.is_some_and(|m| m.is_shared())
}

/// The memory's initial pages (0 for a bad handle).
///
/// # Safety
/// As for [`wasm_func_type_get_param_count`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_memory_type_get_init_page_count(memory_type: wasm_memory_type_t) -> u32 {
    // SAFETY: as the caller promises.
    unsafe { self::memory_type(memory_type) }.map_or(0, |m| u32::try_from(m.minimum()).unwrap_or(u32::MAX))
}

/// The memory's maximum pages: 65536 when it declares none (0 for a bad
/// handle).
///
/// # Safety
/// As for [`wasm_func_type_get_param_count`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_memory_type_get_max_page_count(memory_type: wasm_memory_type_t) -> u32 {
    // SAFETY: as the caller promises.
    unsafe { self::memory_type(memory_type) }.map_or(0, |m| m.maximum().unwrap_or(65536).min(65536) as u32)
}

/// The table type behind a handle.
///
/// # Safety
/// As for [`type_of`].
unsafe fn table_type<'a>(p: wasm_table_type_t) -> Option<&'a cranewasm::TableType> {
    // SAFETY: as the caller promises.
    match unsafe { type_of::<WASMTableType>(p) } {
        Some(ExternType::Table(t)) => Some(t),
        _ => None,
    }
}

/// The kind of the table's elements; -1 for a bad handle.
///
/// # Safety
/// As for [`wasm_func_type_get_param_count`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_table_type_get_elem_kind(table_type: wasm_table_type_t) -> wasm_valkind_t {
    // SAFETY: as the caller promises.
    unsafe { self::table_type(table_type) }.map_or(NO_KIND, |t| valkind(t.element().into()))
}

/// Whether the table is shared: never (shared tables are a proposal
/// cranewasm does not have).
///
/// # Safety
/// As for [`wasm_func_type_get_param_count`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_table_type_get_shared(table_type: wasm_table_type_t) -> bool {
    // SAFETY: as the caller promises.
    let _ = unsafe { self::table_type(table_type) };
    false
}

/// The table's initial size (0 for a bad handle).
///
/// # Safety
/// As for [`wasm_func_type_get_param_count`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_table_type_get_init_size(table_type: wasm_table_type_t) -> u32 {
    // SAFETY: as the caller promises.
    unsafe { self::table_type(table_type) }.map_or(0, |t| u32::try_from(t.minimum()).unwrap_or(u32::MAX))
}

/// The table's maximum size; where none is declared, WAMR's default:
/// twice the minimum, at least 1024 (0 for a bad handle).
///
/// # Safety
/// As for [`wasm_func_type_get_param_count`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_table_type_get_max_size(table_type: wasm_table_type_t) -> u32 {
    // SAFETY: as the caller promises.
    unsafe { self::table_type(table_type) }.map_or(0, |t| table_max(&t.limits()))
}

/// A table's maximum as WAMR reports it.
pub fn table_max(l: &cranewasm::Limits) -> u32 {
    let default = l.min.saturating_mul(2).max(1024);
    let max = match l.max {
        Some(m) if l.min < m => m.min(default),
        Some(m) => m,
        None => default,
    };
    u32::try_from(max).unwrap_or(u32::MAX)
}

impl RtModule {
    /// Whether instantiation would link import `i`.
    fn import_linked(&self, i: &ImportEntry) -> bool {
        let (module, name) = (i.module.to_str().unwrap_or(""), i.name.to_str().unwrap_or(""));
        match &i.ty {
            ExternType::Func(ty) => {
                crate::core::natives::resolve(module, name, ty).is_some()
                    || crate::core::wasi::import_matches(module, name, ty)
                    || self.dep_export(module, name, &i.ty)
            }
            // Memories and tables of the built-in modules are made at
            // instantiation; WAMR reports them as not linked.
            ExternType::Memory(_) | ExternType::Table(_) | ExternType::Tag(_) => false,
            ExternType::Global(_) => self.dep_export(module, name, &i.ty),
        }
    }
}
