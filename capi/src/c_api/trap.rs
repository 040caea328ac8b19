//! Traps: a message and the wasm frames active when execution stopped.
//!
//! Traps raised by wasm carry WAMR's text, `Exception: ` and the spec's
//! wording (`Exception: unreachable`); traps a host callback returned keep
//! the callback's message; calling a function that was never linked gives
//! "failed to call unlinked function". Messages handed out are
//! NUL-terminated with the NUL counted.

use std::ptr;
use std::rc::Rc;

use cranewasm::{FrameInfo, Trap, TrapCode};

use crate::c_api::frame::new_frame;
use crate::c_api::store::StoreObj;
use crate::c_api::vec::{RawVec, name_bytes, name_from_bytes, wasm_frame_vec_t, wasm_name_t};
use crate::handle::Kind;
use crate::object::{self, Header, Object, c_object, get};
use crate::*;

/// The message of a call to a function that was never linked.
pub const UNLINKED: &str = "failed to call unlinked function";

/// The message of a trap made for a host callback that returned a pointer
/// that is not a live trap.
pub const NOT_A_TRAP: &str = "host function returned a pointer that is not a trap";

/// `wasm_message_t`: a NUL-terminated name.
pub type wasm_message_t = wasm_name_t;

/// What a trap says; shared by a trap and its copies, and their identity.
struct TrapData {
    /// Without the trailing NUL.
    message: Vec<u8>,
    frames: Vec<FrameInfo>,
}

/// What a `wasm_trap_t *` points at.
#[repr(C)]
pub struct TrapObj {
    header: Header,
    data: Rc<TrapData>,
}

const _: () = assert!(std::mem::offset_of!(TrapObj, header) == 0);

// SAFETY: trap cells hold `TrapObj`s, which start with their header.
unsafe impl Object for TrapObj {
    fn kind(&self) -> Kind {
        Kind::Trap
    }
    fn header(&mut self) -> Option<&mut Header> {
        Some(&mut self.header)
    }
    fn duplicate(&self) -> Option<TrapObj> {
        Some(TrapObj { header: Header::new(self.header.store), data: self.data.clone() })
    }
    fn same(&self, other: &TrapObj) -> bool {
        Rc::ptr_eq(&self.data, &other.data)
    }
}

c_object! {
    /// A trap: a message and the frames where it happened.
    wasm_trap_t: TrapObj [Trap];
    delete: wasm_trap_delete;
    copy: wasm_trap_copy;
    same: wasm_trap_same;
    host_info: wasm_trap_get_host_info, wasm_trap_set_host_info, wasm_trap_set_host_info_with_finalizer;
    as_ref: wasm_trap_as_ref, wasm_trap_as_ref_const, wasm_ref_as_trap, wasm_ref_as_trap_const;
}

/// Registers a new trap in `store`.
///
/// # Safety
/// `store` must be live.
pub unsafe fn new_trap(store: *mut StoreObj, message: &[u8], frames: Vec<FrameInfo>) -> *mut wasm_trap_t {
    object::new(TrapObj { header: Header::new(store), data: Rc::new(TrapData { message: message.to_vec(), frames }) })
}

/// The C API's text for a core trap.
pub fn message_of(t: &Trap) -> String {
    match t.code() {
        None | Some(TrapCode::UnlinkedFunction) => t.message().to_string(),
        Some(_) => format!("Exception: {}", t.message()),
    }
}

/// A trap object for a core trap.
///
/// # Safety
/// `store` must be live.
pub unsafe fn from_core(store: *mut StoreObj, t: &Trap) -> *mut wasm_trap_t {
    // SAFETY: as the caller promises.
    unsafe { new_trap(store, message_of(t).as_bytes(), t.frames().to_vec()) }
}

/// A trap object for any failed operation.
///
/// # Safety
/// `store` must be live.
pub unsafe fn from_error(store: *mut StoreObj, e: &cranewasm::Error) -> *mut wasm_trap_t {
    // SAFETY: as the caller promises.
    unsafe {
        match e.as_trap() {
            Some(t) => from_core(store, t),
            None => new_trap(store, e.to_string().as_bytes(), Vec::new()),
        }
    }
}

/// Takes over the trap a host callback returned, as a core trap with the
/// same message; `None` if `t` is not a live trap.
///
/// # Safety
/// The trap, if live, is the caller's to delete.
pub unsafe fn take_host_trap(t: *mut wasm_trap_t) -> Option<Trap> {
    // SAFETY: read before the delete below.
    let message = String::from_utf8_lossy(&unsafe { get::<wasm_trap_t>(t) }?.data.message).into_owned();
    // SAFETY: the caller owns the trap.
    unsafe { object::delete::<wasm_trap_t>(t) };
    Some(Trap::new(message))
}

/// The message of a live trap, without its NUL.
///
/// # Safety
/// As for [`object::get`].
pub unsafe fn message<'a>(t: *const wasm_trap_t) -> Option<&'a [u8]> {
    // SAFETY: as the caller promises.
    unsafe { get::<wasm_trap_t>(t) }.map(|t| &t.data.message[..])
}

/// A trap in `store` with the given message (with or without a trailing
/// NUL). NULL for a NULL store; a NULL message is an empty one.
///
/// # Safety
/// `store` may be NULL or any pointer: anything but a live store counts as
/// NULL. `message` must be NULL or a valid byte vector. The store must not
/// be used by another thread meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_trap_new(
    store: Option<&mut wasm_store_t>,
    message: Option<&wasm_message_t>,
) -> *mut wasm_trap_t {
    // SAFETY: the client keeps the threading rule above; the message is
    // valid.
    unsafe {
        match crate::c_api::store::from_c(store) {
            Some(s) => new_trap(s, name_bytes(message), Vec::new()),
            None => ptr::null_mut(),
        }
    }
}

/// Sets `*out` to the message, NUL-terminated with the NUL counted.
///
/// # Safety
/// `t` may be NULL or any pointer: anything but a live trap counts as NULL.
/// `out` must be NULL or point at writable room for a vector. No other
/// thread may delete the trap meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_trap_message(t: Option<&wasm_trap_t>, out: *mut wasm_message_t) {
    // SAFETY: the client keeps the threading rule above.
    let Some(t) = (unsafe { get::<wasm_trap_t>(t) }) else { return };
    if !out.is_null() {
        // SAFETY: `out` is writable (caller).
        unsafe { out.write(name_from_bytes(&t.data.message)) };
    }
}

/// The innermost frame, or NULL when the trap has none.
///
/// # Safety
/// As for [`wasm_trap_message`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_trap_origin(t: Option<&wasm_trap_t>) -> *mut wasm_frame_t {
    // SAFETY: the client keeps the threading rule above.
    match unsafe { get::<wasm_trap_t>(t) } {
        // SAFETY: the store of a live object is live.
        Some(t) => t.data.frames.first().map_or(ptr::null_mut(), |f| unsafe { new_frame(t.header.store, f) }),
        None => ptr::null_mut(),
    }
}

/// Sets `*out` to the frames, innermost first (an empty vector when none
/// are known).
///
/// # Safety
/// As for [`wasm_trap_message`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_trap_trace(t: Option<&wasm_trap_t>, out: *mut wasm_frame_vec_t) {
    if out.is_null() {
        return;
    }
    // SAFETY: the client keeps the threading rule above.
    let frames = match unsafe { get::<wasm_trap_t>(t) } {
        // SAFETY: the store of a live object is live.
        Some(t) => RawVec::from_items(t.data.frames.iter().map(|f| unsafe { new_frame(t.header.store, f) })),
        None => RawVec::EMPTY,
    };
    // SAFETY: `out` is writable (caller).
    unsafe { out.write(wasm_frame_vec_t::from_raw(frames)) };
}
