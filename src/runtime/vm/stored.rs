//! [`Stored`]: the one handle type behind [`Func`](crate::Func),
//! [`Memory`](crate::Memory), [`Table`](crate::Table),
//! [`Global`](crate::Global) and [`ExternRef`](crate::ExternRef).
//!
//! A handle is the id of the store that owns an object plus the object's
//! address. The address is only dereferenced by [`Stored::get`] and
//! [`Stored::get_mut`], which take that store and check its id: a store frees
//! its objects only when it is dropped, so a store that is still borrowed
//! proves the object alive, and the kind of borrow (`&` or `&mut`) is the
//! kind of access. Objects sit in boxes (in the store's lists or in their
//! instance), so their addresses do not change while the store grows.
//!
//! Handles are plain `Copy` values, as in wasmi's `Stored<Idx>`; they hold
//! an address instead of an arena index because compiled code reaches the
//! same objects through the same addresses (a funcref value *is* the address
//! of its `VMFuncRef`), so a handle converts to and from what wasm holds for
//! free.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ptr::NonNull;

use super::store::{StoreId, StoreOpaque};
use crate::environ::error::{Error, Result};

/// An object of type `T` owned by the store with id `store`.
pub(crate) struct Stored<T> {
    store: StoreId,
    ptr: NonNull<T>,
}

// SAFETY: a handle is an id and an address; sending or sharing it gives no
// access to the object. Access goes through `get`/`get_mut`, which need the
// owning store borrowed, on whichever thread holds the store: `StoreOpaque`
// is `Send` (it moves with everything it owns) but not `Sync`, so no two
// threads reach the same object at once through handles.
unsafe impl<T> Send for Stored<T> {}
// SAFETY: as for `Send`: `&Stored<T>` only lets a thread copy the id and the
// address.
unsafe impl<T> Sync for Stored<T> {}

impl<T> Stored<T> {
    /// A handle for `ptr` in store `store`.
    ///
    /// # Safety
    /// `ptr` must point at an object owned by the store with id `store`
    /// (directly or through one of its instances) that stays at this
    /// address until the store is dropped. (An instance's objects may go
    /// earlier, through `Instance::release`, whose contract forbids using
    /// their handles afterwards.)
    #[inline]
    pub(crate) unsafe fn new_unchecked(store: StoreId, ptr: NonNull<T>) -> Stored<T> {
        Stored { store, ptr }
    }

    /// Moves `value` into `list` (one of the store's lists of owned objects)
    /// and returns its handle.
    pub(crate) fn push(store: &mut StoreOpaque, value: T) -> Stored<T>
    where
        T: StoreOwned,
    {
        let id = store.id();
        let list = T::list(store);
        list.push(Box::new(value));
        let ptr = NonNull::from(&mut **list.last_mut().expect("just pushed"));
        // SAFETY: the box is owned by the store's list, which only drops its
        // boxes with the store; moving a box does not move its contents.
        unsafe { Stored::new_unchecked(id, ptr) }
    }

    /// The id of the owning store.
    #[inline]
    pub(crate) fn store_id(&self) -> StoreId {
        self.store
    }

    /// Whether the object belongs to `store`.
    #[inline]
    pub(crate) fn comes_from(&self, store: &StoreOpaque) -> bool {
        self.store == store.id()
    }

    /// Fails with [`Error::WrongStore`] unless the object belongs to `store`.
    #[inline]
    pub(crate) fn check(&self, store: &StoreOpaque) -> Result<()> {
        self.try_get(store).map(|_| ())
    }

    /// The object, or [`Error::WrongStore`] when `store` is not its store.
    #[inline]
    pub(crate) fn try_get<'a>(&self, store: &'a StoreOpaque) -> Result<&'a T> {
        if self.comes_from(store) {
            Ok(self.get(store))
        } else {
            Err(Error::WrongStore)
        }
    }

    /// The object. Panics when `store` is not its store (like wasmtime's
    /// accessors that have no error path).
    #[inline]
    pub(crate) fn get<'a>(&self, store: &'a StoreOpaque) -> &'a T {
        if !self.comes_from(store) {
            wrong_store();
        }
        // SAFETY: the store owns the object (checked above), keeps it at
        // this address until it is dropped, and is borrowed for `'a`.
        unsafe { self.ptr.as_ref() }
    }

    /// The object, mutably. Panics as [`get`](Self::get) does.
    #[inline]
    pub(crate) fn get_mut<'a>(&self, store: &'a mut StoreOpaque) -> &'a mut T {
        if !self.comes_from(store) {
            wrong_store();
        }
        // SAFETY: as in `get`; `&mut StoreOpaque` is exclusive access to
        // everything the store owns.
        unsafe { &mut *self.ptr.as_ptr() }
    }

    /// The object's address, as compiled code and VMContexts hold it.
    /// Nothing is checked: dereferencing it is the caller's business.
    #[inline]
    pub(crate) fn as_ptr(&self) -> *mut T {
        self.ptr.as_ptr()
    }

    /// As [`as_ptr`](Self::as_ptr), never null.
    #[inline]
    pub(crate) fn as_non_null(&self) -> NonNull<T> {
        self.ptr
    }
}

#[cold]
#[inline(never)]
fn wrong_store() -> ! {
    panic!("object used with a store it does not belong to")
}

/// The objects a store keeps in a list of boxes of their own.
pub(crate) trait StoreOwned: Sized {
    /// The store's list of objects of this type.
    fn list(store: &mut StoreOpaque) -> &mut Vec<Box<Self>>;
}

// Handles are `Copy` and compare by identity whatever `T` is, so these are
// written out instead of derived (a derive would require `T: Clone`, ...).
impl<T> Clone for Stored<T> {
    #[inline]
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Stored<T> {}
impl<T> PartialEq for Stored<T> {
    fn eq(&self, other: &Self) -> bool {
        self.store == other.store && self.ptr == other.ptr
    }
}
impl<T> Eq for Stored<T> {}
impl<T> Hash for Stored<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.store.hash(state);
        self.ptr.hash(state);
    }
}
impl<T> fmt::Debug for Stored<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}@{:p}", self.store, self.ptr)
    }
}
