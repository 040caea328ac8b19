//! Traps: a message and the wasm frames active when execution stopped.
//!
//! Traps raised by wasm carry WAMR's text, `Exception: ` and the spec's
//! wording (`Exception: unreachable`); traps a host callback returned keep
//! the callback's message; calling a function that was never linked gives
//! "failed to call unlinked function". Messages handed out are
//! NUL-terminated with the NUL counted.

use std::ptr;
use std::sync::atomic::{AtomicU64, Ordering};

use cranewasm::{FrameInfo, Trap, TrapCode};

use crate::frame::new_frame;
use crate::object::{impl_object, register, release, Header, ObjKind};
use crate::store::StoreObj;
use crate::vec::{name_bytes, name_from_bytes, wasm_frame_vec_t, wasm_name_t, RawVec};
use crate::*;

/// The message of a call to a function that was never linked.
pub const UNLINKED: &str = "failed to call unlinked function";

/// `wasm_message_t`: a NUL-terminated name.
pub type wasm_message_t = wasm_name_t;

/// What a `wasm_trap_t *` points at.
#[repr(C)]
pub struct TrapObj {
    pub header: Header,
    /// Without the trailing NUL.
    message: Vec<u8>,
    frames: Vec<FrameInfo>,
    /// Shared by copies, for `wasm_trap_same`.
    id: u64,
}

impl_object!(TrapObj);

fn next_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Registers a new trap in `store`.
///
/// # Safety
/// `store` must be live.
pub unsafe fn new_trap(store: *mut StoreObj, message: &[u8], frames: Vec<FrameInfo>) -> *mut wasm_trap_t {
    let obj = TrapObj { header: Header::new(ObjKind::Trap, store), message: message.to_vec(), frames, id: next_id() };
    register(obj).cast()
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
    new_trap(store, message_of(t).as_bytes(), t.frames().to_vec())
}

/// A trap object for any failed operation.
///
/// # Safety
/// `store` must be live.
pub unsafe fn from_error(store: *mut StoreObj, e: &cranewasm::Error) -> *mut wasm_trap_t {
    match e.as_trap() {
        Some(t) => from_core(store, t),
        None => new_trap(store, e.to_string().as_bytes(), Vec::new()),
    }
}

/// Takes over the trap a host callback returned, as a core trap with the
/// same message.
///
/// # Safety
/// `t` must be a live trap object.
pub unsafe fn take_host_trap(t: *mut wasm_trap_t) -> Trap {
    let message = String::from_utf8_lossy(&(*t.cast::<TrapObj>()).message).into_owned();
    release(t.cast());
    Trap::new(message)
}

/// A trap in `store` with the given message (with or without a trailing
/// NUL). NULL for a NULL store; a NULL message is an empty one.
#[no_mangle]
pub unsafe extern "C" fn wasm_trap_new(store: *mut wasm_store_t, message: *const wasm_message_t) -> *mut wasm_trap_t {
    match crate::store::from_c(store) {
        Some(s) => new_trap(s, name_bytes(message), Vec::new()),
        None => ptr::null_mut(),
    }
}

#[no_mangle]
pub unsafe extern "C" fn wasm_trap_delete(t: *mut wasm_trap_t) {
    release(t.cast())
}

#[no_mangle]
pub unsafe extern "C" fn wasm_trap_copy(t: *const wasm_trap_t) -> *mut wasm_trap_t {
    let Some(t) = t.cast::<TrapObj>().as_ref() else { return ptr::null_mut() };
    let obj = TrapObj {
        header: Header::new(ObjKind::Trap, t.header.store),
        message: t.message.clone(),
        frames: t.frames.clone(),
        id: t.id,
    };
    register(obj).cast()
}

/// Whether two traps are the same trap (a trap and its copies are).
#[no_mangle]
pub unsafe extern "C" fn wasm_trap_same(a: *const wasm_trap_t, b: *const wasm_trap_t) -> bool {
    match (a.cast::<TrapObj>().as_ref(), b.cast::<TrapObj>().as_ref()) {
        (None, None) => true,
        (Some(a), Some(b)) => a.id == b.id,
        _ => false,
    }
}

/// Sets `*out` to the message, NUL-terminated with the NUL counted.
#[no_mangle]
pub unsafe extern "C" fn wasm_trap_message(t: *const wasm_trap_t, out: *mut wasm_message_t) {
    let (Some(t), Some(out)) = (t.cast::<TrapObj>().as_ref(), out.as_mut()) else { return };
    ptr::write(out, name_from_bytes(&t.message));
}

/// The innermost frame, or NULL when the trap has none.
#[no_mangle]
pub unsafe extern "C" fn wasm_trap_origin(t: *const wasm_trap_t) -> *mut wasm_frame_t {
    match t.cast::<TrapObj>().as_ref() {
        Some(t) => t.frames.first().map_or(ptr::null_mut(), |f| new_frame(t.header.store, f)),
        None => ptr::null_mut(),
    }
}

/// Sets `*out` to the frames, innermost first (an empty vector when none
/// are known).
#[no_mangle]
pub unsafe extern "C" fn wasm_trap_trace(t: *const wasm_trap_t, out: *mut wasm_frame_vec_t) {
    let Some(out) = out.as_mut() else { return };
    let frames = match t.cast::<TrapObj>().as_ref() {
        Some(t) => RawVec::from_items(t.frames.iter().map(|f| new_frame(t.header.store, f))),
        None => RawVec::EMPTY,
    };
    ptr::write(out, wasm_frame_vec_t::from_raw(frames));
}
