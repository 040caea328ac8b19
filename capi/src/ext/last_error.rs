//! The last error of the calling thread: every error line the library
//! writes (a malformed module's validator message and offset, a text that
//! does not parse, an instantiation that fails, ...) is also kept here, so
//! a binding can put the reason in its exception instead of on stderr. A
//! binding that reads errors this way may silence stderr with
//! `wasm_runtime_set_log_level(0)`: the message is kept at every level.

use std::cell::RefCell;

use crate::c_api::vec::{RawVec, wasm_byte_t, wasm_byte_vec_t};

thread_local! {
    static LAST: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Keeps `message` as the calling thread's last error (from
/// [`crate::diag::line`], for error lines, whether or not they are shown).
pub(crate) fn record(message: String) {
    // A thread being torn down has no slot left; the line is then only
    // what stderr shows.
    let _ = LAST.try_with(|l| *l.borrow_mut() = Some(message));
}

/// cranewasm extension: moves the calling thread's last error message
/// (UTF-8, no NUL) into `*out` and forgets it. Returns false, with `*out`
/// empty, when there is none since the last call or
/// [`cranewasm_last_error_clear`].
///
/// # Safety
/// `out` must be NULL or point at writable room for a vector.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_last_error(out: *mut wasm_byte_vec_t) -> bool {
    let message = LAST.try_with(|l| l.borrow_mut().take()).ok().flatten();
    if out.is_null() {
        return message.is_some();
    }
    let raw = match &message {
        Some(m) => RawVec::from_items(m.bytes().map(|b| b as wasm_byte_t)),
        None => RawVec::EMPTY,
    };
    // SAFETY: `out` is writable (caller).
    unsafe { out.write(wasm_byte_vec_t::from_raw(raw)) };
    message.is_some()
}

/// cranewasm extension: forgets the calling thread's last error, so that
/// the next [`cranewasm_last_error`] reports only what follows.
///
/// # Safety
/// None needed: it takes no pointer.
#[unsafe(no_mangle)]
pub extern "C" fn cranewasm_last_error_clear() {
    let _ = LAST.try_with(|l| l.borrow_mut().take());
}
