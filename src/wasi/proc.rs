//! `proc_exit`, `proc_raise` and `sched_yield`. `proc_exit` ends the whole
//! call with [`Trap::exit`], which the caller sees as
//! [`Error::Exit`](crate::Error::Exit): an exit, not a failure.

use super::ctx::WasiCtx;
use super::guest::GuestMemory;
use super::types::{Errno, WasiResult};
use crate::environ::trap::Trap;

/// The trap that carries the guest's exit status out of every wasm frame.
/// WASI's status is a `u32`; hosts keep the low 8 bits, as a process's
/// status does, but the embedder gets the whole value.
pub fn proc_exit(code: u32) -> Trap {
    Trap::exit(code as i32)
}

/// Signals are not part of what a WASI guest can do to its host.
pub fn proc_raise(_cx: &mut WasiCtx, _mem: &mut GuestMemory<'_>, _sig: u32) -> WasiResult {
    Err(Errno::Nosys)
}

pub fn sched_yield(_cx: &mut WasiCtx, _mem: &mut GuestMemory<'_>) -> WasiResult {
    std::thread::yield_now();
    Ok(())
}
