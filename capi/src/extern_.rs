//! Externals: the object behind `wasm_func_t`, `wasm_global_t`,
//! `wasm_table_t`, `wasm_memory_t` and `wasm_extern_t`.
//!
//! All five are one [`ExternObj`], so `wasm_func_as_extern` and friends are
//! casts and the reverse casts check the kind. An object is a handle: it
//! names a core entity of its store. Host-made entities live as long as
//! the store; an object made from an instance's export keeps that instance
//! alive (see `instance.rs`).
//!
//! `wasm_extern_new_empty` makes a placeholder of a kind: given as an
//! import, it stands for "not provided" (a function that traps with "failed
//! to call unlinked function", a zero global, a fresh table or memory of
//! the declared type); called directly, it traps the same way.

use std::ptr;

use cranewasm::{Extern, Global, Instance, Memory, Table};

use crate::func::FuncData;
use crate::object::{header, impl_object, register, release, Header, ObjKind};
use crate::store::StoreObj;
use crate::types::{wasm_externkind_t, ExternTypeObj};
use crate::*;

/// The entity an [`ExternObj`] names.
#[derive(Clone)]
pub enum Item {
    Func(FuncData),
    Global(Global),
    Table(Table),
    Memory(Memory),
    /// A placeholder from `wasm_extern_new_empty`; its kind is the
    /// header's.
    Placeholder,
}

/// What the extern family of pointers points at.
#[repr(C)]
pub struct ExternObj {
    pub header: Header,
    pub item: Item,
    /// The instance whose export this object was made from; it lives at
    /// least as long as the object (see `instance.rs`).
    pub owner: Option<Instance>,
}

impl_object!(ExternObj);

impl Drop for ExternObj {
    fn drop(&mut self) {
        if let Some(owner) = self.owner {
            // SAFETY: objects are destroyed while their store is alive.
            unsafe { crate::instance::unretain(self.header.store, owner) }
        }
    }
}

/// Records that `obj`, just made, stands for an export of `owner`.
///
/// # Safety
/// `obj` must be a live extern object without an owner, of `owner`'s store.
pub unsafe fn set_owner(obj: *mut ExternObj, owner: Instance) {
    crate::instance::retain((*obj).header.store, owner);
    (*obj).owner = Some(owner);
}

impl ExternObj {
    /// The core entity, unless this is a placeholder.
    pub fn to_core(&self) -> Option<Extern> {
        Some(match &self.item {
            Item::Func(f) => Extern::Func(f.func),
            Item::Global(g) => Extern::Global(*g),
            Item::Table(t) => Extern::Table(*t),
            Item::Memory(m) => Extern::Memory(*m),
            Item::Placeholder => return None,
        })
    }

    /// The C extern kind (`WASM_EXTERN_FUNC` .. `WASM_EXTERN_MEMORY`).
    pub fn kind(&self) -> wasm_externkind_t {
        match self.header.kind {
            ObjKind::Func => 0,
            ObjKind::Global => 1,
            ObjKind::Table => 2,
            _ => 3,
        }
    }
}

/// Registers a new extern object of `kind` in `store`.
///
/// # Safety
/// `store` must be live.
pub unsafe fn new_extern(store: *mut StoreObj, kind: ObjKind, item: Item) -> *mut ExternObj {
    register(ExternObj { header: Header::new(kind, store), item, owner: None })
}

/// A new object for a core entity of `store`.
///
/// # Safety
/// `store` must be live and own the entity.
pub unsafe fn from_core(store: *mut StoreObj, e: Extern) -> *mut ExternObj {
    match e {
        Extern::Func(f) => {
            let ty = f.ty(crate::store::core(store));
            crate::func::new_func_obj(store, f, ty, None)
        }
        Extern::Global(g) => new_extern(store, ObjKind::Global, Item::Global(g)),
        Extern::Table(t) => new_extern(store, ObjKind::Table, Item::Table(t)),
        Extern::Memory(m) => new_extern(store, ObjKind::Memory, Item::Memory(m)),
    }
}

/// The extern object behind any of its pointer types.
///
/// # Safety
/// `p` must be NULL or point at a live extern object.
pub unsafe fn obj<'a, T>(p: *const T) -> Option<&'a ExternObj> {
    p.cast::<ExternObj>().as_ref()
}

/// A copy of an extern object: a new handle to the same entity, without
/// host info.
///
/// # Safety
/// As for [`obj`], with a live store.
pub unsafe fn copy<T>(p: *const T) -> *mut T {
    match obj(p) {
        Some(e) => {
            let c = new_extern(e.header.store, e.header.kind, e.item.clone());
            if let Some(owner) = e.owner {
                set_owner(c, owner);
            }
            c.cast()
        }
        None => ptr::null_mut(),
    }
}

/// Whether two extern objects name the same entity (two NULLs do too).
///
/// # Safety
/// As for [`obj`].
pub unsafe fn same<T>(a: *const T, b: *const T) -> bool {
    match (obj(a), obj(b)) {
        (None, None) => true,
        (Some(a), Some(b)) => match (&a.item, &b.item) {
            (Item::Placeholder, Item::Placeholder) => ptr::eq(a, b),
            _ => a.header.kind == b.header.kind && a.to_core() == b.to_core(),
        },
        _ => false,
    }
}

/// Deletes an extern object of any kind (the entity stays in its store).
#[no_mangle]
pub unsafe extern "C" fn wasm_extern_delete(e: *mut wasm_extern_t) {
    release(e.cast())
}

#[no_mangle]
pub unsafe extern "C" fn wasm_extern_copy(e: *const wasm_extern_t) -> *mut wasm_extern_t {
    copy(e)
}

#[no_mangle]
pub unsafe extern "C" fn wasm_extern_same(a: *const wasm_extern_t, b: *const wasm_extern_t) -> bool {
    same(a, b)
}

/// The extern's kind (`WASM_EXTERNREF`, 128, for NULL, as WAMR answers).
#[no_mangle]
pub unsafe extern "C" fn wasm_extern_kind(e: *const wasm_extern_t) -> wasm_externkind_t {
    obj(e).map_or(128, |e| e.kind())
}

/// The entity's type, as `wasm_func_type` .. `wasm_memory_type` give it;
/// NULL for a placeholder.
#[no_mangle]
pub unsafe extern "C" fn wasm_extern_type(e: *const wasm_extern_t) -> *mut wasm_externtype_t {
    let Some(obj) = obj(e) else { return ptr::null_mut() };
    match obj.header.kind {
        ObjKind::Table => return crate::table::wasm_table_type(e.cast()).cast(),
        ObjKind::Memory => return crate::memory::wasm_memory_type(e.cast()).cast(),
        _ => {}
    }
    let e = obj;
    let Some(core) = e.to_core() else { return ptr::null_mut() };
    ExternTypeObj::new_boxed(&core.ty(crate::store::core(e.header.store)))
}

/// A placeholder extern of `kind` in `store`, for the imports of
/// `wasm_instance_new` that the client does not provide. NULL for a kind
/// other than `WASM_EXTERN_FUNC` .. `WASM_EXTERN_MEMORY`. WAMR supports
/// only function and global placeholders; tables and memories work the
/// same way here.
#[no_mangle]
pub unsafe extern "C" fn wasm_extern_new_empty(
    store: *mut wasm_store_t,
    kind: wasm_externkind_t,
) -> *mut wasm_extern_t {
    let Some(store) = crate::store::from_c(store) else { return ptr::null_mut() };
    let kind = match kind {
        0 => ObjKind::Func,
        1 => ObjKind::Global,
        2 => ObjKind::Table,
        3 => ObjKind::Memory,
        _ => return ptr::null_mut(),
    };
    new_extern(store, kind, Item::Placeholder).cast()
}

/// Defines the free casts from each entity to `wasm_extern_t` and the
/// checked casts back, mutable and const.
macro_rules! extern_casts {
    ($($ty:ident, $kind:ident, $as_extern:ident, $as_extern_const:ident, $from_extern:ident, $from_extern_const:ident;)*) => {$(
        /// The same object, seen as an extern.
        #[no_mangle]
        pub extern "C" fn $as_extern(p: *mut $ty) -> *mut wasm_extern_t {
            p.cast()
        }
        /// The same object, seen as an extern.
        #[no_mangle]
        pub extern "C" fn $as_extern_const(p: *const $ty) -> *const wasm_extern_t {
            p.cast()
        }
        /// The same object if the extern is of this kind, else NULL.
        #[no_mangle]
        pub unsafe extern "C" fn $from_extern(e: *mut wasm_extern_t) -> *mut $ty {
            match header(e) {
                Some(h) if h.kind == ObjKind::$kind => e.cast(),
                _ => ptr::null_mut(),
            }
        }
        /// The same object if the extern is of this kind, else NULL.
        #[no_mangle]
        pub unsafe extern "C" fn $from_extern_const(e: *const wasm_extern_t) -> *const $ty {
            match header(e) {
                Some(h) if h.kind == ObjKind::$kind => e.cast(),
                _ => ptr::null(),
            }
        }
    )*};
}

extern_casts! {
    wasm_func_t, Func, wasm_func_as_extern, wasm_func_as_extern_const, wasm_extern_as_func, wasm_extern_as_func_const;
    wasm_global_t, Global, wasm_global_as_extern, wasm_global_as_extern_const,
        wasm_extern_as_global, wasm_extern_as_global_const;
    wasm_table_t, Table, wasm_table_as_extern, wasm_table_as_extern_const, wasm_extern_as_table, wasm_extern_as_table_const;
    wasm_memory_t, Memory, wasm_memory_as_extern, wasm_memory_as_extern_const,
        wasm_extern_as_memory, wasm_extern_as_memory_const;
}
