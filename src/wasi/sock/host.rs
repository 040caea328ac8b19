//! What the socket calls need of the host beyond what rustix offers on
//! every Unix: Linux's atomic socket flags, `MSG_TRUNC` on receive,
//! `MSG_NOSIGNAL` on send, `TCP_QUICKACK` and `TCP_FASTOPEN_CONNECT`.
//! macOS (compiled, not tested) sets descriptor flags after the call, asks
//! for no `SIGPIPE` per socket, and answers `ENOPROTOOPT` for the two
//! Linux-only options.

use std::os::fd::OwnedFd;

#[cfg(not(target_os = "linux"))]
use rustix::io::Errno;
use rustix::io::Result;
use rustix::net::{AddressFamily, RecvFlags, SendFlags, SocketType};

#[cfg(not(target_os = "linux"))]
use super::Socket;

/// A new non-blocking socket, closed on exec, that never raises `SIGPIPE`.
pub fn socket(family: AddressFamily, kind: SocketType) -> Result<OwnedFd> {
    #[cfg(target_os = "linux")]
    let fd = rustix::net::socket_with(
        family,
        kind,
        rustix::net::SocketFlags::NONBLOCK | rustix::net::SocketFlags::CLOEXEC,
        None,
    )?;
    #[cfg(not(target_os = "linux"))]
    let fd = prepare(rustix::net::socket(family, kind, None)?)?;
    Ok(fd)
}

/// The next connection of listener `fd`, as [`socket`] makes sockets.
pub fn accept(fd: std::os::fd::BorrowedFd<'_>) -> Result<OwnedFd> {
    #[cfg(target_os = "linux")]
    let fd = rustix::net::accept_with(fd, rustix::net::SocketFlags::NONBLOCK | rustix::net::SocketFlags::CLOEXEC)?;
    #[cfg(not(target_os = "linux"))]
    let fd = prepare(rustix::net::accept(fd)?)?;
    Ok(fd)
}

/// Sets what Linux sets atomically at creation.
#[cfg(not(target_os = "linux"))]
fn prepare(fd: OwnedFd) -> Result<OwnedFd> {
    use std::os::fd::AsRawFd;
    let raw = fd.as_raw_fd();
    let on: libc::c_int = 1;
    // SAFETY: plain fcntl and setsockopt calls on our descriptor, from a
    // local int of the length given.
    let ok = unsafe {
        libc::fcntl(raw, libc::F_SETFD, libc::FD_CLOEXEC) == 0
            && libc::fcntl(raw, libc::F_SETFL, libc::fcntl(raw, libc::F_GETFL) | libc::O_NONBLOCK) == 0
            && libc::setsockopt(
                raw,
                libc::SOL_SOCKET,
                libc::SO_NOSIGPIPE,
                (&on as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            ) == 0
    };
    if ok {
        Ok(fd)
    } else {
        Err(Errno::from_io_error(&std::io::Error::last_os_error()).unwrap_or(Errno::IO))
    }
}

/// Receive flags that make a datagram's whole size the result.
#[cfg(target_os = "linux")]
pub const RECV_WHOLE_SIZE: RecvFlags = RecvFlags::TRUNC;
/// macOS has no `MSG_TRUNC` on receive: the size received is reported.
#[cfg(not(target_os = "linux"))]
pub const RECV_WHOLE_SIZE: RecvFlags = RecvFlags::empty();

/// Send flags that keep `SIGPIPE` away (on macOS the socket's option does).
#[cfg(target_os = "linux")]
pub const SEND_FLAGS: SendFlags = SendFlags::NOSIGNAL;
#[cfg(not(target_os = "linux"))]
pub const SEND_FLAGS: SendFlags = SendFlags::empty();

/// `TCP_QUICKACK`.
#[cfg(target_os = "linux")]
pub use rustix::net::sockopt::{set_tcp_quickack, tcp_quickack};

/// `TCP_QUICKACK`: Linux only.
#[cfg(not(target_os = "linux"))]
pub fn tcp_quickack(_: &Socket) -> Result<bool> {
    Err(Errno::NOPROTOOPT)
}

/// Sets `TCP_QUICKACK`: Linux only.
#[cfg(not(target_os = "linux"))]
pub fn set_tcp_quickack(_: &Socket, _: bool) -> Result<()> {
    Err(Errno::NOPROTOOPT)
}

/// The `TCP_FASTOPEN_CONNECT` option's number, where the host has it.
#[cfg(target_os = "linux")]
pub const TCP_FASTOPEN_CONNECT: Option<libc::c_int> = Some(libc::TCP_FASTOPEN_CONNECT);
#[cfg(not(target_os = "linux"))]
pub const TCP_FASTOPEN_CONNECT: Option<libc::c_int> = None;
