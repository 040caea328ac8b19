//! `args_*` and `environ_*`: the guest's command line and environment,
//! copied from the tables [`WasiCtx`](super::WasiCtx) built once.

use super::ctx::{StringTable, WasiCtx};
use super::guest::GuestMemory;
use super::types::WasiResult;

/// Writes the table's pointers to `ptrs` and its strings to `buf`.
fn get(table: &StringTable, mem: &mut GuestMemory<'_>, ptrs: u32, buf: u32) -> WasiResult {
    let n = table.starts.len() as u32;
    mem.check_array(ptrs, n, 4)?;
    mem.write(buf, &table.bytes)?;
    for (i, start) in table.starts.iter().enumerate() {
        // Cannot overflow: `buf` + the table's length was just checked.
        mem.write_u32(ptrs + 4 * i as u32, buf + start)?;
    }
    Ok(())
}

/// Writes the number of strings and their total size with NULs.
fn sizes(table: &StringTable, mem: &mut GuestMemory<'_>, count_out: u32, size_out: u32) -> WasiResult {
    mem.write_u32(count_out, table.starts.len() as u32)?;
    mem.write_u32(size_out, table.bytes.len() as u32)
}

pub fn args_get(cx: &mut WasiCtx, mem: &mut GuestMemory<'_>, argv: u32, argv_buf: u32) -> WasiResult {
    get(&cx.args, mem, argv, argv_buf)
}

pub fn args_sizes_get(cx: &mut WasiCtx, mem: &mut GuestMemory<'_>, argc_out: u32, size_out: u32) -> WasiResult {
    sizes(&cx.args, mem, argc_out, size_out)
}

pub fn environ_get(cx: &mut WasiCtx, mem: &mut GuestMemory<'_>, environ: u32, environ_buf: u32) -> WasiResult {
    get(&cx.env, mem, environ, environ_buf)
}

pub fn environ_sizes_get(cx: &mut WasiCtx, mem: &mut GuestMemory<'_>, count_out: u32, size_out: u32) -> WasiResult {
    sizes(&cx.env, mem, count_out, size_out)
}
