//! GC references (`anyref` and its subtypes: i31s, structs, arrays, and
//! host data made internal) as `wasm_ref_t`s.
//!
//! wasm.h predates GC: its references are functions and host data. Here a
//! GC reference that comes out to C (a call's result, a global's or a
//! table's value, a callback's argument) becomes a new reference object,
//! owned by the receiver and by its store (which deletes it if the
//! receiver does not). The object holds a *pinned* root, so the collector
//! keeps the referent alive, and follows it when it moves, until the
//! reference is deleted. Passed back where the type is in the `any`
//! hierarchy (`anyref`, `eqref`, `structref`, a concrete struct type, ...),
//! wasm sees that same object.
//!
//! * `wasm_ref_copy` pins the referent once more: copy and original may be
//!   deleted in either order.
//! * `wasm_ref_same` is `ref.eq`: two reference objects are the same when
//!   they name one object (or one i31 value, or one host datum), however
//!   many handles were made for it.
//! * A value's kind byte is `WASM_EXTERNREF`, for which WAMR's header
//!   also has the name `WASM_ANYREF`: the value's type says which of the
//!   two hierarchies a pointer belongs to.
//!
//! What such a reference holds is read and changed through the
//! `cranewasm_ref_*`, `cranewasm_struct_*` and `cranewasm_array_*`
//! extensions ([`crate::ext::gc_refs`]).

use std::ptr;

use cranewasm::{AnyRef, AsContext};

use crate::c_api::store::{self, StoreObj};
use crate::handle::Kind;
use crate::object::{self, Handle, Header, Object};
use crate::*;

/// What a reference object holding a GC reference is.
#[repr(C)]
pub struct AnyRefObj {
    header: Header,
    /// Pinned ([`AnyRef::pin`]) for as long as this object lives.
    pub(crate) value: AnyRef,
}

const _: () = assert!(std::mem::offset_of!(AnyRefObj, header) == 0);

// SAFETY: GC reference cells hold `AnyRefObj`s, which start with their
// header (and which `wasm_ref_t` names as reference kinds).
unsafe impl Object for AnyRefObj {
    fn kind(&self) -> Kind {
        Kind::AnyRef
    }
    fn header(&mut self) -> Option<&mut Header> {
        Some(&mut self.header)
    }
    fn duplicate(&self) -> Option<AnyRefObj> {
        let s = self.header.store;
        // SAFETY: the store of a live object is live, and not borrowed by
        // the caller (a `wasm_ref_copy`).
        let value = self.value.pin(unsafe { store::core(s) }).ok()?;
        Some(AnyRefObj { header: Header::new(s), value })
    }
    fn same(&self, other: &AnyRefObj) -> bool {
        // SAFETY: as in `duplicate`.
        let core = unsafe { store::core(self.header.store) };
        self.value.ref_eq(&*core, &other.value).unwrap_or(false)
    }
    unsafe fn destroy(this: *mut AnyRefObj) {
        // SAFETY: a box of ours, out of the table (caller); its store is
        // still alive (a store destroys its objects before itself).
        let obj = unsafe { Box::from_raw(this) };
        // SAFETY: as just said.
        if let Some(s) = unsafe { obj.header.store.as_mut() } {
            obj.value.unpin(&s.store);
        }
    }
}

/// The handle type of GC reference cells: to C they are `wasm_ref_t`s;
/// this names them alone, for looking one up with its Rust type.
pub(crate) struct GcRefCell {
    _private: [u8; 0],
}

// SAFETY: `AnyRef` cells hold `AnyRefObj`s.
unsafe impl Handle for GcRefCell {
    type Obj = AnyRefObj;
    const KINDS: u32 = Kind::AnyRef.bit();
    const NAME: &'static str = "wasm_ref_t";
}

/// A new reference object of `store` for `value`, pinned; NULL (logged)
/// when `value`'s handle is no longer valid.
///
/// # Safety
/// `store` must be live and `cx` a context of its core store.
pub unsafe fn new_ref(store: *mut StoreObj, cx: impl AsContext, value: AnyRef) -> *mut wasm_ref_t {
    match value.pin(cx) {
        Ok(value) => object::new::<GcRefCell>(AnyRefObj { header: Header::new(store), value }).cast(),
        Err(e) => {
            log(format_args!("a GC reference cannot be handed out: {e}"));
            ptr::null_mut()
        }
    }
}

/// The GC reference of a reference object `r`, for a value of the `any`
/// hierarchy: `None` for NULL, an error for any other kind of reference
/// (its store is checked where the value is used, as for every value).
///
/// # Safety
/// As for [`object::get`].
pub unsafe fn value_of(r: *const wasm_ref_t) -> Result<Option<AnyRef>, String> {
    if r.is_null() {
        return Ok(None);
    }
    // SAFETY: as the caller promises.
    match unsafe { object::get::<GcRefCell>(r.cast::<GcRefCell>()) } {
        Some(obj) => Ok(Some(obj.value)),
        None => Err("an anyref value must be NULL or a GC reference (a wasm_ref_t that wasm or cranewasm_*_new gave)"
            .to_string()),
    }
}

/// The reference object `r` if it is a live GC reference.
///
/// # Safety
/// As for [`object::get`].
pub unsafe fn get<'a>(r: *const wasm_ref_t) -> Option<&'a AnyRefObj> {
    // SAFETY: as the caller promises.
    unsafe { object::get::<GcRefCell>(r.cast::<GcRefCell>()) }
}

/// Whether `r` is a live GC reference (so that a funcref position can
/// tell a struct of a concrete type from a function, see
/// [`crate::c_api::val::to_core`]).
///
/// # Safety
/// As for [`object::get`].
pub unsafe fn is_gc_ref(r: *const wasm_ref_t) -> bool {
    // SAFETY: as the caller promises.
    unsafe { get(r) }.is_some()
}

impl AnyRefObj {
    /// The store the reference belongs to.
    pub fn store(&self) -> *mut StoreObj {
        self.header.store
    }
}
