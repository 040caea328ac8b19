//! How iwasm ends a wasi-threads program that one of its spawned threads
//! ended (`proc_exit` or a trap).
//!
//! The runtime stops every thread of the program and the main thread's
//! call returns with the exception, which `load_and_run` reports as for
//! any call: the exit status, or `Exception: ...` and 1. The stop wakes a
//! main thread that waits in `poll_oneoff` or in a read of the host's
//! stdin, but one blocked in another host call (a write to a full pipe, a
//! native library's function) stops only when that call returns, which
//! may be never; the runtime's `on_program_end` hook
//! then ends the process with the same output and status, as WAMR's iwasm
//! does.

use std::sync::{Condvar, Mutex};
use std::time::Duration;

use capi::export::thread_mgr::{on_program_end, ProgramEnd};

/// How long the main thread's call has to come back by itself: an
/// interrupted wasm call (computing, or in `memory.atomic.wait`) stops in
/// microseconds.
const GRACE: Duration = Duration::from_millis(500);

/// Whether the main thread's call has returned.
static RETURNED: Mutex<bool> = Mutex::new(false);
static CHANGED: Condvar = Condvar::new();

/// Installs the hook; before the program runs.
pub fn watch() {
    on_program_end(ended);
}

/// The main thread's call returned: it reports the outcome.
pub fn main_returned() {
    *RETURNED.lock().unwrap_or_else(|e| e.into_inner()) = true;
    CHANGED.notify_all();
}

fn ended(end: &ProgramEnd) {
    let returned = RETURNED.lock().unwrap_or_else(|e| e.into_inner());
    let (returned, _) = CHANGED.wait_timeout_while(returned, GRACE, |r| !*r).unwrap_or_else(|e| e.into_inner());
    if *returned {
        return;
    }
    let code = match end.exit_code {
        Some(code) => code as i32,
        None => {
            capi::export::c_print(format!("Exception: {}\n", end.message).as_bytes());
            1
        }
    };
    capi::export::c_flush();
    std::process::exit(code)
}
