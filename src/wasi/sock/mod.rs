//! Sockets: preview 1's `sock_accept`, `sock_recv`, `sock_send` and
//! `sock_shutdown`, and the rest of WAMR's socket extension
//! (`wasi_socket_ext.h`, which guests link from WAMR's lib-socket): opening,
//! binding, connecting and listening, datagrams, addresses, name lookup and
//! socket options, all under `wasi_snapshot_preview1`.
//!
//! A guest socket is an fd of the guest's table like any other ([`Socket`]
//! in `Kind::Socket`), so `fd_read`, `fd_write`, `fd_close`,
//! `fd_fdstat_get`/`_set_flags` and `poll_oneoff` work on it too, and it is
//! closed when its fd is, or when the context (the instance, or the last
//! thread of a program) goes. Where it may go is the context's
//! [`NetPolicy`] (`addr_pool`): a bind, connect or send to an address
//! outside the pool answers `EACCES` before anything is sent, as in WAMR.
//!
//! One file per concept: the address records in guest memory (`addr`), the
//! pool (`addr_pool`), waiting for a blocking call (`wait`), data (`io`),
//! options (`options`), name lookup (`resolve`); opening, binding,
//! connecting, listening, accepting and closing here.
//!
//! Where WAMR and the WASI specification differ, the notes say which is
//! followed: `sock_shutdown` honours `how` (WAMR always shuts both ways);
//! `sock_close`, which WAMR answers with `ENOSYS`, closes a socket as
//! `wasi_socket_ext.h` documents it; a `listen` on a socket never bound
//! (which binds it to every interface) needs the pool to allow the
//! unspecified address; unknown families, types and flag bits are `EINVAL`
//! (WAMR takes any family but IPv6 for IPv4, any type but datagram for
//! stream). A bad pointer is `EFAULT`, as everywhere in our WASI (WAMR
//! answers `EINVAL`, or traps for pointers its signature checks).

mod addr;
mod addr_pool;
mod host;
mod io;
mod options;
mod resolve;
mod wait;

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use rustix::net::sockopt::{self, Timeout};
use rustix::net::{AddressFamily, SocketType};

pub use addr_pool::{AddrPoolEntry, AddrPoolError, NetPolicy};
pub(crate) use io::{read, write};
pub use io::{sock_recv, sock_recv_from, sock_send, sock_send_to};
pub use options::*;
pub use resolve::sock_addr_resolve;

use super::ctx::{EntryRef, Kind, WasiCtx};
use super::guest::GuestMemory;
use super::types::{fdflags, filetype, rights, sdflags, Errno, WasiResult};
use wait::{Ready, Waiter};

/// A guest socket: the host socket, always non-blocking on the host (see
/// `wait`), whether it is a stream, its timeouts (kept here as well as in
/// the kernel, which cannot apply them to a non-blocking socket), and
/// whether its last receive had to wait (see `io`).
pub(crate) struct Socket {
    fd: OwnedFd,
    stream: bool,
    /// `SO_RCVTIMEO` and `SO_SNDTIMEO` in microseconds, 0 for none.
    recv_timeout: AtomicU64,
    send_timeout: AtomicU64,
    waited: AtomicBool,
}

impl Socket {
    fn new(fd: OwnedFd, stream: bool) -> Socket {
        Socket {
            fd,
            stream,
            recv_timeout: AtomicU64::new(0),
            send_timeout: AtomicU64::new(0),
            waited: AtomicBool::new(false),
        }
    }

    /// The WASI file type.
    pub fn filetype(&self) -> u8 {
        if self.stream {
            filetype::SOCKET_STREAM
        } else {
            filetype::SOCKET_DGRAM
        }
    }

    fn timeout_cell(&self, id: Timeout) -> &AtomicU64 {
        match id {
            Timeout::Recv => &self.recv_timeout,
            Timeout::Send => &self.send_timeout,
        }
    }

    /// The socket's receive or send timeout.
    fn timeout(&self, id: Timeout) -> Option<Duration> {
        let us = self.timeout_cell(id).load(Ordering::Relaxed);
        (us != 0).then(|| Duration::from_micros(us))
    }

    /// Sets a timeout, in the kernel (so that it reads back as the kernel
    /// keeps it) and here.
    fn set_timeout(&self, id: Timeout, t: Option<Duration>) -> rustix::io::Result<()> {
        sockopt::set_socket_timeout(&self.fd, id, t)?;
        let us = t.map_or(0, |t| u64::try_from(t.as_micros()).unwrap_or(u64::MAX).max(1));
        self.timeout_cell(id).store(us, Ordering::Relaxed);
        Ok(())
    }
}

impl AsFd for Socket {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

/// Rights of a socket fd: reading and writing (also through `sock_recv`
/// and `sock_send`), its flags, stat, polling, shutting down and
/// accepting. WAMR's own right bits for the extension's calls reuse
/// numbers preview 1 gives other meanings, so those calls need no right
/// beyond the fd being a socket.
const SOCKET_RIGHTS: u64 = rights::FD_READ
    | rights::FD_WRITE
    | rights::FD_FDSTAT_SET_FLAGS
    | rights::FD_FILESTAT_GET
    | rights::POLL_FD_READWRITE
    | rights::SOCK_SHUTDOWN
    | rights::SOCK_ACCEPT;

/// The errno of a failed host call.
fn os(e: rustix::io::Errno) -> Errno {
    Errno::from_raw_os(e.raw_os_error())
}

/// The socket behind `e`: `ENOTSOCK` for any other kind of fd.
fn socket<'a>(e: &'a EntryRef<'_>) -> WasiResult<&'a Socket> {
    match &e.kind {
        Kind::Socket(s) => Ok(s),
        _ => Err(Errno::Notsock),
    }
}

/// The open socket `fd` with `needed` rights: `EBADF`, then `ENOTSOCK` for
/// any other kind of fd, then `ENOTCAPABLE`.
fn entry(cx: &WasiCtx, fd: u32, needed: u64) -> WasiResult<EntryRef<'_>> {
    let e = cx.get(fd, 0)?;
    socket(&e)?;
    if e.base() & needed != needed {
        return Err(Errno::Notcapable);
    }
    Ok(e)
}

/// Whether the guest set `NONBLOCK` on the fd.
fn nonblocking(e: &EntryRef<'_>) -> bool {
    e.stream_flags() & fdflags::NONBLOCK != 0
}

/// Puts a new socket in the table, with the guest's `fdflags` (only
/// `NONBLOCK` means anything for a socket).
fn insert(cx: &mut WasiCtx, sock: Socket, flags: u16) -> WasiResult<u32> {
    let entry = WasiCtx::opened(Kind::Socket(sock), SOCKET_RIGHTS, SOCKET_RIGHTS);
    entry.set_stream_flags(flags & fdflags::NONBLOCK);
    cx.insert(entry)
}

/// The `fdflags` a guest may give a socket it accepts.
fn accept_flags(flags: u32) -> WasiResult<u16> {
    let flags = u16::try_from(flags).map_err(|_| Errno::Inval)?;
    let known = fdflags::APPEND | fdflags::DSYNC | fdflags::NONBLOCK | fdflags::RSYNC | fdflags::SYNC;
    if flags & !known != 0 {
        return Err(Errno::Inval);
    }
    Ok(flags)
}

/// Checks `addr` against the pool: `EACCES` outside it, as WAMR answers.
fn allowed(cx: &WasiCtx, addr: &SocketAddr) -> WasiResult {
    if cx.net.allows(addr.ip()) {
        Ok(())
    } else {
        Err(Errno::Acces)
    }
}

/// `sock_open(poolfd, af, socktype, *fd)`: a new socket. The pool fd is
/// the extension's placeholder (`-1` from lib-socket) and is ignored, as
/// WAMR ignores it; sockets need no pool to exist, only to bind or
/// connect.
pub fn sock_open(cx: &mut WasiCtx, mem: &mut GuestMemory<'_>, _poolfd: u32, af: u32, ty: u32, out: u32) -> WasiResult {
    mem.check_array(out, 1, 4)?;
    let family = match af {
        0 => AddressFamily::INET,
        1 => AddressFamily::INET6,
        _ => return Err(Errno::Afnosupport),
    };
    let (kind, stream) = match ty {
        0 => (SocketType::DGRAM, false),
        1 => (SocketType::STREAM, true),
        _ => return Err(Errno::Inval),
    };
    let fd = host::socket(family, kind).map_err(os)?;
    let new = insert(cx, Socket::new(fd, stream), 0)?;
    mem.write_u32(out, new)
}

/// `sock_bind(fd, *addr)`: the address must be in the pool.
pub fn sock_bind(cx: &mut WasiCtx, mem: &mut GuestMemory<'_>, fd: u32, addr: u32) -> WasiResult {
    let addr = addr::read_addr(mem, addr)?;
    allowed(cx, &addr)?;
    let e = entry(cx, fd, 0)?;
    rustix::net::bind(socket(&e)?.fd.as_fd(), &addr).map_err(os)
}

/// `sock_connect(fd, *addr)`: the address must be in the pool; a blocking
/// socket waits for the connection (a stop ends the wait).
pub fn sock_connect(cx: &mut WasiCtx, mem: &mut GuestMemory<'_>, fd: u32, addr: u32) -> WasiResult {
    let addr = addr::read_addr(mem, addr)?;
    allowed(cx, &addr)?;
    let e = entry(cx, fd, 0)?;
    let sock = socket(&e)?;
    match rustix::net::connect(sock.fd.as_fd(), &addr) {
        Ok(()) => Ok(()),
        Err(rustix::io::Errno::INPROGRESS) if !nonblocking(&e) => wait::connected(sock),
        Err(err) => Err(os(err)),
    }
}

/// `sock_listen(fd, backlog)`. A socket never bound would listen on every
/// interface: the pool must allow its family's unspecified address.
pub fn sock_listen(cx: &mut WasiCtx, _mem: &mut GuestMemory<'_>, fd: u32, backlog: u32) -> WasiResult {
    let e = entry(cx, fd, 0)?;
    let sock = socket(&e)?;
    let local = local_addr(sock)?;
    if local.port() == 0 {
        let any = if local.is_ipv4() { IpAddr::V4(Ipv4Addr::UNSPECIFIED) } else { IpAddr::V6(Ipv6Addr::UNSPECIFIED) };
        allowed(cx, &SocketAddr::new(any, 0))?;
    }
    let backlog = i32::try_from(backlog).unwrap_or(i32::MAX);
    rustix::net::listen(sock.fd.as_fd(), backlog).map_err(os)
}

/// `sock_accept(fd, flags, *fd_new)`: the next connection, as a socket
/// with `flags` (`NONBLOCK`); a blocking socket waits for one.
pub fn sock_accept(cx: &mut WasiCtx, mem: &mut GuestMemory<'_>, fd: u32, flags: u32, out: u32) -> WasiResult {
    mem.check_array(out, 1, 4)?;
    let flags = accept_flags(flags)?;
    let e = entry(cx, fd, rights::SOCK_ACCEPT)?;
    let sock = socket(&e)?;
    let mut waiter = Waiter::new(sock, nonblocking(&e), Ready::Read);
    let fd = waiter.retry(|| host::accept(sock.fd.as_fd()))?;
    // The connection inherits the listener's timeouts, in the kernel too.
    let accepted = Socket::new(fd, sock.stream);
    for id in [Timeout::Recv, Timeout::Send] {
        accepted.timeout_cell(id).store(sock.timeout_cell(id).load(Ordering::Relaxed), Ordering::Relaxed);
    }
    drop(e);
    let new = insert(cx, accepted, flags)?;
    mem.write_u32(out, new)
}

/// `sock_shutdown(fd, how)`: `how` is `RD`, `WR` or both.
pub fn sock_shutdown(cx: &mut WasiCtx, _mem: &mut GuestMemory<'_>, fd: u32, how: u32) -> WasiResult {
    let e = entry(cx, fd, rights::SOCK_SHUTDOWN)?;
    let how = match how {
        h if h == u32::from(sdflags::RD) => rustix::net::Shutdown::Read,
        h if h == u32::from(sdflags::WR) => rustix::net::Shutdown::Write,
        h if h == u32::from(sdflags::RD | sdflags::WR) => rustix::net::Shutdown::Both,
        _ => return Err(Errno::Inval),
    };
    rustix::net::shutdown(socket(&e)?.fd.as_fd(), how).map_err(os)
}

/// `sock_close(fd)`: closes a socket (`ENOTSOCK` for other fds).
pub fn sock_close(cx: &mut WasiCtx, _mem: &mut GuestMemory<'_>, fd: u32) -> WasiResult {
    drop(entry(cx, fd, 0)?);
    cx.remove(fd)
}

/// The address the socket is bound to (the unspecified address and port 0
/// when it is not).
fn local_addr(sock: &Socket) -> WasiResult<SocketAddr> {
    let any = rustix::net::getsockname(sock.fd.as_fd()).map_err(os)?;
    SocketAddr::try_from(any).map_err(|_| Errno::Afnosupport)
}

/// `sock_addr_local(fd, *addr)`.
pub fn sock_addr_local(cx: &mut WasiCtx, mem: &mut GuestMemory<'_>, fd: u32, out: u32) -> WasiResult {
    mem.check_array(out, 1, addr::ADDR_SIZE)?;
    let e = entry(cx, fd, 0)?;
    let addr = local_addr(socket(&e)?)?;
    addr::write_addr(mem, out, addr)
}

/// `sock_addr_remote(fd, *addr)`: `ENOTCONN` when not connected.
pub fn sock_addr_remote(cx: &mut WasiCtx, mem: &mut GuestMemory<'_>, fd: u32, out: u32) -> WasiResult {
    mem.check_array(out, 1, addr::ADDR_SIZE)?;
    let e = entry(cx, fd, 0)?;
    let peer = rustix::net::getpeername(socket(&e)?.fd.as_fd()).map_err(os)?.ok_or(Errno::Notconn)?;
    let addr = SocketAddr::try_from(peer).map_err(|_| Errno::Afnosupport)?;
    addr::write_addr(mem, out, addr)
}
