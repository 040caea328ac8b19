//! `sock_*`: a guest can only have sockets it was given, and the builder
//! gives none, so every socket call on a valid fd answers `ENOTSOCK` (and
//! `EBADF` on an fd that is not open), as preview 1 hosts without socket
//! preopens do.

use super::ctx::WasiCtx;
use super::guest::GuestMemory;
use super::types::{Errno, WasiResult};

/// `EBADF` for a closed fd, `ENOTSOCK` for any other.
fn not_a_socket(cx: &WasiCtx, fd: u32) -> WasiResult {
    cx.get(fd, 0)?;
    Err(Errno::Notsock)
}

pub fn sock_accept(cx: &mut WasiCtx, _mem: &mut GuestMemory<'_>, fd: u32, _flags: u32, _out: u32) -> WasiResult {
    not_a_socket(cx, fd)
}

#[allow(clippy::too_many_arguments)]
pub fn sock_recv(
    cx: &mut WasiCtx,
    _mem: &mut GuestMemory<'_>,
    fd: u32,
    _iovs: u32,
    _iovs_len: u32,
    _flags: u32,
    _nread_out: u32,
    _roflags_out: u32,
) -> WasiResult {
    not_a_socket(cx, fd)
}

pub fn sock_send(
    cx: &mut WasiCtx,
    _mem: &mut GuestMemory<'_>,
    fd: u32,
    _iovs: u32,
    _iovs_len: u32,
    _flags: u32,
    _nwritten_out: u32,
) -> WasiResult {
    not_a_socket(cx, fd)
}

pub fn sock_shutdown(cx: &mut WasiCtx, _mem: &mut GuestMemory<'_>, fd: u32, _how: u32) -> WasiResult {
    not_a_socket(cx, fd)
}
