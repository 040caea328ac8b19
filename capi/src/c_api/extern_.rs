//! Externals: the object behind `wasm_func_t`, `wasm_global_t`,
//! `wasm_table_t`, `wasm_memory_t` and `wasm_extern_t`.
//!
//! All five are one [`ExternObj`], so `wasm_func_as_extern` and friends are
//! casts (as in WAMR) and the reverse casts check the kind. An object is a
//! handle: it names a core entity of its store, and its copies (and the
//! objects `wasm_func_as_ref` / `wasm_ref_as_func` make) name the same
//! entity. Host-made entities live as long as the store; an object made
//! from an instance's export keeps that instance alive (see `instance.rs`).
//!
//! `wasm_extern_new_empty` makes a function or global placeholder (WAMR
//! has no others): given as an import, it stands for "not provided" (see
//! `link.rs`); called directly, it traps with "failed to call unlinked
//! function".
//!
//! Some objects are not (yet) an entity of a store, as in WAMR: those made
//! without a store, host globals that no instance has linked, memories of
//! limits no memory can have ([`Unbound`]). They report their type, and
//! read as empty (no value, no data) until linking realises them in an
//! instance's store.

use std::ptr;
use std::rc::Rc;

use std::sync::Arc;

use cranewasm::{Extern, ExternType, Global, GlobalType, Instance, Memory, MemoryType, Table, TableType};

use crate::c_api::func::{FuncData, HostCallback};
use crate::c_api::global::Init;
use crate::c_api::store::{self, StoreObj};
use crate::c_api::types::{ExternTypeObj, wasm_externkind_t, wasm_externtype_t};
use crate::handle::Kind;
use crate::object::{self, Header, Object, c_object, get};
use crate::*;

/// The entity an [`ExternObj`] names.
#[derive(Clone)]
pub enum Item {
    Func(FuncData),
    Global(Global),
    Table(Table),
    Memory(Memory),
    /// A placeholder from `wasm_extern_new_empty` (its kind is the
    /// object's); copies share the token, which is its identity.
    Placeholder(Rc<()>),
    /// Not an entity of a store; copies share it, and it is their
    /// identity.
    Unbound(Rc<Unbound>),
}

/// What an object that is not an entity of a store stands for (see the
/// module documentation): enough to make the entity when an instance
/// links it.
pub enum Unbound {
    /// A host function made without a store.
    Func(Arc<HostCallback>),
    /// A host global: its type and initial value, which each instance that
    /// links it gets (as in WAMR).
    Global { ty: GlobalType, init: Init },
    /// A memory made without a store, or with limits no memory can have
    /// (kept as given, for its type).
    Memory(MemoryType),
    /// A table made without a store.
    Table(TableType),
}

/// What the extern family of pointers points at.
#[repr(C)]
pub struct ExternObj {
    pub header: Header,
    /// `Func`, `Global`, `Table` or `Memory`.
    kind: Kind,
    pub item: Item,
    /// The instance whose export this object was made from; it lives at
    /// least as long as the object (see `instance.rs`).
    owner: Option<Instance>,
}

const _: () = assert!(std::mem::offset_of!(ExternObj, header) == 0);

// SAFETY: `kind` is one of the four entity kinds, which the handles
// `wasm_func_t` .. `wasm_memory_t` and `wasm_extern_t` map to `ExternObj`,
// and `wasm_ref_t` to its header, which comes first.
unsafe impl Object for ExternObj {
    fn kind(&self) -> Kind {
        self.kind
    }
    fn header(&mut self) -> Option<&mut Header> {
        Some(&mut self.header)
    }
    fn duplicate(&self) -> Option<ExternObj> {
        // SAFETY: objects exist only while their store does.
        Some(unsafe { ExternObj::new(self.header.store, self.kind, self.item.clone(), self.owner) })
    }
    fn same(&self, other: &ExternObj) -> bool {
        match (&self.item, &other.item) {
            (Item::Placeholder(a), Item::Placeholder(b)) => Rc::ptr_eq(a, b),
            (Item::Unbound(a), Item::Unbound(b)) => Rc::ptr_eq(a, b),
            (Item::Placeholder(_) | Item::Unbound(_), _) | (_, Item::Placeholder(_) | Item::Unbound(_)) => false,
            _ => self.to_core() == other.to_core(),
        }
    }
}

impl Drop for ExternObj {
    fn drop(&mut self) {
        if let Some(owner) = self.owner {
            // SAFETY: objects are destroyed while their store is alive.
            unsafe { crate::c_api::instance::unretain(self.header.store, owner) }
        }
    }
}

impl ExternObj {
    /// An object for `item` of `kind` in `store`, standing for an export of
    /// `owner` (which it keeps alive) if given.
    ///
    /// # Safety
    /// `store` must be live and own the entity (and `owner`).
    pub unsafe fn new(store: *mut StoreObj, kind: Kind, item: Item, owner: Option<Instance>) -> ExternObj {
        if let Some(owner) = owner {
            // SAFETY: as the caller promises.
            unsafe { crate::c_api::instance::retain(store, owner) };
        }
        ExternObj { header: Header::new(store), kind, item, owner }
    }

    /// An object for a core entity of `store`.
    ///
    /// # Safety
    /// As for [`ExternObj::new`].
    pub unsafe fn from_core(store: *mut StoreObj, e: Extern, owner: Option<Instance>) -> ExternObj {
        let (kind, item) = match e {
            Extern::Func(f) => {
                // SAFETY: `store` is live (caller).
                let ty = f.ty(unsafe { store::core(store) });
                (Kind::Func, Item::Func(FuncData::new(f, ty, None)))
            }
            Extern::Global(g) => (Kind::Global, Item::Global(g)),
            Extern::Table(t) => (Kind::Table, Item::Table(t)),
            Extern::Memory(m) => (Kind::Memory, Item::Memory(m)),
            // The C API has no tags; callers leave them out.
            Extern::Tag(_) => unreachable!("tags have no wasm_extern_t"),
        };
        // SAFETY: as the caller promises.
        unsafe { ExternObj::new(store, kind, item, owner) }
    }

    /// An object of `kind` that is no entity of a store (see [`Unbound`]),
    /// in `store` (freed with it) or in none.
    ///
    /// # Safety
    /// `store` must be NULL or live.
    pub unsafe fn unbound(store: *mut StoreObj, kind: Kind, item: Unbound) -> ExternObj {
        // SAFETY: as the caller promises; an unbound object names no entity.
        unsafe { ExternObj::new(store, kind, Item::Unbound(Rc::new(item)), None) }
    }

    /// The core entity, unless this is a placeholder or unbound.
    pub fn to_core(&self) -> Option<Extern> {
        Some(match &self.item {
            Item::Func(f) => Extern::Func(f.func),
            Item::Global(g) => Extern::Global(*g),
            Item::Table(t) => Extern::Table(*t),
            Item::Memory(m) => Extern::Memory(*m),
            Item::Placeholder(_) | Item::Unbound(_) => return None,
        })
    }

    /// Makes this object stand for `entity` of `store` from now on: what
    /// linking does to the globals, memories and tables it was given (in
    /// WAMR they then refer to the instance's). An object of no store joins
    /// `store` (and is freed with it).
    ///
    /// # Safety
    /// `store` must be live and own `entity`; the object's store must be
    /// NULL or `store`; `cell` must be this object's handle.
    pub unsafe fn rebind(&mut self, cell: usize, store: *mut StoreObj, entity: Extern) {
        self.item = match entity {
            Extern::Func(_) | Extern::Tag(_) => return,
            Extern::Global(g) => Item::Global(g),
            Extern::Table(t) => Item::Table(t),
            Extern::Memory(m) => Item::Memory(m),
        };
        // SAFETY: as the caller promises.
        unsafe { object::join(&mut self.header, cell, store) };
    }

    /// The instance this object stands for an export of.
    pub fn owner(&self) -> Option<Instance> {
        self.owner
    }

    /// The C extern kind (`WASM_EXTERN_FUNC` .. `WASM_EXTERN_MEMORY`).
    pub fn c_kind(&self) -> wasm_externkind_t {
        match self.kind {
            Kind::Func => 0,
            Kind::Global => 1,
            Kind::Table => 2,
            _ => 3,
        }
    }

    /// The entity's type as the C API reports it (tables and memories with
    /// their declared minimum, as in WAMR); `None` for a placeholder.
    /// A new type object of this entity's type (NULL for a placeholder),
    /// its concrete reference types told apart by its store's engine.
    pub fn type_handle(&self) -> *mut crate::c_api::types::wasm_externtype_t {
        let Some(ty) = self.ty() else { return std::ptr::null_mut() };
        // SAFETY: an entity's store is NULL (a host object of no store yet)
        // or live, and not otherwise borrowed during this call.
        let engine = unsafe { self.header.store.as_ref() }.map(|s| s.store.engine().clone());
        ExternTypeObj::new_handle_in(&ty, engine.as_ref())
    }

    pub fn ty(&self) -> Option<ExternType> {
        let core = || {
            // SAFETY: an object naming an entity belongs to the live store
            // that owns it, and nothing else borrows the core store during
            // this call.
            unsafe { store::core(self.header.store) }
        };
        Some(match &self.item {
            Item::Func(f) => ExternType::Func(f.ty.clone()),
            Item::Global(g) => ExternType::Global(g.ty(core())),
            Item::Table(t) => ExternType::Table(t.declared_ty(core())),
            Item::Memory(m) => ExternType::Memory(m.declared_ty(core())),
            Item::Placeholder(_) => return None,
            Item::Unbound(u) => match &**u {
                Unbound::Func(host) => ExternType::Func(host.ty.clone()),
                Unbound::Global { ty, .. } => ExternType::Global(*ty),
                Unbound::Memory(ty) => ExternType::Memory(*ty),
                Unbound::Table(ty) => ExternType::Table(*ty),
            },
        })
    }
}

c_object! {
    /// A function, global, table or memory of a store.
    wasm_extern_t: ExternObj [Func | Global | Table | Memory];
    delete: wasm_extern_delete;
    copy: wasm_extern_copy;
    same: wasm_extern_same;
    host_info: wasm_extern_get_host_info, wasm_extern_set_host_info, wasm_extern_set_host_info_with_finalizer;
    as_ref: wasm_extern_as_ref, wasm_extern_as_ref_const, wasm_ref_as_extern, wasm_ref_as_extern_const;
}

/// The extern's kind: `WASM_EXTERNREF` (128) for NULL, and
/// `WASM_EXTERN_FUNC` (0) for a pointer that is not a live extern, as
/// WAMR answers (it reads the kind byte, 0 in the zero-filled structs
/// bindings make).
///
/// # Safety
/// `e` may be NULL or any pointer; it is read only if it is a live extern.
/// No other thread may delete it meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_extern_kind(e: Option<&wasm_extern_t>) -> wasm_externkind_t {
    if e.is_none() {
        return 128;
    }
    // SAFETY: the client keeps the threading rule above.
    unsafe { get::<wasm_extern_t>(e) }.map_or(0, ExternObj::c_kind)
}

/// The entity's type, as `wasm_func_type` .. `wasm_memory_type` give it;
/// NULL for a placeholder.
///
/// # Safety
/// As for [`wasm_extern_kind`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_extern_type(e: Option<&wasm_extern_t>) -> *mut wasm_externtype_t {
    // SAFETY: the client keeps the threading rule above.
    unsafe { get::<wasm_extern_t>(e) }.map_or(ptr::null_mut(), ExternObj::type_handle)
}

/// A placeholder extern of `kind` in `store` (or in none, for a NULL
/// store), for the imports of `wasm_instance_new` that the client does not
/// provide. As in WAMR, only functions and globals have placeholders: NULL
/// for any other kind.
///
/// # Safety
/// `store` may be NULL or any pointer: anything but a live store counts as
/// NULL. The store must not be used by another thread meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_extern_new_empty(
    store: Option<&mut wasm_store_t>,
    kind: wasm_externkind_t,
) -> *mut wasm_extern_t {
    let kind = match kind {
        0 => Kind::Func,
        1 => Kind::Global,
        _ => return ptr::null_mut(),
    };
    // SAFETY: the client keeps the threading rule above.
    let store = unsafe { store::from_c(store) }.unwrap_or(ptr::null_mut());
    // SAFETY: the store is NULL or live; a placeholder names no entity.
    object::new(unsafe { ExternObj::new(store, kind, Item::Placeholder(Rc::new(())), None) })
}
