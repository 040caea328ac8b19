//! Wasm exceptions thrown by host callbacks: the tags a binding can name
//! (`cranewasm_tag_t`: an instance's exported tag, or the tag of an
//! uncaught exception), and a trap that stands for a new exception of a
//! tag with a payload. A `wasm_func_callback_t` that returns such a trap
//! throws the exception into its wasm caller, where a `try_table` (or a
//! legacy `try`) may catch it; one no handler catches comes out of the
//! outer `wasm_func_call` as any uncaught exception does (its values by
//! `cranewasm_trap_exception_payload`). A callback that returns the trap
//! of an uncaught exception it received from a nested call rethrows that
//! same exception.
//!
//! wasm-c-api has no tags (`wasm_instance_exports` leaves them out, and
//! modules that import one cannot be instantiated), so these are the only
//! way to reach them. An exception a host throws lives as long as its
//! store, as in the Rust API (`cranewasm::Exn::new`).

use cranewasm::{AsContext, Caller, Error, Exn, Extern, FuncType, Tag, TrapError, ValType};

use crate::c_api::instance::wasm_instance_t;
use crate::c_api::store::{self, StoreData, StoreObj};
use crate::c_api::trap::{self as traps, wasm_trap_t};
use crate::c_api::types::{ExternTypeObj, wasm_functype_t};
use crate::c_api::val::{self, wasm_val_t};
use crate::c_api::vec::{wasm_name_t, wasm_val_vec_t};
use crate::core::kinds;
use crate::handle::Kind;
use crate::object::{self, Header, Object, c_object, get};
use crate::*;

/// What a `cranewasm_tag_t *` points at.
#[repr(C)]
pub struct TagObj {
    header: Header,
    tag: Tag,
}

const _: () = assert!(std::mem::offset_of!(TagObj, header) == 0);

// SAFETY: tag cells hold `TagObj`s, which start with their header.
unsafe impl Object for TagObj {
    fn kind(&self) -> Kind {
        Kind::Tag
    }
    fn header(&mut self) -> Option<&mut Header> {
        Some(&mut self.header)
    }
    fn duplicate(&self) -> Option<TagObj> {
        Some(TagObj { header: Header::new(self.header.store), tag: self.tag })
    }
    fn same(&self, other: &TagObj) -> bool {
        self.tag == other.tag
    }
}

c_object! {
    /// cranewasm extension: an exception tag of a store. Two handles are
    /// the same tag (`cranewasm_tag_same`) only if they stand for one tag
    /// object, whatever their types.
    cranewasm_tag_t: TagObj [Tag];
    delete: cranewasm_tag_delete;
    copy: cranewasm_tag_copy;
    same: cranewasm_tag_same;
}

/// cranewasm extension: the tag the instance exports as `name` (a
/// trailing NUL, as `wasm_name_new_from_string_nt` adds, is not part of
/// the name), as a new handle for the caller to delete; NULL when it
/// exports no tag of that name, or for anything but a live instance.
///
/// # Safety
/// `instance` may be NULL or any pointer; `name` must be NULL or a valid
/// byte vector. The store must not be used by another thread meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_instance_export_tag(
    instance: Option<&wasm_instance_t>,
    name: Option<&wasm_name_t>,
) -> *mut cranewasm_tag_t {
    // SAFETY: as the caller promises.
    let (Some((s, instance)), Some(name)) = (unsafe { crate::c_api::instance::core_of(instance) }, name) else {
        return std::ptr::null_mut();
    };
    // SAFETY: a valid vector (caller).
    let bytes = unsafe { name.raw().first(name.size) };
    // SAFETY: c_char and u8 have the same size and alignment.
    let bytes = unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<u8>(), bytes.len()) };
    let bytes = bytes.strip_suffix(&[0]).unwrap_or(bytes);
    let Ok(name) = std::str::from_utf8(bytes) else { return std::ptr::null_mut() };
    // SAFETY: the store of a live instance is live, and not otherwise
    // borrowed here.
    match instance.get_export(unsafe { store::core(s) }, name) {
        Some(Extern::Tag(tag)) => object::new(TagObj { header: Header::new(s), tag }),
        _ => std::ptr::null_mut(),
    }
}

/// cranewasm extension: the tag of the uncaught exception a trap stands
/// for, as a new handle for the caller to delete; NULL for any other trap,
/// anything but a live trap, or a trap of no store.
///
/// # Safety
/// `t` may be NULL or any pointer. The store must not be used by another
/// thread meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_trap_exception_tag(t: *const wasm_trap_t) -> *mut cranewasm_tag_t {
    // SAFETY: as the caller promises.
    match unsafe { traps::exception(t) }.filter(|(s, _)| !s.is_null()) {
        Some((s, exn)) => {
            // SAFETY: a live trap's store is live.
            let tag = exn.tag(unsafe { &*store::core(s) });
            object::new(TagObj { header: Header::new(s), tag })
        }
        None => std::ptr::null_mut(),
    }
}

/// cranewasm extension: the tag's type, as a new function type whose
/// parameters are what its exceptions carry (it has no results); NULL for
/// anything but a live tag.
///
/// # Safety
/// `tag` may be NULL or any pointer. The store must not be used by another
/// thread meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_tag_type(tag: Option<&cranewasm_tag_t>) -> *mut wasm_functype_t {
    // SAFETY: as the caller promises.
    let Some(t) = (unsafe { get::<cranewasm_tag_t>(tag) }) else { return std::ptr::null_mut() };
    // SAFETY: the store of a live tag is live.
    let ty = t.tag.ty(unsafe { &*store::core(t.header.store) });
    ExternTypeObj::new_handle(&cranewasm::ExternType::Func(ty.ty().clone())).cast()
}

/// cranewasm extension: a trap of `store` that stands for a new exception
/// of `tag` carrying `payload` (one value per parameter of the tag's type,
/// of its kind; references of this store). A host callback of this store
/// returns it to throw the exception into its wasm caller, where a
/// `try_table` may catch it; uncaught, it comes out of the outer
/// `wasm_func_call` as its trap. Deleted unreturned, it throws nothing. NULL, with the reason as the last error
/// (`cranewasm_last_error`), for a store or tag that is not live, a tag of
/// another store, or a payload of the wrong length or kinds.
///
/// # Safety
/// `store` and `tag` may be NULL or any pointers; `payload` must be NULL
/// (no values) or a valid vector whose v128s point at 16 bytes. The store
/// must not be used by another thread meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_trap_new_exception(
    store: Option<&mut wasm_store_t>,
    tag: Option<&cranewasm_tag_t>,
    payload: Option<&wasm_val_vec_t>,
) -> *mut wasm_trap_t {
    const WHAT: &str = "cranewasm_trap_new_exception";
    // SAFETY: as the caller promises.
    let made = unsafe { new_exception(store, tag, payload) };
    match made {
        Ok(p) => p,
        Err(why) => {
            log(format_args!("{WHAT}: {why}"));
            std::ptr::null_mut()
        }
    }
}

/// [`cranewasm_trap_new_exception`], with the reason it refuses.
///
/// # Safety
/// As for [`cranewasm_trap_new_exception`].
unsafe fn new_exception(
    store: Option<&mut wasm_store_t>,
    tag: Option<&cranewasm_tag_t>,
    payload: Option<&wasm_val_vec_t>,
) -> Result<*mut wasm_trap_t, String> {
    // SAFETY: as the caller promises.
    let s: *mut StoreObj = unsafe { store::from_c(store) }.ok_or("not a live store")?;
    // SAFETY: as the caller promises.
    let t = unsafe { get::<cranewasm_tag_t>(tag) }.ok_or("not a live tag")?;
    if t.header.store != s {
        return Err("the tag belongs to another store".into());
    }
    // SAFETY: a valid vector (caller).
    let values: &[wasm_val_t] = payload.map_or(&[], |v| unsafe { v.raw().first(v.size) });
    // SAFETY: live (above), not otherwise borrowed here.
    let core = unsafe { store::core(s) };
    let ty: FuncType = t.tag.ty(&*core).ty().clone();
    let params: &[ValType] = ty.params();
    if values.len() != params.len() {
        return Err(format!("the tag carries {} values ({ty}), the payload has {}", params.len(), values.len()));
    }
    let mut vals = Vec::with_capacity(values.len());
    for (i, (v, &p)) in values.iter().zip(params).enumerate() {
        if v.kind != kinds::valkind(p) {
            return Err(format!("payload value {i} is of kind {}, the tag's parameter is {p}", v.kind));
        }
        // SAFETY: `core` is the core store of `s`; v128s point at 16 bytes
        // (caller).
        vals.push(unsafe { val::to_core(&mut *core, v, p) }.map_err(|e| format!("payload value {i}: {e}"))?);
    }
    // A reference of another store is refused here, as the core words it.
    let exn = Exn::new(&mut *core, t.tag, &vals).map_err(|e| e.to_string())?;
    // SAFETY: live; the trap keeps the exception as a handle of `s`.
    Ok(unsafe { traps::from_core(s, &exn.into_trap()) })
}

/// What a host callback's returned trap throws in `caller`'s store: the
/// trap itself, unless it stands for an exception of another store, which
/// cannot be thrown here (its objects are that store's) and becomes a
/// plain trap saying so.
pub fn in_store(caller: &Caller<'_, StoreData>, trap: TrapError) -> TrapError {
    if !trap.is_exception() || Exn::from_error(caller.as_context(), &Error::Exception(trap.clone())).is_some() {
        return trap;
    }
    TrapError::new("Exception: a host function threw an exception of another store")
}
