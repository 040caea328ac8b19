//! The object model of the C API: what every object the library hands out
//! shares, and the one macro that declares a C object type.
//!
//! * Every object is boxed and put in a cell of the live-object table
//!   ([`crate::handle`]); the cell's address is the C pointer. Every entry
//!   point finds its objects with [`get`] / [`get_mut`], which answer
//!   `None` for NULL, for a pointer the library never handed out, for a
//!   deleted object and for an object of another kind, without reading the
//!   pointer as an object. So NULL and such pointers are refused alike.
//! * Objects made in a store ([`Header`]: functions, globals, tables,
//!   memories, instances, traps, foreign objects, frames, modules) are also
//!   listed in that store's [`Registry`], and deleting the store destroys
//!   whatever the client did not delete itself.
//! * A C type is an opaque struct with a [`Handle`] impl that names the
//!   Rust type behind it and the kinds of cell it may point at:
//!   `wasm_extern_t` accepts the four entity kinds, `wasm_ref_t` every
//!   reference kind (whose objects all start with a [`Header`]).
//! * [`c_object!`] declares a C type and generates its `_delete`, `_copy`,
//!   `_same`, host-info functions, `_as_ref` / `wasm_ref_as_` conversions
//!   and casts to its supertype, from the Rust type's [`Object`] impl.
//!
//! As in WAMR, `wasm_X_as_ref` and `wasm_ref_as_X` make new objects (see
//! `capi/README.md`): each is its own handle on the same entity, with its
//! own host info, which the caller may delete in any order.

use std::cell::RefCell;
use std::ffi::c_void;
use std::ptr::{self, NonNull};
use std::rc::Rc;

use crate::c_api::store::StoreObj;
use crate::handle::{self, Cell, Kind, VTable};

/// A host-info finalizer, as C passes it.
pub type Finalizer = Option<unsafe extern "C" fn(*mut c_void)>;

/// Data the client attached to an object, and how to release it. The
/// finalizer runs when the info is dropped with its object.
pub struct HostInfo {
    pub info: *mut c_void,
    pub finalizer: Finalizer,
}

impl HostInfo {
    pub const NONE: HostInfo = HostInfo { info: ptr::null_mut(), finalizer: None };
}

impl Drop for HostInfo {
    fn drop(&mut self) {
        if let (Some(finalize), false) = (self.finalizer, self.info.is_null()) {
            // SAFETY: the client registered this finalizer for this info.
            unsafe { finalize(self.info) };
        }
    }
}

/// Host info shared by several objects (the handles of one foreign
/// object); its finalizer runs when the last of them is deleted.
pub type SharedHostInfo = Rc<RefCell<HostInfo>>;

/// The first field of every object that belongs to a store.
#[repr(C)]
pub struct Header {
    /// The owning store, NULL for objects that belong to none (shared
    /// modules).
    pub store: *mut StoreObj,
    /// Index in the store's registry, while registered.
    slot: usize,
    pub host_info: HostInfo,
}

impl Header {
    /// A header for a new object of `store`, without host info.
    pub fn new(store: *mut StoreObj) -> Header {
        Header { store, slot: usize::MAX, host_info: HostInfo::NONE }
    }
}

/// A Rust type behind C handles.
///
/// # Safety
/// [`Object::kind`] must only answer kinds whose [`Handle`]s name `Self`
/// (or [`Header`], which `Self` must then start with).
pub unsafe trait Object: Sized + 'static {
    /// The kind of cell this object goes in.
    fn kind(&self) -> Kind;

    /// The header of an object that belongs to a store.
    fn header(&mut self) -> Option<&mut Header> {
        None
    }

    /// What a client may read through the handle (see [`crate::handle`]).
    fn public(&self) -> *const c_void {
        ptr::null()
    }

    /// A new object standing for the same thing, without host info
    /// (`_copy`, `_as_ref`, `wasm_ref_as_`); `None` when there is none.
    fn duplicate(&self) -> Option<Self> {
        None
    }

    /// Whether two objects of this type stand for the same thing.
    fn same(&self, other: &Self) -> bool {
        ptr::eq(self, other)
    }

    /// Runs `f` on the host info that `wasm_X_get_host_info` and friends
    /// use: the header's, unless the type shares it between handles.
    fn with_host_info<R>(&mut self, f: impl FnOnce(&mut HostInfo) -> R) -> Option<R> {
        self.header().map(|h| f(&mut h.host_info))
    }

    /// Frees a boxed object that is no longer in the table.
    ///
    /// # Safety
    /// `this` must come from `Box::into_raw` and not be used afterwards.
    unsafe fn destroy(this: *mut Self) {
        // SAFETY: as the caller promises.
        drop(unsafe { Box::from_raw(this) })
    }
}

// SAFETY: only wasm_ref_t names `Header`, and every reference kind's type
// starts with its header (checked where those types implement `Object`).
unsafe impl Object for Header {
    fn kind(&self) -> Kind {
        unreachable!("a bare header is never an object of its own")
    }
    fn header(&mut self) -> Option<&mut Header> {
        Some(self)
    }
}

/// A C handle type: the opaque struct a C pointer points at, the Rust type
/// behind it, and which kinds of cell it may name.
///
/// # Safety
/// Every cell whose kind is in `KINDS` must hold a `Self::Obj`, or, when
/// `Obj` is [`Header`], an object that starts with its header.
pub unsafe trait Handle: Sized {
    type Obj: Object;
    /// A set of [`Kind::bit`]s.
    const KINDS: u32;
    /// The C name, for messages.
    const NAME: &'static str;
}

/// The ways C pointers reach us: typed references (the C types are
/// zero-sized, so any pointer makes a valid reference to one) or raw
/// pointers.
pub trait Ptr<C> {
    fn addr(&self) -> usize;
}

impl<C> Ptr<C> for Option<&C> {
    fn addr(&self) -> usize {
        self.map_or(0, |p| ptr::from_ref(p) as usize)
    }
}

impl<C> Ptr<C> for Option<&mut C> {
    fn addr(&self) -> usize {
        self.as_ref().map_or(0, |p| ptr::from_ref::<C>(p) as usize)
    }
}

impl<C> Ptr<C> for *const C {
    fn addr(&self) -> usize {
        *self as usize
    }
}

impl<C> Ptr<C> for *mut C {
    fn addr(&self) -> usize {
        *self as usize
    }
}

/// The object of a live handle of type `C` at `p`, or `None`. A pointer
/// that is neither NULL nor a live object of any kind is noted on stderr
/// (once per process), unless the object was freed for the client (a
/// retired cell: see [`handle::Miss::Retired`]).
#[inline(always)]
fn find<C: Handle>(p: usize) -> Option<NonNull<C::Obj>> {
    match handle::live(p, C::KINDS) {
        Ok(obj) => Some(obj.cast()),
        Err(handle::Miss::NotLive) if p != 0 => {
            handle::refused(C::NAME);
            None
        }
        Err(_) => None,
    }
}

/// [`get`] for a handle the library stored itself (an exec env's
/// instance, an instance's module): one that is gone is not the client's
/// mistake, so it is refused without a word.
///
/// # Safety
/// As for [`get`].
#[inline(always)]
pub unsafe fn get_stored<'a, C: Handle>(p: usize) -> Option<&'a C::Obj> {
    // SAFETY: as in `get`.
    handle::live(p, C::KINDS).ok().map(|obj| unsafe { obj.cast::<C::Obj>().as_ref() })
}

/// The object behind a C pointer of type `C`: `None` for NULL, for a
/// pointer the library never handed out, for a deleted object and for an
/// object of another kind.
///
/// # Safety
/// The object must not be deleted while the reference is in use, neither
/// by another thread nor by a callback this thread runs meanwhile.
#[inline(always)]
pub unsafe fn get<'a, C: Handle>(p: impl Ptr<C>) -> Option<&'a C::Obj> {
    // SAFETY: a live cell of `C`'s kinds holds a `C::Obj` (`Handle`), alive
    // for as long as the caller promises.
    find::<C>(p.addr()).map(|obj| unsafe { obj.as_ref() })
}

/// [`get`], for changing the object.
///
/// # Safety
/// As for [`get`], and no other reference to the object may be in use.
#[inline(always)]
pub unsafe fn get_mut<'a, C: Handle>(p: impl Ptr<C>) -> Option<&'a mut C::Obj> {
    // SAFETY: as in `get`; the caller rules out other references.
    find::<C>(p.addr()).map(|mut obj| unsafe { obj.as_mut() })
}

/// The table of operations of `T`.
fn vtable<T: Object>() -> &'static VTable {
    unsafe fn destroy<T: Object>(obj: *mut (), cell: usize) {
        // SAFETY: the cell held this boxed `T`, and is empty now.
        unsafe {
            let this = obj.cast::<T>();
            if let Some(h) = (*this).header()
                && let Some(store) = h.store.as_mut()
            {
                store.registry.remove(h.slot, cell);
            }
            T::destroy(this)
        }
    }
    unsafe fn duplicate<T: Object>(obj: *const ()) -> *mut Cell {
        // SAFETY: `obj` is the live `T` of a cell.
        match unsafe { &*obj.cast::<T>() }.duplicate() {
            Some(copy) => register(copy),
            None => ptr::null_mut(),
        }
    }
    unsafe fn same<T: Object>(a: *const (), b: *const ()) -> bool {
        // SAFETY: both are live `T`s of cells of the same kind.
        unsafe { (*a.cast::<T>()).same(&*b.cast::<T>()) }
    }
    const { &VTable { destroy: destroy::<T>, duplicate: duplicate::<T>, same: same::<T> } }
}

/// Puts an object in the table (and in its store's registry) and returns
/// its handle; NULL only when the table is full (the object is dropped).
pub fn register<T: Object>(obj: T) -> *mut Cell {
    let (kind, public) = (obj.kind(), obj.public());
    let raw = Box::into_raw(Box::new(obj));
    // SAFETY: `raw` is a fresh box.
    let obj = unsafe { NonNull::new_unchecked(raw) };
    let Some(cell) = handle::alloc(kind, obj.cast(), vtable::<T>(), public) else {
        // SAFETY: never shared: the box is still ours.
        unsafe { T::destroy(raw) };
        return ptr::null_mut();
    };
    // SAFETY: the box is ours until this function returns; a store named
    // in a header is alive while its objects are made.
    unsafe {
        if let Some(h) = (*raw).header()
            && let Some(store) = h.store.as_mut()
        {
            h.slot = store.registry.add(cell.as_ptr() as usize);
        }
    }
    cell.as_ptr()
}

/// [`register`], typed as the C handle `C`.
pub fn new<C: Handle>(obj: C::Obj) -> *mut C {
    register(obj).cast()
}

/// Deletes the object at `p` if it is a live `C`; anything else is ignored
/// (noted once, as in [`get`], unless it was freed for the client).
///
/// # Safety
/// No other thread may use the object meanwhile.
pub unsafe fn delete<C: Handle>(p: impl Ptr<C>) {
    // SAFETY: as the caller promises.
    unsafe { free::<C>(p.addr(), false) }
}

/// Deletes the object at `p` for the client, by something else than its
/// own destroy call (its owner, its store, the end of the runtime): the
/// client may still name it afterwards, in the orders WAMR accepts, and is
/// then refused without a word.
///
/// # Safety
/// As for [`delete`].
pub unsafe fn retire<C: Handle>(p: impl Ptr<C>) {
    // SAFETY: as the caller promises.
    unsafe { free::<C>(p.addr(), true) }
}

/// [`delete`] or [`retire`].
///
/// # Safety
/// As for [`delete`].
unsafe fn free<C: Handle>(addr: usize, retired: bool) {
    match handle::take(addr, C::KINDS, retired) {
        // SAFETY: the cell held this object and has let go of it.
        Some((obj, vtable)) => unsafe { (vtable.destroy)(obj.as_ptr(), addr) },
        None if !retired && addr != 0 && handle::live(addr, handle::ANY_KIND) == Err(handle::Miss::NotLive) => {
            handle::refused(C::NAME)
        }
        None => {}
    }
}

/// A new object for the same thing as the live `C` at `p` (`_copy`,
/// `_as_ref`, `wasm_ref_as_`), typed as the C handle `D`; NULL otherwise.
///
/// # Safety
/// As for [`get`].
pub unsafe fn duplicate<C: Handle, D>(p: impl Ptr<C>) -> *mut D {
    let addr = p.addr();
    if find::<C>(addr).is_none() {
        return ptr::null_mut();
    }
    match handle::cell_at(addr).and_then(Cell::vtable) {
        // SAFETY: the cell is live and holds the object its vtable is for.
        Some(vtable) => unsafe { (vtable.duplicate)(handle::object_of(addr)) }.cast(),
        None => ptr::null_mut(),
    }
}

/// Whether two handles of type `C` stand for the same thing. As in WAMR,
/// NULL is the same only as NULL; a pointer that is not a live `C` (a
/// zero-filled struct a binding made) only as itself.
///
/// # Safety
/// As for [`get`].
pub unsafe fn same<C: Handle>(a: impl Ptr<C>, b: impl Ptr<C>) -> bool {
    let (a, b) = (a.addr(), b.addr());
    match (find::<C>(a), find::<C>(b)) {
        (None, None) => a == b,
        (Some(x), Some(y)) => {
            let (ca, cb) = (handle::cell_at(a), handle::cell_at(b));
            match (ca, cb) {
                (Some(ca), Some(cb)) if ca.kind() == cb.kind() => match ca.vtable() {
                    // SAFETY: both cells are live and of one kind, so of
                    // the type this vtable is for.
                    Some(vt) => unsafe { (vt.same)(x.as_ptr().cast(), y.as_ptr().cast()) },
                    None => false,
                },
                _ => false,
            }
        }
        _ => false,
    }
}

/// The pointer `p`, typed as `D`, if it is a live `C`; NULL otherwise: a
/// cast between handle types that checks the kind.
///
/// # Safety
/// As for [`get`].
pub unsafe fn cast<C: Handle, D>(p: impl Ptr<C>) -> *mut D {
    let addr = p.addr();
    match find::<C>(addr) {
        Some(_) => addr as *mut D,
        None => ptr::null_mut(),
    }
}

/// Views a zero-sized C handle type as another (a cast between
/// `wasm_func_t` and `wasm_extern_t`, say).
pub fn recast<A, B>(p: &mut A) -> &mut B {
    const { assert!(std::mem::size_of::<A>() == 0 && std::mem::size_of::<B>() == 0) };
    // SAFETY: both types are zero-sized with alignment 1, so any non-null
    // pointer is a valid reference to either.
    unsafe { &mut *ptr::from_mut(p).cast::<B>() }
}

/// [`recast`] for shared references.
pub fn recast_ref<A, B>(p: &A) -> &B {
    const { assert!(std::mem::size_of::<A>() == 0 && std::mem::size_of::<B>() == 0) };
    // SAFETY: as in `recast`.
    unsafe { &*ptr::from_ref(p).cast::<B>() }
}

/// An owned handle held by another object (the content type of a global
/// type, say): deleted with its owner. The client may be given it as a
/// borrowed pointer; if it deletes it all the same, the owner's delete
/// does nothing. The owner's delete retires the handle (see [`retire`]).
pub struct Own<C: Handle>(NonNull<C>);

impl<C: Handle> Own<C> {
    /// Takes over the live handle `p`; `None` for anything else.
    ///
    /// # Safety
    /// The caller must own `p` (no one else deletes it).
    pub unsafe fn adopt(p: impl Ptr<C>) -> Option<Own<C>> {
        let addr = p.addr();
        find::<C>(addr)?;
        NonNull::new(addr as *mut C).map(Own)
    }

    /// Registers a new object and holds its handle.
    pub fn new(obj: C::Obj) -> Option<Own<C>> {
        NonNull::new(new::<C>(obj)).map(Own)
    }

    pub fn as_ptr(&self) -> *mut C {
        self.0.as_ptr()
    }

    /// The object, if the client has not deleted it.
    pub fn get(&self) -> Option<&C::Obj> {
        // SAFETY: owned handles are deleted only by their owner (or, against
        // the rules, by a client, which `get` detects).
        unsafe { get::<C>(self.as_ptr().cast_const()) }
    }

    /// Gives up ownership of the handle to the caller.
    pub fn into_raw(self) -> *mut C {
        let p = self.as_ptr();
        std::mem::forget(self);
        p
    }
}

impl<C: Handle> Drop for Own<C> {
    fn drop(&mut self) {
        // SAFETY: an owned handle is used by its owner's thread only.
        unsafe { retire::<C>(self.as_ptr()) }
    }
}

/// The objects registered with one store, by cell address, indexed by slot
/// so that adding and removing are O(1) and nothing is hashed.
#[derive(Default)]
pub struct Registry {
    slots: Vec<usize>,
    free: Vec<usize>,
}

impl Registry {
    fn add(&mut self, cell: usize) -> usize {
        match self.free.pop() {
            Some(i) => {
                self.slots[i] = cell;
                i
            }
            None => {
                self.slots.push(cell);
                self.slots.len() - 1
            }
        }
    }

    fn remove(&mut self, slot: usize, cell: usize) {
        if self.slots.get(slot) == Some(&cell) {
            self.slots[slot] = 0;
            self.free.push(slot);
        }
    }

    /// Takes out the most recently registered object still present.
    pub fn pop(&mut self) -> Option<usize> {
        while let Some(cell) = self.slots.pop() {
            if cell != 0 {
                return Some(cell);
            }
        }
        self.free.clear();
        None
    }

    /// Number of registered objects.
    pub fn live(&self) -> usize {
        self.slots.iter().filter(|&&c| c != 0).count()
    }
}

/// Moves an object into `store`'s registry (out of its own store's, if it
/// had one): it is freed with `store` from now on. Nothing happens for an
/// object already in `store`.
///
/// # Safety
/// `h` must be the header of the live object whose handle is `cell`;
/// `store` and the object's store must be NULL or live.
pub unsafe fn join(h: &mut Header, cell: usize, store: *mut StoreObj) {
    if h.store == store || store.is_null() {
        return;
    }
    // SAFETY: as the caller promises.
    unsafe {
        if let Some(old) = h.store.as_mut() {
            old.registry.remove(h.slot, cell);
        }
        h.store = store;
        h.slot = (*store).registry.add(cell);
    }
}

/// Destroys the object of a cell popped from a store's registry, if it is
/// still live.
///
/// # Safety
/// The object's store must be alive.
pub unsafe fn destroy_popped(cell: usize) {
    if let Some((obj, vtable)) = handle::take(cell, u32::MAX, true) {
        // SAFETY: the cell held this object and has let go of it.
        unsafe { (vtable.destroy)(obj.as_ptr(), cell) }
    }
}

/// Declares a C object type and generates its functions.
///
/// ```text
/// c_object! {
///     /// Doc of the C type.
///     wasm_func_t: ExternObj [Func];              // the Rust type and cell kinds
///     delete: wasm_func_delete;                   // each line optional,
///     copy: wasm_func_copy;                       // in this order
///     same: wasm_func_same;
///     host_info: wasm_func_get_host_info, wasm_func_set_host_info,
///         wasm_func_set_host_info_with_finalizer;
///     as_ref: wasm_func_as_ref, wasm_func_as_ref_const, wasm_ref_as_func, wasm_ref_as_func_const;
///     upcast wasm_extern_t: wasm_func_as_extern, wasm_func_as_extern_const,
///         wasm_extern_as_func, wasm_extern_as_func_const;
/// }
/// ```
///
/// A type both headers name (`wasm_ref_t`, in the shared `wasm_val_t`) is
/// declared once at the crate root and given here as `crate::wasm_ref_t`;
/// the macro then declares only its functions.
///
/// `copy`, `as_ref` and `wasm_ref_as_` come from [`Object::duplicate`],
/// `same` from [`Object::same`], host info from [`Object::with_host_info`];
/// `upcast` casts to a supertype (the pointer is kept, unchecked, as in
/// WAMR) and back (the kind checked).
macro_rules! c_object {
    (@declare [] $(#[$doc:meta])* $c:ident) => {
        $(#[$doc])*
        pub struct $c {
            _private: [u8; 0],
        }
    };
    (@declare [declared] $(#[$doc:meta])* $c:ident) => {};
    (crate::$c:ident: $($rest:tt)*) => {
        $crate::object::c_object!(@declared $c: $($rest)*);
    };
    (
        $(@$declared:ident)?
        $(#[$doc:meta])*
        $c:ident: $obj:ty [$($kind:ident)|+];
        $(delete: $delete:ident;)?
        $(copy: $copy:ident;)?
        $(same: $same:ident;)?
        $(host_info: $get:ident, $set:ident, $set_with:ident;)?
        $(as_ref: $as_ref:ident, $as_ref_const:ident, $ref_as:ident, $ref_as_const:ident;)?
        $(upcast $sup:ident: $up:ident, $up_const:ident, $down:ident, $down_const:ident;)?
    ) => {
        $crate::object::c_object!(@declare [$($declared)?] $(#[$doc])* $c);

        // SAFETY: the kinds listed are those whose objects are `$obj`s (see
        // each type's `Object::kind`).
        unsafe impl $crate::object::Handle for $c {
            type Obj = $obj;
            const KINDS: u32 = 0 $(| $crate::handle::Kind::$kind.bit())+;
            const NAME: &'static str = stringify!($c);
        }

        $(
            #[doc = concat!(" Deletes a `", stringify!($c), "`.")]
            ///
            /// # Safety
            /// `p` may be NULL or any pointer: anything but a live object
            /// of this type is ignored, so deleting twice is harmless. No
            /// other thread may use the object meanwhile.
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn $delete(p: Option<&mut $c>) {
                // SAFETY: the client keeps the threading rule above.
                unsafe { $crate::object::delete(p) }
            }
        )?

        $(
            #[doc = concat!(" A new `", stringify!($c), "` for the same thing, without host")]
            /// info; NULL for NULL.
            ///
            /// # Safety
            /// `p` may be NULL or any pointer: anything but a live object
            /// of this type counts as NULL. No other thread may delete the
            /// object meanwhile.
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn $copy(p: Option<&$c>) -> *mut $c {
                // SAFETY: the client keeps the threading rule above.
                unsafe { $crate::object::duplicate::<$c, $c>(p) }
            }
        )?

        $(
            #[doc = concat!(" Whether two `", stringify!($c), "`s stand for the same thing")]
            /// (two NULLs do).
            ///
            /// # Safety
            /// `a` and `b` may be NULL or any pointers: anything but a live
            /// object of this type counts as NULL. No other thread may
            /// delete them meanwhile.
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn $same(a: Option<&$c>, b: Option<&$c>) -> bool {
                // SAFETY: the client keeps the threading rule above.
                unsafe { $crate::object::same(a, b) }
            }
        )?

        $(
            /// The host info set on this object (NULL if none).
            ///
            /// # Safety
            /// `p` may be NULL or any pointer: anything but a live object
            /// of this type counts as NULL. No other thread may use the
            /// object meanwhile.
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn $get(p: Option<&$c>) -> *mut ::std::ffi::c_void {
                // SAFETY: the client keeps the threading rule above; the
                // object is changed by no one else during the call.
                let obj = unsafe { $crate::object::get_mut::<$c>(p) };
                obj.and_then(|o| $crate::object::Object::with_host_info(o, |h| h.info))
                    .unwrap_or(::std::ptr::null_mut())
            }

            /// Attaches host info without a finalizer, replacing (and not
            /// finalizing) what was there, as WAMR does.
            ///
            /// # Safety
            /// As for the getter.
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn $set(p: Option<&mut $c>, info: *mut ::std::ffi::c_void) {
                // SAFETY: as for the getter.
                unsafe { $set_with(p, info, None) }
            }

            /// Attaches host info; `finalizer(info)` runs once, when the
            /// object is deleted (by the client or with its store). What
            /// was there before is replaced without being finalized.
            ///
            /// # Safety
            /// As for the getter; `finalizer` must be NULL or a function
            /// that may be called with `info`.
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn $set_with(
                p: Option<&mut $c>,
                info: *mut ::std::ffi::c_void,
                finalizer: Option<unsafe extern "C" fn(*mut ::std::ffi::c_void)>,
            ) {
                // SAFETY: as for the getter.
                if let Some(obj) = unsafe { $crate::object::get_mut::<$c>(p) } {
                    $crate::object::Object::with_host_info(obj, |h| {
                        // The previous finalizer must not run: the info is
                        // replaced, not released.
                        ::std::mem::forget(::std::mem::replace(
                            h,
                            $crate::object::HostInfo { info, finalizer },
                        ));
                    });
                }
            }
        )?

        $(
            #[doc = concat!(" A new reference object for this `", stringify!($c), "`, which")]
            /// the caller may delete (with `wasm_ref_delete`) independently of
            /// it; NULL for NULL.
            ///
            /// # Safety
            /// `p` may be NULL or any pointer: anything but a live object
            /// of this type counts as NULL. No other thread may delete the
            /// object meanwhile.
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn $as_ref(p: Option<&mut $c>) -> *mut $crate::wasm_ref_t {
                // SAFETY: the client keeps the threading rule above.
                unsafe { $crate::object::duplicate::<$c, _>(p) }
            }

            #[doc = concat!(" A new reference object for this `", stringify!($c), "`")]
            #[doc = concat!(" (see `", stringify!($as_ref), "`).")]
            ///
            /// # Safety
            #[doc = concat!(" As for `", stringify!($as_ref), "`.")]
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn $as_ref_const(p: Option<&$c>) -> *const $crate::wasm_ref_t {
                // SAFETY: the client keeps the threading rule above.
                unsafe { $crate::object::duplicate::<$c, $crate::wasm_ref_t>(p) }.cast_const()
            }

            #[doc = concat!(" A new `", stringify!($c), "` for the object the reference")]
            /// names, which the caller may delete independently of the
            /// reference; NULL if it names something else.
            ///
            /// # Safety
            /// `r` may be NULL or any pointer: anything but a live
            /// reference counts as NULL. No other thread may delete it
            /// meanwhile.
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn $ref_as(r: Option<&mut $crate::wasm_ref_t>) -> *mut $c {
                let r = r.map(|r| $crate::object::recast::<_, $c>(r));
                // SAFETY: the client keeps the threading rule above.
                unsafe { $crate::object::duplicate::<$c, $c>(r) }
            }

            #[doc = concat!(" A new `", stringify!($c), "` for the object the reference")]
            #[doc = concat!(" names (see `", stringify!($ref_as), "`).")]
            ///
            /// # Safety
            #[doc = concat!(" As for `", stringify!($ref_as), "`.")]
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn $ref_as_const(r: Option<&$crate::wasm_ref_t>) -> *const $c {
                let r = r.map(|r| $crate::object::recast_ref::<_, $c>(r));
                // SAFETY: the client keeps the threading rule above.
                unsafe { $crate::object::duplicate::<$c, $c>(r) }.cast_const()
            }
        )?

        $(
            #[doc = concat!(" The same pointer, as a `", stringify!($sup), "`: a plain cast, as")]
            /// in WAMR, whatever it points at (every use checks it).
            ///
            /// # Safety
            /// `p` may be NULL or any pointer; it is not read.
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn $up(p: Option<&mut $c>) -> *mut $sup {
                $crate::object::Ptr::<$c>::addr(&p) as *mut $sup
            }

            #[doc = concat!(" The same pointer, as a `", stringify!($sup), "` (see `", stringify!($up), "`).")]
            ///
            /// # Safety
            #[doc = concat!(" As for `", stringify!($up), "`.")]
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn $up_const(p: Option<&$c>) -> *const $sup {
                $crate::object::Ptr::<$c>::addr(&p) as *const $sup
            }

            #[doc = concat!(" The same object as a `", stringify!($c), "` (a cast) if it")]
            /// is one, else NULL.
            ///
            /// # Safety
            /// `p` may be NULL or any pointer: anything but a live object
            /// gives NULL. No other thread may delete it meanwhile.
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn $down(p: Option<&mut $sup>) -> *mut $c {
                // SAFETY: the client keeps the threading rule above.
                unsafe { $crate::object::cast::<$c, $c>(p.map($crate::object::recast::<_, $c>)) }
            }

            #[doc = concat!(" The same object as a `", stringify!($c), "` (a cast) if it")]
            /// is one, else NULL.
            ///
            /// # Safety
            #[doc = concat!(" As for `", stringify!($down), "`.")]
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn $down_const(p: Option<&$sup>) -> *const $c {
                // SAFETY: the client keeps the threading rule above.
                unsafe { $crate::object::cast::<$c, $c>(p.map($crate::object::recast_ref::<_, $c>)) }
            }
        )?
    };
}
pub(crate) use c_object;
