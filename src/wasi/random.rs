//! `random_get`: bytes from the context's generator (the OS's by default,
//! through cap-rand), written straight into guest memory.

use super::ctx::WasiCtx;
use super::guest::GuestMemory;
use super::types::WasiResult;

pub fn random_get(cx: &mut WasiCtx, mem: &mut GuestMemory<'_>, buf: u32, len: u32) -> WasiResult {
    let dst = mem.slice_mut(buf, len)?;
    cx.rng.lock().unwrap_or_else(|e| e.into_inner()).fill_bytes(dst);
    Ok(())
}
