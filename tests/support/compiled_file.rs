//! Helpers of the tests that damage compiled-code files (`tests/cache.rs`,
//! `tests/runtime_only.rs`).

use cranewasm::{Engine, Module};

/// Why `engine` refuses `bytes` as a compiled-code file; panics if it
/// accepts them.
pub fn refusal(engine: &Engine, bytes: &[u8]) -> String {
    // SAFETY: the bytes are refused before any code in them could run (the
    // panic below fires otherwise, and nothing is called).
    match unsafe { Module::deserialize(engine, bytes) } {
        Ok(_) => panic!("a damaged or mismatched file was accepted"),
        Err(e) => e.to_string(),
    }
}

/// Rewrites the checksum (the last 8 bytes) to match the rest, as a
/// writer that damaged the file before summing it would.
pub fn fix_checksum(bytes: &mut [u8]) {
    let n = bytes.len() - 8;
    let sum = cranewasm::__compiled_module_checksum(&bytes[..n]);
    bytes[n..].copy_from_slice(&sum.to_le_bytes());
}
