//! What every runtime object of the C API shares: a [`Header`] naming its
//! kind, its store and its host info, and registration with that store.
//!
//! Objects live in `Box`es handed to the client as raw pointers. Each one
//! created in a store is entered in the store's [`Registry`]; deleting it
//! takes it out again, and deleting the store destroys whatever is still
//! registered. So a client may delete objects before their store, or leave
//! them to the store, and valgrind sees no leak either way.
//!
//! Reference objects (funcs, globals, tables, memories, instances, traps,
//! foreign objects) start with their header, so a `wasm_ref_t *` is just a
//! pointer to any of them and the `_as_ref` casts are free.

use std::ffi::c_void;
use std::ptr;

use crate::extern_::ExternObj;
use crate::frame::FrameObj;
use crate::instance::InstanceObj;
use crate::module::ModuleSlot;
use crate::ref_::ForeignObj;
use crate::store::StoreObj;
use crate::trap::TrapObj;

/// Which kind of object a header belongs to.
#[repr(u8)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ObjKind {
    Func,
    Global,
    Table,
    Memory,
    Instance,
    Trap,
    Foreign,
    Frame,
    Module,
}

impl ObjKind {
    /// Whether this kind is one of the four `wasm_extern_t` kinds.
    pub fn is_extern(self) -> bool {
        matches!(self, ObjKind::Func | ObjKind::Global | ObjKind::Table | ObjKind::Memory)
    }
}

/// A host-info finalizer, as C passes it.
pub type Finalizer = Option<unsafe extern "C" fn(*mut c_void)>;

/// Data the client attached to an object, and how to release it.
pub struct HostInfo {
    pub info: *mut c_void,
    pub finalizer: Finalizer,
}

/// The first field of every reference object (and a field of module
/// slots, which must start with their module pointer).
#[repr(C)]
pub struct Header {
    pub kind: ObjKind,
    /// The owning store, NULL for objects that belong to none (shared
    /// modules).
    pub store: *mut StoreObj,
    /// Index in the store's registry, while registered.
    slot: usize,
    pub host_info: HostInfo,
}

impl Header {
    /// A header for a new object of `kind` in `store`.
    pub fn new(kind: ObjKind, store: *mut StoreObj) -> Header {
        Header { kind, store, slot: usize::MAX, host_info: HostInfo { info: ptr::null_mut(), finalizer: None } }
    }
}

impl Drop for Header {
    fn drop(&mut self) {
        // The object is going away: this is the one time its host info is
        // released.
        if let (Some(finalize), false) = (self.host_info.finalizer, self.host_info.info.is_null()) {
            // SAFETY: the client registered this finalizer for this info.
            unsafe { finalize(self.host_info.info) };
        }
    }
}

/// An object type that embeds a [`Header`].
///
/// # Safety
/// `header_offset` must be the offset of the header within `Self`, and
/// [`destroy`] must know how to free a `Self` of the header's kind.
pub unsafe trait Object: Sized {
    /// Byte offset of the header within the object.
    fn header_offset() -> usize {
        0
    }
    fn header_mut(&mut self) -> &mut Header;
}

/// The objects registered with one store, indexed by slot so that adding
/// and removing are O(1) and nothing is hashed.
#[derive(Default)]
pub struct Registry {
    slots: Vec<*mut Header>,
    free: Vec<usize>,
}

impl Registry {
    fn add(&mut self, h: *mut Header) -> usize {
        match self.free.pop() {
            Some(i) => {
                self.slots[i] = h;
                i
            }
            None => {
                self.slots.push(h);
                self.slots.len() - 1
            }
        }
    }

    fn remove(&mut self, slot: usize, h: *mut Header) {
        if self.slots.get(slot) == Some(&h) {
            self.slots[slot] = ptr::null_mut();
            self.free.push(slot);
        }
    }

    /// Takes out the most recently registered object still present.
    pub fn pop(&mut self) -> Option<*mut Header> {
        while let Some(h) = self.slots.pop() {
            if !h.is_null() {
                return Some(h);
            }
        }
        self.free.clear();
        None
    }

    /// Number of registered objects.
    pub fn live(&self) -> usize {
        self.slots.iter().filter(|h| !h.is_null()).count()
    }
}

/// Boxes `obj`, registers it with the store its header names (if any) and
/// hands out the pointer.
///
/// # Safety
/// The header's store must be NULL or alive.
pub unsafe fn register<T: Object>(obj: T) -> *mut T {
    let p = Box::into_raw(Box::new(obj));
    let h: *mut Header = (*p).header_mut();
    let store = (*h).store;
    if !store.is_null() {
        (*h).slot = (*store).registry_mut().add(h);
    }
    p
}

/// Deletes an object on the client's request: takes it out of its store's
/// registry and frees it. NULL is ignored.
///
/// # Safety
/// `h` must be NULL or the header of a live object whose store is alive.
pub unsafe fn release(h: *mut Header) {
    if h.is_null() {
        return;
    }
    let store = (*h).store;
    if !store.is_null() {
        (*store).registry_mut().remove((*h).slot, h);
    }
    destroy(h);
}

/// Frees an object, whatever its kind, running its host-info finalizer.
///
/// # Safety
/// `h` must be the header of a live object, no longer registered.
pub unsafe fn destroy(h: *mut Header) {
    unsafe fn free<T: Object>(h: *mut Header) {
        drop(Box::from_raw(h.byte_sub(T::header_offset()).cast::<T>()));
    }
    match (*h).kind {
        ObjKind::Func | ObjKind::Global | ObjKind::Table | ObjKind::Memory => free::<ExternObj>(h),
        ObjKind::Instance => free::<InstanceObj>(h),
        ObjKind::Trap => free::<TrapObj>(h),
        ObjKind::Foreign => free::<ForeignObj>(h),
        ObjKind::Frame => free::<FrameObj>(h),
        ObjKind::Module => free::<ModuleSlot>(h),
    }
}

/// The header of a reference object given as any of its C pointer types.
///
/// # Safety
/// `p` must be NULL or point at an object that starts with a header.
pub unsafe fn header<'a, T>(p: *const T) -> Option<&'a mut Header> {
    p.cast_mut().cast::<Header>().as_mut()
}

/// Declares the `Object` impl of a type whose first field is `header`.
macro_rules! impl_object {
    ($($ty:ty),*) => {$(
        // SAFETY: the type is repr(C) with `header` first, and `destroy`
        // frees it by kind.
        unsafe impl $crate::object::Object for $ty {
            fn header_mut(&mut self) -> &mut $crate::object::Header {
                &mut self.header
            }
        }
    )*};
}
pub(crate) use impl_object;
