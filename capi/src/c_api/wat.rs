//! Our own extensions of the API, prefixed `cranewasm_`.

use std::ffi::c_char;

use crate::c_api::vec::{RawVec, wasm_byte_t, wasm_byte_vec_t};

/// Translates WebAssembly text (`len` bytes at `text`, not necessarily
/// NUL-terminated) to a binary module in `*out`. Returns false, with the
/// reason on stderr and `*out` empty, when the text does not parse.
///
/// # Safety
/// `text` must be NULL or point at `len` readable bytes; `out` NULL or
/// writable room for a vector.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_wat2wasm(text: *const c_char, len: usize, out: *mut wasm_byte_vec_t) -> bool {
    if out.is_null() {
        return false;
    }
    // SAFETY: `out` is writable (caller).
    unsafe { out.write(wasm_byte_vec_t::from_raw(RawVec::EMPTY)) };
    if text.is_null() {
        return false;
    }
    // SAFETY: `len` readable bytes (caller).
    let bytes = unsafe { std::slice::from_raw_parts(text.cast::<u8>(), len) };
    let Ok(source) = std::str::from_utf8(bytes) else {
        crate::log(format_args!("cranewasm_wat2wasm: the text is not UTF-8"));
        return false;
    };
    match parse(source) {
        Ok(binary) => {
            let v = RawVec::from_items(binary.into_iter().map(|b| b as wasm_byte_t));
            // SAFETY: as above.
            unsafe { out.write(wasm_byte_vec_t::from_raw(v)) };
            true
        }
        Err(message) => {
            crate::log(format_args!("cranewasm_wat2wasm: {message}"));
            false
        }
    }
}

/// The binary of `source`, or why not.
#[cfg(feature = "text")]
fn parse(source: &str) -> Result<Vec<u8>, String> {
    // wat's messages span lines (a source excerpt); keep one line.
    wat::parse_str(source).map_err(|e| e.to_string().lines().map(str::trim).collect::<Vec<_>>().join(" "))
}

/// Text is only ever compiled, so a runtime-only build has no parser;
/// and a build for size may leave it out.
#[cfg(not(feature = "text"))]
fn parse(_: &str) -> Result<Vec<u8>, String> {
    Err("WebAssembly text needs the `text` feature, which this build of the library leaves out".into())
}
