//! Type objects: value types, the four entity types and `wasm_externtype_t`
//! that stands for any of them.
//!
//! A function, global, table or memory type is one [`ExternTypeObj`], so
//! `wasm_functype_as_externtype` and friends are casts, and the reverse
//! casts check the kind. Type objects belong to no store.

use std::ptr;

use cranewasm::{ExternType, FuncType, GlobalType, Limits, MemoryType, Mutability, TableType, ValType};

use crate::val::wasm_valkind_t;
use crate::vec::{wasm_valtype_vec_t, RawVec};
use crate::*;

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

impl From<Limits> for wasm_limits_t {
    fn from(l: Limits) -> wasm_limits_t {
        wasm_limits_t { min: l.min, max: l.max.unwrap_or(u32::MAX) }
    }
}

impl From<wasm_limits_t> for Limits {
    fn from(l: wasm_limits_t) -> Limits {
        Limits::new(l.min, (l.max != u32::MAX).then_some(l.max))
    }
}

/// What a `wasm_valtype_t *` points at.
pub struct ValTypeObj {
    pub ty: ValType,
}

/// What the four entity type pointers and `wasm_externtype_t *` point at.
pub enum ExternTypeObj {
    Func { params: wasm_valtype_vec_t, results: wasm_valtype_vec_t },
    Global { content: Box<ValTypeObj>, mutability: wasm_mutability_t },
    Table { element: Box<ValTypeObj>, limits: wasm_limits_t },
    Memory { limits: wasm_limits_t },
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

impl ExternTypeObj {
    fn kind(&self) -> wasm_externkind_t {
        match self {
            ExternTypeObj::Func { .. } => 0,
            ExternTypeObj::Global { .. } => 1,
            ExternTypeObj::Table { .. } => 2,
            ExternTypeObj::Memory { .. } => 3,
        }
    }

    /// The C form of a core type.
    pub fn from_core(ty: &ExternType) -> ExternTypeObj {
        let boxed = |ty: ValType| Box::new(ValTypeObj { ty });
        match *ty {
            ExternType::Func(f) => ExternTypeObj::Func { params: valtypes(f.params()), results: valtypes(f.results()) },
            ExternType::Global(g) => {
                ExternTypeObj::Global { content: boxed(g.content), mutability: g.mutability as wasm_mutability_t }
            }
            ExternType::Table(t) => ExternTypeObj::Table { element: boxed(t.element), limits: t.limits.into() },
            ExternType::Memory(m) => ExternTypeObj::Memory { limits: m.limits.into() },
        }
    }

    /// The core type, if every part of this one is valid.
    pub fn to_core(&self) -> Option<ExternType> {
        Some(match self {
            ExternTypeObj::Func { params, results } => {
                // SAFETY: the vectors are owned by this type object.
                let list = |v: &wasm_valtype_vec_t| unsafe {
                    v.raw()
                        .as_slice()
                        .iter()
                        .map(|t| t.cast::<ValTypeObj>().as_ref().map(|t| t.ty))
                        .collect::<Option<Vec<_>>>()
                };
                ExternType::Func(FuncType::new(list(params)?, list(results)?))
            }
            ExternTypeObj::Global { content, mutability } => ExternType::Global(GlobalType::new(
                content.ty,
                if *mutability == 0 { Mutability::Const } else { Mutability::Var },
            )),
            ExternTypeObj::Table { element, limits } => ExternType::Table(TableType::new(element.ty, (*limits).into())),
            ExternTypeObj::Memory { limits } => ExternType::Memory(MemoryType { limits: (*limits).into() }),
        })
    }

    /// A new heap object of the C form of `ty`.
    pub fn new_boxed(ty: &ExternType) -> *mut wasm_externtype_t {
        Box::into_raw(Box::new(ExternTypeObj::from_core(ty))).cast()
    }
}

/// An owned vector of new value types.
fn valtypes(tys: &[ValType]) -> wasm_valtype_vec_t {
    let items = tys.iter().map(|&ty| Box::into_raw(Box::new(ValTypeObj { ty })).cast::<wasm_valtype_t>());
    wasm_valtype_vec_t::from_raw(RawVec::from_items(items))
}

/// The type object behind any of the type pointers.
///
/// # Safety
/// `p` must be NULL or point at a live type object.
pub unsafe fn obj<'a, T>(p: *const T) -> Option<&'a ExternTypeObj> {
    p.cast::<ExternTypeObj>().as_ref()
}

/// The core signature of a function type, if it is one and is complete.
///
/// # Safety
/// As for [`obj`].
pub unsafe fn func_type(p: *const wasm_functype_t) -> Option<FuncType> {
    match obj(p)?.to_core()? {
        ExternType::Func(f) => Some(f),
        _ => None,
    }
}

// ---- value types ----

/// A value type of the given kind; NULL for a kind that is not one of
/// `WASM_I32` .. `WASM_V128`, `WASM_EXTERNREF`, `WASM_FUNCREF`.
#[no_mangle]
pub extern "C" fn wasm_valtype_new(kind: wasm_valkind_t) -> *mut wasm_valtype_t {
    match ValType::from_kind(kind) {
        Some(ty) => Box::into_raw(Box::new(ValTypeObj { ty })).cast(),
        None => ptr::null_mut(),
    }
}

#[no_mangle]
pub unsafe extern "C" fn wasm_valtype_delete(t: *mut wasm_valtype_t) {
    if !t.is_null() {
        drop(Box::from_raw(t.cast::<ValTypeObj>()));
    }
}

#[no_mangle]
pub unsafe extern "C" fn wasm_valtype_copy(t: *const wasm_valtype_t) -> *mut wasm_valtype_t {
    match t.cast::<ValTypeObj>().as_ref() {
        Some(t) => wasm_valtype_new(t.ty.kind()),
        None => ptr::null_mut(),
    }
}

/// The kind of a value type (`WASM_EXTERNREF` for NULL, as WAMR answers).
#[no_mangle]
pub unsafe extern "C" fn wasm_valtype_kind(t: *const wasm_valtype_t) -> wasm_valkind_t {
    t.cast::<ValTypeObj>().as_ref().map_or(EXTERNREF_KIND, |t| t.ty.kind())
}

// ---- function types ----

/// A function type that takes ownership of both vectors (they are left
/// empty). NULL vectors stand for empty lists.
#[no_mangle]
pub unsafe extern "C" fn wasm_functype_new(
    params: *mut wasm_valtype_vec_t,
    results: *mut wasm_valtype_vec_t,
) -> *mut wasm_functype_t {
    let params = wasm_valtype_vec_t::from_raw(RawVec::take(params.cast()));
    let results = wasm_valtype_vec_t::from_raw(RawVec::take(results.cast()));
    Box::into_raw(Box::new(ExternTypeObj::Func { params, results })).cast()
}

#[no_mangle]
pub unsafe extern "C" fn wasm_functype_delete(t: *mut wasm_functype_t) {
    wasm_externtype_delete(t.cast())
}

#[no_mangle]
pub unsafe extern "C" fn wasm_functype_copy(t: *const wasm_functype_t) -> *mut wasm_functype_t {
    wasm_externtype_copy(t.cast()).cast()
}

/// The parameter types (owned by the function type).
#[no_mangle]
pub unsafe extern "C" fn wasm_functype_params(t: *const wasm_functype_t) -> *const wasm_valtype_vec_t {
    match obj(t) {
        Some(ExternTypeObj::Func { params, .. }) => params,
        _ => ptr::null(),
    }
}

/// The result types (owned by the function type).
#[no_mangle]
pub unsafe extern "C" fn wasm_functype_results(t: *const wasm_functype_t) -> *const wasm_valtype_vec_t {
    match obj(t) {
        Some(ExternTypeObj::Func { results, .. }) => results,
        _ => ptr::null(),
    }
}

// ---- global types ----

/// A global type owning `content`; NULL (and `content` untouched) for a
/// NULL content or a mutability other than `WASM_CONST` / `WASM_VAR`.
#[no_mangle]
pub unsafe extern "C" fn wasm_globaltype_new(
    content: *mut wasm_valtype_t,
    mutability: wasm_mutability_t,
) -> *mut wasm_globaltype_t {
    if content.is_null() || mutability > 1 {
        // `content` is owned: it is consumed even when the call fails.
        wasm_valtype_delete(content);
        return ptr::null_mut();
    }
    let content = Box::from_raw(content.cast::<ValTypeObj>());
    Box::into_raw(Box::new(ExternTypeObj::Global { content, mutability })).cast()
}

#[no_mangle]
pub unsafe extern "C" fn wasm_globaltype_delete(t: *mut wasm_globaltype_t) {
    wasm_externtype_delete(t.cast())
}

#[no_mangle]
pub unsafe extern "C" fn wasm_globaltype_copy(t: *const wasm_globaltype_t) -> *mut wasm_globaltype_t {
    wasm_externtype_copy(t.cast()).cast()
}

#[no_mangle]
pub unsafe extern "C" fn wasm_globaltype_content(t: *const wasm_globaltype_t) -> *const wasm_valtype_t {
    match obj(t) {
        Some(ExternTypeObj::Global { content, .. }) => (&**content as *const ValTypeObj).cast(),
        _ => ptr::null(),
    }
}

#[no_mangle]
pub unsafe extern "C" fn wasm_globaltype_mutability(t: *const wasm_globaltype_t) -> wasm_mutability_t {
    match obj(t) {
        Some(ExternTypeObj::Global { mutability, .. }) => *mutability,
        _ => 0,
    }
}

// ---- table types ----

/// A table type owning `element`; NULL (and `element` untouched) unless
/// the element is a reference type and `limits` is given.
#[no_mangle]
pub unsafe extern "C" fn wasm_tabletype_new(
    element: *mut wasm_valtype_t,
    limits: *const wasm_limits_t,
) -> *mut wasm_tabletype_t {
    let (Some(e), Some(limits)) = (element.cast::<ValTypeObj>().as_ref(), limits.as_ref()) else {
        // `element` is owned: it is consumed even when the call fails.
        wasm_valtype_delete(element);
        return ptr::null_mut();
    };
    if !e.ty.is_ref() {
        wasm_valtype_delete(element);
        return ptr::null_mut();
    }
    let element = Box::from_raw(element.cast::<ValTypeObj>());
    Box::into_raw(Box::new(ExternTypeObj::Table { element, limits: *limits })).cast()
}

#[no_mangle]
pub unsafe extern "C" fn wasm_tabletype_delete(t: *mut wasm_tabletype_t) {
    wasm_externtype_delete(t.cast())
}

#[no_mangle]
pub unsafe extern "C" fn wasm_tabletype_copy(t: *const wasm_tabletype_t) -> *mut wasm_tabletype_t {
    wasm_externtype_copy(t.cast()).cast()
}

#[no_mangle]
pub unsafe extern "C" fn wasm_tabletype_element(t: *const wasm_tabletype_t) -> *const wasm_valtype_t {
    match obj(t) {
        Some(ExternTypeObj::Table { element, .. }) => (&**element as *const ValTypeObj).cast(),
        _ => ptr::null(),
    }
}

#[no_mangle]
pub unsafe extern "C" fn wasm_tabletype_limits(t: *const wasm_tabletype_t) -> *const wasm_limits_t {
    match obj(t) {
        Some(ExternTypeObj::Table { limits, .. }) => limits,
        _ => ptr::null(),
    }
}

// ---- memory types ----

/// A memory type with the given limits (in 64 KiB pages).
#[no_mangle]
pub unsafe extern "C" fn wasm_memorytype_new(limits: *const wasm_limits_t) -> *mut wasm_memorytype_t {
    match limits.as_ref() {
        Some(l) => Box::into_raw(Box::new(ExternTypeObj::Memory { limits: *l })).cast(),
        None => ptr::null_mut(),
    }
}

#[no_mangle]
pub unsafe extern "C" fn wasm_memorytype_delete(t: *mut wasm_memorytype_t) {
    wasm_externtype_delete(t.cast())
}

#[no_mangle]
pub unsafe extern "C" fn wasm_memorytype_copy(t: *const wasm_memorytype_t) -> *mut wasm_memorytype_t {
    wasm_externtype_copy(t.cast()).cast()
}

#[no_mangle]
pub unsafe extern "C" fn wasm_memorytype_limits(t: *const wasm_memorytype_t) -> *const wasm_limits_t {
    match obj(t) {
        Some(ExternTypeObj::Memory { limits }) => limits,
        _ => ptr::null(),
    }
}

// ---- extern types ----

/// The kind of an entity type (`WASM_EXTERN_FUNC` for NULL, as WAMR
/// answers).
#[no_mangle]
pub unsafe extern "C" fn wasm_externtype_kind(t: *const wasm_externtype_t) -> wasm_externkind_t {
    obj(t).map_or(0, |t| t.kind())
}

/// A deep copy of any entity type.
#[no_mangle]
pub unsafe extern "C" fn wasm_externtype_copy(t: *const wasm_externtype_t) -> *mut wasm_externtype_t {
    let Some(t) = obj(t) else { return ptr::null_mut() };
    let copy = match t {
        ExternTypeObj::Func { params, results } => {
            let (mut p, mut r) = (RawVec::EMPTY, RawVec::EMPTY);
            wasm_valtype_vec_copy((&mut p as *mut RawVec<_>).cast(), params);
            wasm_valtype_vec_copy((&mut r as *mut RawVec<_>).cast(), results);
            ExternTypeObj::Func { params: wasm_valtype_vec_t::from_raw(p), results: wasm_valtype_vec_t::from_raw(r) }
        }
        ExternTypeObj::Global { content, mutability } => {
            ExternTypeObj::Global { content: Box::new(ValTypeObj { ty: content.ty }), mutability: *mutability }
        }
        ExternTypeObj::Table { element, limits } => {
            ExternTypeObj::Table { element: Box::new(ValTypeObj { ty: element.ty }), limits: *limits }
        }
        ExternTypeObj::Memory { limits } => ExternTypeObj::Memory { limits: *limits },
    };
    Box::into_raw(Box::new(copy)).cast()
}

#[no_mangle]
pub unsafe extern "C" fn wasm_externtype_delete(t: *mut wasm_externtype_t) {
    if !t.is_null() {
        drop(Box::from_raw(t.cast::<ExternTypeObj>()));
    }
}

/// Defines the free casts from an entity type to `wasm_externtype_t` and
/// the checked casts back, mutable and const.
macro_rules! externtype_casts {
    ($($ty:ident, $kind:pat, $as_extern:ident, $as_extern_const:ident, $from_extern:ident, $from_extern_const:ident;)*) => {$(
        /// The same type object, seen as an entity type.
        #[no_mangle]
        pub extern "C" fn $as_extern(t: *mut $ty) -> *mut wasm_externtype_t {
            t.cast()
        }
        /// The same type object, seen as an entity type.
        #[no_mangle]
        pub extern "C" fn $as_extern_const(t: *const $ty) -> *const wasm_externtype_t {
            t.cast()
        }
        /// The same type object if it is of this kind, else NULL.
        #[no_mangle]
        pub unsafe extern "C" fn $from_extern(t: *mut wasm_externtype_t) -> *mut $ty {
            match obj(t) {
                Some($kind) => t.cast(),
                _ => ptr::null_mut(),
            }
        }
        /// The same type object if it is of this kind, else NULL.
        #[no_mangle]
        pub unsafe extern "C" fn $from_extern_const(t: *const wasm_externtype_t) -> *const $ty {
            match obj(t) {
                Some($kind) => t.cast(),
                _ => ptr::null(),
            }
        }
    )*};
}

externtype_casts! {
    wasm_functype_t, ExternTypeObj::Func { .. }, wasm_functype_as_externtype, wasm_functype_as_externtype_const,
        wasm_externtype_as_functype, wasm_externtype_as_functype_const;
    wasm_globaltype_t, ExternTypeObj::Global { .. }, wasm_globaltype_as_externtype, wasm_globaltype_as_externtype_const,
        wasm_externtype_as_globaltype, wasm_externtype_as_globaltype_const;
    wasm_tabletype_t, ExternTypeObj::Table { .. }, wasm_tabletype_as_externtype, wasm_tabletype_as_externtype_const,
        wasm_externtype_as_tabletype, wasm_externtype_as_tabletype_const;
    wasm_memorytype_t, ExternTypeObj::Memory { .. }, wasm_memorytype_as_externtype, wasm_memorytype_as_externtype_const,
        wasm_externtype_as_memorytype, wasm_externtype_as_memorytype_const;
}

use crate::vec::{wasm_valtype_vec_copy, wasm_valtype_vec_delete};
