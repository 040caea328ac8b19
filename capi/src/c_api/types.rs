//! Type objects: value types, the four entity types and `wasm_externtype_t`
//! that stands for any of them.
//!
//! A function, global, table or memory type is one [`ExternTypeObj`], so
//! `wasm_functype_as_externtype` and friends are casts, and the reverse
//! casts check the kind. Type objects belong to no store. The value types
//! inside them are handles of their own (the client is given them by
//! `wasm_functype_params`, `wasm_globaltype_content`, ...), owned by the
//! type object.
//!
//! The constructors take their `own` arguments as WAMR's do:
//! `wasm_functype_new` copies the caller's two vector structs (the type
//! then owns their buffers and elements, and the caller's structs are left
//! as they were), and a constructor that fails takes nothing, so the
//! caller still owns, and may delete, what it passed.

use crate::core::kinds;
use std::ptr;

use cranewasm::{ExternType, FuncType, GlobalType, Limits, MemoryType, Mutability, TableType, ValType};

use crate::c_api::val::wasm_valkind_t;
use crate::c_api::vec::{RawVec, wasm_valtype_vec_t};
use crate::handle::Kind;
use crate::object::{self, Handle, Object, Own, c_object, get};

/// `WASM_EXTERNREF`: what WAMR answers for the kind of a NULL value type.
const EXTERNREF_KIND: wasm_valkind_t = 128;

/// `wasm_mutability_t`: `WASM_CONST` (0) or `WASM_VAR` (1).
pub type wasm_mutability_t = u8;
/// `wasm_externkind_t`: `WASM_EXTERN_FUNC` (0), `_GLOBAL`, `_TABLE`,
/// `_MEMORY` (3).
pub type wasm_externkind_t = u8;

/// Size bounds of a table or memory; `max == 0xffffffff` means none.
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct wasm_limits_t {
    pub min: u32,
    pub max: u32,
}

/// The C form of limits: a 64-bit size past `uint32_t` reads as the
/// largest one (`cranewasm_limits64_t` holds the whole value).
impl From<Limits> for wasm_limits_t {
    fn from(l: Limits) -> wasm_limits_t {
        let narrow = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
        wasm_limits_t { min: narrow(l.min), max: l.max.map_or(u32::MAX, narrow) }
    }
}

impl wasm_limits_t {
    /// The maximum, `None` for `0xffffffff`.
    pub fn maximum(&self) -> Option<u32> {
        (self.max != u32::MAX).then_some(self.max)
    }
}

/// cranewasm extension: size bounds of a table or memory whose index type
/// is i64 (memory64, table64), which `wasm_limits_t` cannot hold;
/// `max == UINT64_MAX` means none.
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct cranewasm_limits64_t {
    pub min: u64,
    pub max: u64,
}

/// The sizes of a table or memory type in both C forms (the
/// `wasm_limits_t` that WAMR's header reads, the `cranewasm_limits64_t`
/// with the whole values) and its index type: type objects hand out
/// pointers to either.
#[derive(Copy, Clone, Debug)]
pub struct Sizes {
    pub limits: wasm_limits_t,
    pub limits64: cranewasm_limits64_t,
    /// Addresses are i64 (memory64 / table64).
    pub is64: bool,
}

impl Sizes {
    /// Of a 32-bit table or memory.
    pub fn new32(l: wasm_limits_t) -> Sizes {
        let max = l.maximum().map_or(u64::MAX, u64::from);
        Sizes { limits: l, limits64: cranewasm_limits64_t { min: l.min.into(), max }, is64: false }
    }

    /// Of a 64-bit table or memory.
    pub fn new64(l: cranewasm_limits64_t) -> Sizes {
        Sizes::of(Limits { min: l.min, max: (l.max != u64::MAX).then_some(l.max) }, true)
    }

    /// Of a core type's limits and index type.
    pub fn of(l: Limits, is64: bool) -> Sizes {
        Sizes { limits: l.into(), limits64: cranewasm_limits64_t { min: l.min, max: l.max.unwrap_or(u64::MAX) }, is64 }
    }

    fn max64(&self) -> Option<u64> {
        (self.limits64.max != u64::MAX).then_some(self.limits64.max)
    }
}

/// What a `wasm_valtype_t *` points at.
pub struct ValTypeObj {
    pub ty: ValType,
    /// Its kind code, which for a concrete reference type only the
    /// engine knows (see [`ValTypeObj::new`]).
    kind: wasm_valkind_t,
}

impl ValTypeObj {
    /// The C form of `ty`. With the engine that gave it, a concrete struct
    /// or array type is told from a function type: `WASM_EXTERNREF`
    /// (WAMR's alias `WASM_ANYREF`, the kind its values have) rather than
    /// `WASM_FUNCREF`.
    pub fn new(ty: ValType, engine: Option<&cranewasm::Engine>) -> ValTypeObj {
        let kind = match (ty, engine) {
            (ValType::Ref(r), Some(e))
                if matches!(r.heap_type(), cranewasm::HeapType::Concrete(_))
                    && e.top_of(r) == cranewasm::HeapType::Any =>
            {
                kinds::EXTERNREF
            }
            _ => kinds::valkind(ty),
        };
        ValTypeObj { ty, kind }
    }
}

// SAFETY: value type cells hold `ValTypeObj`s, named by `wasm_valtype_t`.
unsafe impl Object for ValTypeObj {
    fn kind(&self) -> Kind {
        Kind::ValType
    }
    fn duplicate(&self) -> Option<ValTypeObj> {
        Some(ValTypeObj { ty: self.ty, kind: self.kind })
    }
}

c_object! {
    /// A value type.
    wasm_valtype_t: ValTypeObj [ValType];
    delete: wasm_valtype_delete;
    copy: wasm_valtype_copy;
}

/// What the four entity type pointers and `wasm_externtype_t *` point at.
pub enum ExternTypeObj {
    Func {
        params: wasm_valtype_vec_t,
        results: wasm_valtype_vec_t,
    },
    Global {
        content: Own<wasm_valtype_t>,
        mutability: wasm_mutability_t,
    },
    Table {
        element: Own<wasm_valtype_t>,
        sizes: Sizes,
    },
    /// `shared`: a cranewasm extension (`cranewasm_memorytype_new_shared`).
    Memory {
        sizes: Sizes,
        shared: bool,
    },
}

impl Drop for ExternTypeObj {
    fn drop(&mut self) {
        if let ExternTypeObj::Func { params, results } = self {
            // SAFETY: the vectors are owned by this type object.
            unsafe {
                wasm_valtype_vec_delete(params);
                wasm_valtype_vec_delete(results);
            }
        }
    }
}

// SAFETY: each variant goes in a cell of its own kind, which the entity
// type handles and `wasm_externtype_t` map to `ExternTypeObj`.
unsafe impl Object for ExternTypeObj {
    fn kind(&self) -> Kind {
        match self {
            ExternTypeObj::Func { .. } => Kind::FuncType,
            ExternTypeObj::Global { .. } => Kind::GlobalType,
            ExternTypeObj::Table { .. } => Kind::TableType,
            ExternTypeObj::Memory { .. } => Kind::MemoryType,
        }
    }

    /// A deep copy (the value types copied too).
    fn duplicate(&self) -> Option<ExternTypeObj> {
        let valtype = |t: &Own<wasm_valtype_t>| Own::new(t.get()?.duplicate()?);
        Some(match self {
            ExternTypeObj::Func { params, results } => {
                let (mut p, mut r) = (RawVec::EMPTY, RawVec::EMPTY);
                // SAFETY: the vectors are owned by this type object; the
                // copies are written to local vectors.
                unsafe {
                    wasm_valtype_vec_copy((&mut p as *mut RawVec<_>).cast(), params);
                    wasm_valtype_vec_copy((&mut r as *mut RawVec<_>).cast(), results);
                }
                ExternTypeObj::Func {
                    params: wasm_valtype_vec_t::from_raw(p),
                    results: wasm_valtype_vec_t::from_raw(r),
                }
            }
            ExternTypeObj::Global { content, mutability } => {
                ExternTypeObj::Global { content: valtype(content)?, mutability: *mutability }
            }
            ExternTypeObj::Table { element, sizes } => {
                ExternTypeObj::Table { element: valtype(element)?, sizes: *sizes }
            }
            ExternTypeObj::Memory { sizes, shared } => ExternTypeObj::Memory { sizes: *sizes, shared: *shared },
        })
    }
}

impl ExternTypeObj {
    fn c_kind(&self) -> wasm_externkind_t {
        match self {
            ExternTypeObj::Func { .. } => 0,
            ExternTypeObj::Global { .. } => 1,
            ExternTypeObj::Table { .. } => 2,
            ExternTypeObj::Memory { .. } => 3,
        }
    }

    /// The C form of a core type (`None` if the table of objects is full).
    fn from_core(ty: &ExternType, engine: Option<&cranewasm::Engine>) -> Option<ExternTypeObj> {
        let valtype = |ty: ValType| Own::new(ValTypeObj::new(ty, engine));
        Some(match ty {
            ExternType::Func(f) => {
                ExternTypeObj::Func { params: valtypes(f.params(), engine), results: valtypes(f.results(), engine) }
            }
            ExternType::Global(g) => ExternTypeObj::Global {
                content: valtype(g.content)?,
                mutability: crate::core::kinds::mutability_code(g.mutability),
            },
            ExternType::Table(t) => {
                ExternTypeObj::Table { element: valtype(t.element().into())?, sizes: Sizes::of(t.limits(), t.is_64()) }
            }
            ExternType::Memory(m) => {
                ExternTypeObj::Memory { sizes: Sizes::of(m.limits(), m.is_64()), shared: m.is_shared() }
            }
            // The C API has no tags.
            ExternType::Tag(_) => return None,
        })
    }

    /// The core type, if every part of this one is valid.
    pub fn to_core(&self) -> Option<ExternType> {
        Some(match self {
            ExternTypeObj::Func { params, results } => {
                let list = |v: &wasm_valtype_vec_t| {
                    // SAFETY: the vector is owned by this type object; its
                    // elements are checked like any handle.
                    unsafe { v.raw().in_use() }
                        .iter()
                        .map(|&t| unsafe { get::<wasm_valtype_t>(t) }.map(|t| t.ty))
                        .collect::<Option<Vec<_>>>()
                };
                ExternType::Func(FuncType::new(list(params)?, list(results)?))
            }
            ExternTypeObj::Global { content, mutability } => ExternType::Global(GlobalType::new(
                content.get()?.ty,
                if *mutability == 0 { Mutability::Const } else { Mutability::Var },
            )),
            ExternTypeObj::Table { element, sizes } => {
                let element = element.get()?.ty.as_ref()?;
                ExternType::Table(match sizes.is64 {
                    true => TableType::new64(element, sizes.limits64.min, sizes.max64()),
                    false => TableType::new(element, sizes.limits.min, sizes.limits.maximum()),
                })
            }
            ExternTypeObj::Memory { sizes, shared } => {
                let ty = match sizes.is64 {
                    true => MemoryType::new64(sizes.limits64.min, sizes.max64()),
                    false => MemoryType::new(sizes.limits.min, sizes.limits.maximum()),
                };
                // A shared memory needs a maximum.
                if *shared && sizes.max64().is_none() {
                    return None;
                }
                ExternType::Memory(ty.with_shared(*shared))
            }
        })
    }

    /// A new type object of the C form of `ty`.
    pub fn new_handle(ty: &ExternType) -> *mut wasm_externtype_t {
        ExternTypeObj::new_handle_in(ty, None)
    }

    /// [`new_handle`](Self::new_handle) for a type `engine` gave, whose
    /// concrete reference types it knows (see [`ValTypeObj::new`]).
    pub fn new_handle_in(ty: &ExternType, engine: Option<&cranewasm::Engine>) -> *mut wasm_externtype_t {
        ExternTypeObj::from_core(ty, engine).map_or(ptr::null_mut(), object::new)
    }
}

/// An owned vector of new value types.
fn valtypes(tys: &[ValType], engine: Option<&cranewasm::Engine>) -> wasm_valtype_vec_t {
    let items = tys.iter().map(|&ty| object::new::<wasm_valtype_t>(ValTypeObj::new(ty, engine)));
    wasm_valtype_vec_t::from_raw(RawVec::from_items(items))
}

/// The core type behind any of the type handles, if it is complete.
///
/// # Safety
/// As for [`object::get`].
pub unsafe fn extern_type<C: Handle<Obj = ExternTypeObj>>(p: Option<&C>) -> Option<ExternType> {
    // SAFETY: as the caller promises.
    unsafe { get::<C>(p) }?.to_core()
}

/// The core signature of a function type, if it is complete.
///
/// # Safety
/// As for [`object::get`].
pub unsafe fn func_type(p: Option<&wasm_functype_t>) -> Option<FuncType> {
    // SAFETY: as the caller promises.
    match unsafe { extern_type(p) }? {
        ExternType::Func(f) => Some(f),
        _ => None,
    }
}

/// The type object behind a live handle of type `C`.
///
/// # Safety
/// As for [`object::get`].
pub(crate) unsafe fn obj<'a, C: Handle<Obj = ExternTypeObj>>(p: Option<&C>) -> Option<&'a ExternTypeObj> {
    // SAFETY: as the caller promises.
    unsafe { get::<C>(p) }
}

// ---- value types ----

/// A value type of the given kind; NULL for a kind that is not one of
/// `WASM_I32` .. `WASM_V128`, `WASM_EXTERNREF`, `WASM_FUNCREF`.
///
/// # Safety
/// None needed: it takes no pointer.
#[unsafe(no_mangle)]
pub extern "C" fn wasm_valtype_new(kind: wasm_valkind_t) -> *mut wasm_valtype_t {
    match kinds::valtype(kind) {
        Some(ty) => object::new(ValTypeObj::new(ty, None)),
        None => ptr::null_mut(),
    }
}

/// The kind of a value type: `WASM_EXTERNREF` for NULL, and `WASM_I32`
/// (0) for a pointer that is not a live value type, as WAMR answers (it
/// reads the kind byte, which is 0 in the zero-filled structs bindings
/// make).
///
/// # Safety
/// `t` may be NULL or any pointer; it is read only if it is a live value
/// type. No other thread may delete it meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_valtype_kind(t: Option<&wasm_valtype_t>) -> wasm_valkind_t {
    if t.is_none() {
        return EXTERNREF_KIND;
    }
    // SAFETY: the client keeps the threading rule above.
    unsafe { get::<wasm_valtype_t>(t) }.map_or(0, |t| t.kind)
}

// ---- function types ----

c_object! {
    /// A function type; also a `wasm_externtype_t`.
    wasm_functype_t: ExternTypeObj [FuncType];
    delete: wasm_functype_delete;
    copy: wasm_functype_copy;
    upcast wasm_externtype_t: wasm_functype_as_externtype, wasm_functype_as_externtype_const,
        wasm_externtype_as_functype, wasm_externtype_as_functype_const;
}

/// A function type that takes ownership of both vectors as WAMR does: it
/// copies the two structs, so it owns their buffers and first `num_elems`
/// elements, and the caller's structs are left as they were (to be
/// forgotten, not deleted). NULL vectors stand for empty lists.
///
/// # Safety
/// `params` and `results` must be NULL or valid vectors whose buffers and
/// elements the caller gives up (each element NULL or any pointer:
/// anything but a live value type makes the type unusable, as an invalid
/// one).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_functype_new(
    params: *mut wasm_valtype_vec_t,
    results: *mut wasm_valtype_vec_t,
) -> *mut wasm_functype_t {
    // SAFETY: NULL or valid vectors (caller); a bitwise copy of the struct.
    let adopt = |v: *mut wasm_valtype_vec_t| unsafe { v.as_ref() }.map_or(RawVec::EMPTY, |v| v.raw().bitwise());
    let (params, results) = (wasm_valtype_vec_t::from_raw(adopt(params)), wasm_valtype_vec_t::from_raw(adopt(results)));
    object::new(ExternTypeObj::Func { params, results })
}

/// The parameter types (owned by the function type).
///
/// # Safety
/// `t` may be NULL or any pointer: anything but a live function type
/// counts as NULL. No other thread may delete it meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_functype_params(t: Option<&wasm_functype_t>) -> *const wasm_valtype_vec_t {
    // SAFETY: the client keeps the threading rule above.
    match unsafe { obj(t) } {
        Some(ExternTypeObj::Func { params, .. }) => params,
        _ => ptr::null(),
    }
}

/// The result types (owned by the function type).
///
/// # Safety
/// As for [`wasm_functype_params`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_functype_results(t: Option<&wasm_functype_t>) -> *const wasm_valtype_vec_t {
    // SAFETY: the client keeps the threading rule above.
    match unsafe { obj(t) } {
        Some(ExternTypeObj::Func { results, .. }) => results,
        _ => ptr::null(),
    }
}

// ---- global types ----

c_object! {
    /// A global type; also a `wasm_externtype_t`.
    wasm_globaltype_t: ExternTypeObj [GlobalType];
    delete: wasm_globaltype_delete;
    copy: wasm_globaltype_copy;
    upcast wasm_externtype_t: wasm_globaltype_as_externtype, wasm_globaltype_as_externtype_const,
        wasm_externtype_as_globaltype, wasm_externtype_as_globaltype_const;
}

/// A global type owning `content`, with the mutability byte as given (as
/// in WAMR, any value other than `WASM_CONST` reads as mutable). NULL, and
/// `content` left to the caller, for a `content` that is not a live value
/// type.
///
/// # Safety
/// `content` may be NULL or any pointer; a live value type must be the
/// caller's to give.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_globaltype_new(
    content: Option<&mut wasm_valtype_t>,
    mutability: wasm_mutability_t,
) -> *mut wasm_globaltype_t {
    // SAFETY: `content` is owned (caller).
    let Some(content) = (unsafe { Own::adopt(content) }) else { return ptr::null_mut() };
    object::new(ExternTypeObj::Global { content, mutability })
}

/// The content type (owned by the global type).
///
/// # Safety
/// `t` may be NULL or any pointer: anything but a live global type counts
/// as NULL. No other thread may delete it meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_globaltype_content(t: Option<&wasm_globaltype_t>) -> *const wasm_valtype_t {
    // SAFETY: the client keeps the threading rule above.
    match unsafe { obj(t) } {
        Some(ExternTypeObj::Global { content, .. }) => content.as_ptr(),
        _ => ptr::null(),
    }
}

/// `WASM_CONST` or `WASM_VAR` (`WASM_CONST` for NULL).
///
/// # Safety
/// As for [`wasm_globaltype_content`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_globaltype_mutability(t: Option<&wasm_globaltype_t>) -> wasm_mutability_t {
    // SAFETY: the client keeps the threading rule above.
    match unsafe { obj(t) } {
        Some(ExternTypeObj::Global { mutability, .. }) => *mutability,
        _ => 0,
    }
}

// ---- table types ----

c_object! {
    /// A table type; also a `wasm_externtype_t`.
    wasm_tabletype_t: ExternTypeObj [TableType];
    delete: wasm_tabletype_delete;
    copy: wasm_tabletype_copy;
    upcast wasm_externtype_t: wasm_tabletype_as_externtype, wasm_tabletype_as_externtype_const,
        wasm_externtype_as_tabletype, wasm_externtype_as_tabletype_const;
}

/// A table type owning `element`; NULL, and `element` left to the
/// caller, unless the element is a reference type and `limits` is given.
///
/// # Safety
/// `element` as for [`wasm_globaltype_new`]; `limits` must be NULL or
/// valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_tabletype_new(
    element: Option<&mut wasm_valtype_t>,
    limits: Option<&wasm_limits_t>,
) -> *mut wasm_tabletype_t {
    // SAFETY: as the caller promises.
    unsafe { new_tabletype(element, limits.map(|l| Sizes::new32(*l))) }
}

/// A table type owning `element`, of `sizes`; NULL, and `element` left to
/// the caller, unless the element is a reference type and `sizes` given.
///
/// # Safety
/// `element` as for [`wasm_globaltype_new`].
pub(crate) unsafe fn new_tabletype(
    element: Option<&mut wasm_valtype_t>,
    sizes: Option<Sizes>,
) -> *mut wasm_tabletype_t {
    // SAFETY: the client keeps the threading rule of `element`.
    let is_ref = unsafe { get::<wasm_valtype_t>(element.as_deref()) }.is_some_and(|e| e.ty.is_ref());
    let (true, Some(sizes)) = (is_ref, sizes) else { return ptr::null_mut() };
    // SAFETY: `element` is a live value type the caller gives up.
    match unsafe { Own::adopt(element) } {
        Some(element) => object::new(ExternTypeObj::Table { element, sizes }),
        None => ptr::null_mut(),
    }
}

/// The element type (owned by the table type).
///
/// # Safety
/// `t` may be NULL or any pointer: anything but a live table type counts
/// as NULL. No other thread may delete it meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_tabletype_element(t: Option<&wasm_tabletype_t>) -> *const wasm_valtype_t {
    // SAFETY: the client keeps the threading rule above.
    match unsafe { obj(t) } {
        Some(ExternTypeObj::Table { element, .. }) => element.as_ptr(),
        _ => ptr::null(),
    }
}

/// The limits (owned by the table type).
///
/// # Safety
/// As for [`wasm_tabletype_element`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_tabletype_limits(t: Option<&wasm_tabletype_t>) -> *const wasm_limits_t {
    // SAFETY: the client keeps the threading rule above.
    match unsafe { obj(t) } {
        Some(ExternTypeObj::Table { sizes, .. }) => &sizes.limits,
        _ => ptr::null(),
    }
}

// ---- memory types ----

c_object! {
    /// A memory type; also a `wasm_externtype_t`.
    wasm_memorytype_t: ExternTypeObj [MemoryType];
    delete: wasm_memorytype_delete;
    copy: wasm_memorytype_copy;
    upcast wasm_externtype_t: wasm_memorytype_as_externtype, wasm_memorytype_as_externtype_const,
        wasm_externtype_as_memorytype, wasm_externtype_as_memorytype_const;
}

/// A memory type with the given limits (in 64 KiB pages).
///
/// # Safety
/// `limits` must be NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_memorytype_new(limits: Option<&wasm_limits_t>) -> *mut wasm_memorytype_t {
    match limits {
        Some(l) => object::new(ExternTypeObj::Memory { sizes: Sizes::new32(*l), shared: false }),
        None => ptr::null_mut(),
    }
}

/// A shared memory type (the threads proposal) with the given limits, which
/// must have a maximum; NULL otherwise. A cranewasm extension: WAMR's
/// `wasm_c_api.h` has no shared flag. A memory of this type never moves
/// (it is reserved at its maximum), so pointers into its data stay valid
/// across growth, and one memory may be imported by several instances.
///
/// # Safety
/// `limits` must be NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_memorytype_new_shared(limits: Option<&wasm_limits_t>) -> *mut wasm_memorytype_t {
    match limits {
        Some(l) if l.max != u32::MAX && l.max >= l.min => {
            object::new(ExternTypeObj::Memory { sizes: Sizes::new32(*l), shared: true })
        }
        _ => ptr::null_mut(),
    }
}

/// Whether memories of this type are shared (false for anything but a live
/// memory type). A cranewasm extension, see
/// [`cranewasm_memorytype_new_shared`].
///
/// # Safety
/// As for [`wasm_memorytype_limits`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_memorytype_is_shared(t: Option<&wasm_memorytype_t>) -> bool {
    // SAFETY: the client keeps the threading rule above.
    matches!(unsafe { obj(t) }, Some(ExternTypeObj::Memory { shared: true, .. }))
}

/// The limits (owned by the memory type).
///
/// # Safety
/// `t` may be NULL or any pointer: anything but a live memory type counts
/// as NULL. No other thread may delete it meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_memorytype_limits(t: Option<&wasm_memorytype_t>) -> *const wasm_limits_t {
    // SAFETY: the client keeps the threading rule above.
    match unsafe { obj(t) } {
        Some(ExternTypeObj::Memory { sizes, .. }) => &sizes.limits,
        _ => ptr::null(),
    }
}

// ---- extern types ----

c_object! {
    /// The type of a function, global, table or memory.
    wasm_externtype_t: ExternTypeObj [FuncType | GlobalType | TableType | MemoryType];
    delete: wasm_externtype_delete;
    copy: wasm_externtype_copy;
}

/// The kind of an entity type (`WASM_EXTERN_FUNC` for NULL, as WAMR
/// answers).
///
/// # Safety
/// `t` may be NULL or any pointer: anything but a live type counts as
/// NULL. No other thread may delete it meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_externtype_kind(t: Option<&wasm_externtype_t>) -> wasm_externkind_t {
    // SAFETY: the client keeps the threading rule above.
    unsafe { obj(t) }.map_or(0, ExternTypeObj::c_kind)
}

use crate::c_api::vec::{wasm_valtype_vec_copy, wasm_valtype_vec_delete};
