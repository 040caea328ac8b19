//! The library's diagnostic lines on stderr, and their level.
//!
//! One level for the whole library, WAMR's: `wasm_runtime_set_log_level`
//! and `bh_log_set_verbose_level` (which WAMR's Go binding declares for
//! itself) set the same value, as in WAMR, where the first calls the
//! second. A line is written when its level is at or below the current
//! one: 0 fatal (cranewasm has no fatal lines, so 0 silences the library),
//! 1 errors, 2 warnings (the default), 3 debug, 4 verbose; WAMR's Go
//! binding documents 0 to 5, and anything above 4 shows everything.

use std::sync::atomic::{AtomicU32, Ordering};

/// WAMR's `BH_LOG_LEVEL_ERROR`.
pub(crate) const ERROR: u32 = 1;
/// WAMR's `BH_LOG_LEVEL_WARNING`, the default level.
pub(crate) const WARNING: u32 = 2;

static LEVEL: AtomicU32 = AtomicU32::new(WARNING);

/// Sets the level (any value; see the module documentation).
pub fn set_level(level: u32) {
    LEVEL.store(level, Ordering::Relaxed);
}

/// Whether lines of `level` are written.
pub fn enabled(level: u32) -> bool {
    level <= LEVEL.load(Ordering::Relaxed)
}

/// Writes one line on stderr if `level` is enabled (WAMR writes its lines
/// on stdout; a library's diagnostics stay out of the program's output
/// here).
pub fn line(level: u32, args: std::fmt::Arguments<'_>) {
    if level <= ERROR {
        // Kept whatever the level, for `cranewasm_last_error`.
        crate::ext::last_error::record(args.to_string());
    }
    if enabled(level) {
        eprintln!("[cranewasm] {args}");
    }
}
