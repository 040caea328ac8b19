//! Our own extensions of the API, prefixed `cranewasm_`.

use std::ffi::c_char;
use std::ptr;

use crate::vec::{wasm_byte_t, wasm_byte_vec_t, RawVec};

/// Translates WebAssembly text (`len` bytes at `text`, not necessarily
/// NUL-terminated) to a binary module in `*out`. Returns false, with the
/// reason on stderr and `*out` empty, when the text does not parse.
#[no_mangle]
pub unsafe extern "C" fn cranewasm_wat2wasm(text: *const c_char, len: usize, out: *mut wasm_byte_vec_t) -> bool {
    let Some(out) = out.as_mut() else { return false };
    ptr::write(out, wasm_byte_vec_t::from_raw(RawVec::EMPTY));
    if text.is_null() {
        return false;
    }
    let bytes = std::slice::from_raw_parts(text.cast::<u8>(), len);
    let Ok(source) = std::str::from_utf8(bytes) else {
        crate::log(format_args!("cranewasm_wat2wasm: the text is not UTF-8"));
        return false;
    };
    match wat::parse_str(source) {
        Ok(binary) => {
            ptr::write(
                out,
                wasm_byte_vec_t::from_raw(RawVec::from_items(binary.into_iter().map(|b| b as wasm_byte_t))),
            );
            true
        }
        Err(e) => {
            // wat's messages span lines (a source excerpt); keep one line.
            let message = e.to_string().lines().map(str::trim).collect::<Vec<_>>().join(" ");
            crate::log(format_args!("cranewasm_wat2wasm: {message}"));
            false
        }
    }
}
