//! Traps: a message and the wasm frames active when execution stopped.
//!
//! The texts are WAMR's: traps raised by wasm read `Exception: ` and the
//! spec's wording (`Exception: unreachable`), running out of stack
//! `Exception: wasm operand stack overflow`; a trap a host callback
//! returned becomes `Exception: ` and its message up to the first NUL (at
//! most 107 bytes of it), or `Exception: native function throw unknown
//! exception` when it has none; calling a placeholder gives "failed to
//! call unlinked function". The runtime's messages are NUL-terminated with
//! the NUL counted.
//!
//! `wasm_trap_new` keeps exactly the bytes it is given (`size` of them, no
//! NUL added, a given one kept) and `wasm_trap_message` hands them back as
//! they are; a trap made without a message has none, and
//! `wasm_trap_message` then leaves `*out` alone.

use std::ptr;
use std::rc::Rc;

use cranewasm::{FrameInfo, TrapError, Trap};

use crate::c_api::frame::new_frame;
use crate::c_api::store::StoreObj;
use crate::c_api::vec::{RawVec, wasm_byte_t, wasm_frame_vec_t, wasm_name_t};
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

/// WAMR's prefix of the message of a trap a host callback returned.
const HOST_PREFIX: &str = "Exception: ";
/// How much of a host callback's trap message WAMR keeps (its buffer of
/// 108 bytes, with the NUL).
const HOST_MESSAGE_MAX: usize = 107;
/// The message of a host callback's trap that has none.
const HOST_NO_MESSAGE: &str = "Exception: native function throw unknown exception";

/// What a trap says; shared by a trap and its copies, and their identity.
struct TrapData {
    /// The exact bytes `wasm_trap_message` hands out (the runtime's own
    /// messages end in a NUL); `None` for a trap made without a message.
    message: Option<Vec<u8>>,
    frames: Vec<FrameInfo>,
    /// The core trap's code and exit status, for `crate::ext::trap_info`
    /// (`None` for traps made from a message).
    code: Option<Trap>,
    exit_code: Option<i32>,
    /// The exception an uncaught-exception trap stands for, a handle of
    /// the trap's store (`crate::ext::trap_info`).
    exception: Option<cranewasm::Exn>,
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
        Kind::TrapError
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
    wasm_trap_t: TrapObj [TrapError];
    delete: wasm_trap_delete;
    copy: wasm_trap_copy;
    same: wasm_trap_same;
    host_info: wasm_trap_get_host_info, wasm_trap_set_host_info, wasm_trap_set_host_info_with_finalizer;
    as_ref: wasm_trap_as_ref, wasm_trap_as_ref_const, wasm_ref_as_trap, wasm_ref_as_trap_const;
}

/// Registers a new trap in `store` with exactly the bytes of `message`.
///
/// # Safety
/// `store` must be NULL or live.
unsafe fn register(store: *mut StoreObj, message: Option<Vec<u8>>, frames: Vec<FrameInfo>) -> *mut wasm_trap_t {
    let data = TrapData { message, frames, code: None, exit_code: None, exception: None };
    object::new(TrapObj { header: Header::new(store), data: Rc::new(data) })
}

/// Registers a new trap in `store` with a message of the runtime's
/// (NUL-terminated, the NUL counted).
///
/// # Safety
/// `store` must be NULL or live.
pub unsafe fn new_trap(store: *mut StoreObj, message: &[u8], frames: Vec<FrameInfo>) -> *mut wasm_trap_t {
    let text = message.iter().copied().chain(std::iter::once(0)).collect();
    // SAFETY: as the caller promises.
    unsafe { register(store, Some(text), frames) }
}

/// The C API's text for a core trap.
pub fn message_of(t: &TrapError) -> String {
    match t.code() {
        // WAMR's text for an exception that left wasm.
        None if t.is_exception() => format!("Exception: {}", t.message()),
        None | Some(Trap::UnlinkedFunction) => t.message().to_string(),
        Some(Trap::StackOverflow) => "Exception: wasm operand stack overflow".to_string(),
        Some(_) => format!("Exception: {}", t.message()),
    }
}

/// A trap object for a core trap.
///
/// # Safety
/// `store` must be live.
pub unsafe fn from_core(store: *mut StoreObj, t: &TrapError) -> *mut wasm_trap_t {
    // SAFETY: as the caller promises.
    let p = unsafe { new_trap(store, message_of(t).as_bytes(), t.frames().to_vec()) };
    // SAFETY: just made, so live, and not shared yet.
    if let Some(data) = unsafe { object::get_mut::<wasm_trap_t>(p) }.and_then(|o| Rc::get_mut(&mut o.data)) {
        (data.code, data.exit_code) = (t.code(), t.exit_code());
        if t.is_exception() {
            // SAFETY: live (caller).
            let core = unsafe { crate::c_api::store::core(store) };
            data.exception = cranewasm::Exn::from_error(&*core, &cranewasm::Error::Exception(t.clone()));
        }
    }
    p
}

/// The store and exception of a live trap that stands for an uncaught
/// exception (see `crate::ext::trap_info`).
///
/// # Safety
/// As for [`object::get`].
pub unsafe fn exception(t: *const wasm_trap_t) -> Option<(*mut StoreObj, cranewasm::Exn)> {
    // SAFETY: as the caller promises.
    let o = unsafe { get::<wasm_trap_t>(t) }?;
    Some((o.header.store, o.data.exception?))
}

/// A live trap's core code, exit status and frames (see
/// `crate::ext::trap_info`).
///
/// # Safety
/// As for [`object::get`].
pub unsafe fn info<'a>(t: *const wasm_trap_t) -> Option<(Option<Trap>, Option<i32>, &'a [FrameInfo])> {
    // SAFETY: as the caller promises.
    let d = &unsafe { get::<wasm_trap_t>(t) }?.data;
    Some((d.code, d.exit_code, &d.frames))
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

/// Takes over the trap a host callback returned, as a core trap with
/// WAMR's message for it (see the module documentation), or as the
/// exception it stands for; `None` if `t` is not a live trap.
///
/// # Safety
/// The trap, if live, is the caller's to delete.
pub unsafe fn take_host_trap(t: *mut wasm_trap_t) -> Option<TrapError> {
    // SAFETY: read before the delete below.
    let data = &unsafe { get::<wasm_trap_t>(t) }?.data;
    // An exception (from `cranewasm_trap_new_exception`, or received from
    // a nested call) is thrown on (`crate::ext::exceptions`).
    if let Some(exn) = data.exception {
        // SAFETY: the caller owns the trap.
        unsafe { object::delete::<wasm_trap_t>(t) };
        return Some(exn.into_trap());
    }
    let message = match data.message.as_deref() {
        Some(m) if !m.is_empty() => {
            let kept = &m[..m.len().min(HOST_MESSAGE_MAX)];
            let text = kept.split(|&b| b == 0).next().unwrap_or_default();
            format!("{HOST_PREFIX}{}", String::from_utf8_lossy(text))
        }
        _ => HOST_NO_MESSAGE.to_string(),
    };
    // SAFETY: the caller owns the trap.
    unsafe { object::delete::<wasm_trap_t>(t) };
    Some(TrapError::new(message))
}

/// The message of a live trap, without a trailing NUL (empty if it has
/// none).
///
/// # Safety
/// As for [`object::get`].
pub unsafe fn message<'a>(t: *const wasm_trap_t) -> Option<&'a [u8]> {
    // SAFETY: as the caller promises.
    let m = unsafe { get::<wasm_trap_t>(t) }?.data.message.as_deref().unwrap_or_default();
    Some(m.strip_suffix(&[0]).unwrap_or(m))
}

/// A trap in `store` whose message is exactly the `size` bytes of
/// `message` (no NUL added; the message stays the caller's). A NULL
/// message makes a trap without one. NULL for a NULL store.
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
    // SAFETY: the client keeps the threading rule above.
    let Some(s) = (unsafe { crate::c_api::store::from_c(store) }) else { return ptr::null_mut() };
    let bytes = message.map(|m| {
        // SAFETY: a valid vector (caller): `data` holds `size` bytes. As
        // in WAMR, a NULL `data` gives `size` zero bytes.
        match unsafe { m.raw().first(m.size) } {
            [] => vec![0; if m.data.is_null() { m.size } else { 0 }],
            // SAFETY: c_char and u8 have the same size and alignment.
            b => unsafe { std::slice::from_raw_parts(b.as_ptr().cast::<u8>(), b.len()) }.to_vec(),
        }
    });
    // SAFETY: the store is live.
    unsafe { register(s, bytes, Vec::new()) }
}

/// Sets `*out` to a copy of the message, byte for byte (the runtime's own
/// messages end in a counted NUL). A trap without a message leaves `*out`
/// alone.
///
/// # Safety
/// `t` may be NULL or any pointer: anything but a live trap counts as NULL.
/// `out` must be NULL or point at writable room for a vector. No other
/// thread may delete the trap meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_trap_message(t: Option<&wasm_trap_t>, out: *mut wasm_message_t) {
    // SAFETY: the client keeps the threading rule above.
    let Some(message) = (unsafe { get::<wasm_trap_t>(t) }).and_then(|t| t.data.message.as_deref()) else { return };
    if !out.is_null() {
        let bytes = message.iter().map(|&b| b as wasm_byte_t);
        // SAFETY: `out` is writable (caller).
        unsafe { out.write(wasm_message_t::from_raw(RawVec::from_items(bytes))) };
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
