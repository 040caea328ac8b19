//! Data on sockets: `sock_recv`, `sock_recv_from`, `sock_send`,
//! `sock_send_to`, and `fd_read`/`fd_write` on a socket fd.
//!
//! A receive reads one message into one buffer: the guest's own when it
//! passes one iovec (what wasi-libc's `recv` and `read` do), else a host
//! buffer scattered into its iovecs afterwards, so a datagram is never
//! split over calls and iovecs that overlap behave as the kernel's would.
//! A send gathers up to [`MAX_IOVS`] iovecs in place (more are copied into
//! one buffer first). Sends never raise `SIGPIPE` in the host: a closed
//! peer is `EPIPE`.
//!
//! Blocking follows the kernel's rules for a blocking socket, through
//! `wait` (so a stop ends the wait): a receive waits for data, a stream
//! send waits until all of it is queued (or the send timeout passes: then
//! what was queued is the result).

use std::io::IoSlice;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;

use rustix::net::{RecvFlags, SendAncillaryBuffer};

use super::super::guest::GuestMemory;
use super::super::types::{rights, Errno, WasiResult};
use super::wait::{Ready, Waiter};
use super::{addr, allowed, entry, nonblocking, socket, Socket};
use crate::wasi::ctx::WasiCtx;

/// Iovecs handed to the kernel as they are.
const MAX_IOVS: usize = 16;

/// `riflags`: look without taking; wait for the whole buffer.
const RECV_PEEK: u32 = 1;
const RECV_WAITALL: u32 = 2;
/// `roflags`: a datagram was longer than the buffers.
const RECV_DATA_TRUNCATED: u16 = 1;

/// The byte range of a checked iovec, summed in `usize` (one may end at
/// exactly 4 GiB).
fn span(buf: u32, len: u32) -> std::ops::Range<usize> {
    buf as usize..buf as usize + len as usize
}

/// How to receive, for `riflags` (and whether the sender is wanted).
fn recv_how(ri: u32, from: bool) -> WasiResult<How> {
    if ri & !(RECV_PEEK | RECV_WAITALL) != 0 {
        return Err(Errno::Inval);
    }
    let flags = if ri & RECV_PEEK != 0 { RecvFlags::PEEK } else { RecvFlags::empty() };
    Ok(How { flags, waitall: ri & RECV_WAITALL != 0, from })
}

/// What a receive got.
struct Received {
    bytes: usize,
    truncated: bool,
    from: Option<SocketAddr>,
}

/// How to receive: the host flags, whether to fill the whole buffer of a
/// stream (`RECV_WAITALL`), whether the sender's address is wanted.
struct How {
    flags: RecvFlags,
    waitall: bool,
    from: bool,
}

/// One receive into `buf` (`recv`/`recvfrom`, which cost the kernel less
/// than `recvmsg`): the bytes stored, the datagram's whole size, and the
/// sender's address if asked for.
fn recv_once(sock: &Socket, buf: &mut [u8], how: &How) -> rustix::io::Result<(usize, usize, Option<SocketAddr>)> {
    // A datagram's whole size tells whether it was cut short; on a stream
    // TRUNC would discard data instead.
    let flags = if sock.stream { how.flags } else { how.flags | super::host::RECV_WHOLE_SIZE };
    if how.from {
        let (n, whole, addr) = rustix::net::recvfrom(&sock.fd, buf, flags)?;
        Ok((n, whole, addr.and_then(|a| SocketAddr::try_from(a).ok())))
    } else {
        let (n, whole) = rustix::net::recv(&sock.fd, buf, flags)?;
        Ok((n, whole, None))
    }
}

/// Receives into `buf`: one message, or with `waitall` on a stream, until
/// `buf` is full, the peer is done, or an error after some data.
///
/// A receive that found nothing and waited, and then did not fill its
/// buffer, makes the next one wait before it tries: a guest exchanging
/// messages one at a time (a request, its answer) would otherwise pay for
/// a try that fails on every message.
fn recv_into(sock: &Socket, waiter: &mut Waiter<'_>, buf: &mut [u8], how: &How) -> WasiResult<Received> {
    let mut got = Received { bytes: 0, truncated: false, from: None };
    waiter.wait_first(sock.waited.load(Ordering::Relaxed));
    let result = loop {
        let (n, whole, from) = match waiter.retry(|| recv_once(sock, &mut buf[got.bytes..], how)) {
            Ok(r) => r,
            Err(_) if got.bytes > 0 => break Ok(()),
            Err(e) => break Err(e),
        };
        got.bytes += n;
        got.truncated |= whole > n;
        got.from = got.from.or(from);
        if !how.waitall || !sock.stream || n == 0 || got.bytes == buf.len() {
            break Ok(());
        }
    };
    sock.waited.store(waiter.waited() && got.bytes < buf.len(), Ordering::Relaxed);
    result.map(|()| got)
}

/// Receives into the guest's iovecs at `iovs` (checked before anything is
/// read).
fn receive(
    sock: &Socket,
    nonblocking: bool,
    mem: &mut GuestMemory<'_>,
    iovs: u32,
    n: u32,
    how: How,
) -> WasiResult<Received> {
    let mut it = mem.iovecs(iovs, n)?;
    let mut first = None;
    let mut total = 0usize;
    let mut count = 0;
    while let Some((buf, len)) = it.next(mem) {
        if len > 0 {
            first = first.or(Some((buf, len)));
            total += len as usize;
            count += 1;
        }
    }
    let mut waiter = Waiter::new(sock, nonblocking, Ready::Read);
    match (count, first) {
        (0, _) | (_, None) => recv_into(sock, &mut waiter, &mut [], &how),
        (1, Some((buf, len))) => recv_into(sock, &mut waiter, &mut mem.bytes_mut()[span(buf, len)], &how),
        _ => {
            let mut bounce = vec![0u8; total];
            let got = recv_into(sock, &mut waiter, &mut bounce, &how)?;
            let mut data = &bounce[..got.bytes.min(total)];
            let mut it = mem.iovecs(iovs, n)?;
            while let Some((buf, len)) = it.next(mem) {
                if data.is_empty() {
                    break;
                }
                let take = data.len().min(len as usize);
                mem.bytes_mut()[buf as usize..buf as usize + take].copy_from_slice(&data[..take]);
                data = &data[take..];
            }
            Ok(got)
        }
    }
}

/// Sends the guest's iovecs, to `to` when given: all of them on a blocking
/// stream socket (as the kernel's blocking send does), else what one call
/// takes.
fn send(
    sock: &Socket,
    nonblocking: bool,
    mem: &GuestMemory<'_>,
    iovs: u32,
    n: u32,
    to: Option<SocketAddr>,
) -> WasiResult<usize> {
    let mut it = mem.iovecs(iovs, n)?;
    let bytes = mem.bytes();
    // Past MAX_IOVS (rare), everything is gathered into one buffer, so
    // that a datagram still leaves in one piece.
    let mut bounce = Vec::new();
    let mut slices = [IoSlice::new(&[]); MAX_IOVS];
    let mut count = 0;
    let mut total = 0usize;
    while let Some((buf, len)) = it.next(mem) {
        if len == 0 {
            continue;
        }
        let data = &bytes[span(buf, len)];
        if count < MAX_IOVS {
            slices[count] = IoSlice::new(data);
            count += 1;
        } else {
            if bounce.is_empty() {
                slices.iter().for_each(|s| bounce.extend_from_slice(s));
            }
            bounce.extend_from_slice(data);
        }
        total += len as usize;
    }
    let mut parts: &mut [IoSlice<'_>] = if bounce.is_empty() {
        &mut slices[..count]
    } else {
        slices[0] = IoSlice::new(&bounce);
        &mut slices[..1]
    };
    let mut waiter = Waiter::new(sock, nonblocking, Ready::Write);
    let mut sent = 0;
    loop {
        let result = waiter.retry(|| send_once(sock, parts, to.as_ref()));
        let now = match result {
            Ok(now) => now,
            // What was queued before a timeout or an error is the result.
            Err(_) if sent > 0 => return Ok(sent),
            Err(e) => return Err(e),
        };
        sent += now;
        if nonblocking || !sock.stream || sent >= total {
            return Ok(sent);
        }
        IoSlice::advance_slices(&mut parts, now);
    }
}

/// One send of `parts` (`send`/`sendto` for one part, which cost the
/// kernel less than `sendmsg`), without `SIGPIPE`.
fn send_once(sock: &Socket, parts: &[IoSlice<'_>], to: Option<&SocketAddr>) -> rustix::io::Result<usize> {
    let flags = super::host::SEND_FLAGS;
    let control = &mut SendAncillaryBuffer::default();
    match (parts, to) {
        ([one], Some(addr)) => rustix::net::sendto(&sock.fd, one, flags, addr),
        ([one], None) => rustix::net::send(&sock.fd, one, flags),
        (_, Some(addr)) => rustix::net::sendmsg_addr(&sock.fd, addr, parts, control, flags),
        (_, None) => rustix::net::sendmsg(&sock.fd, parts, control, flags),
    }
}

/// `fd_read` of a socket: a receive without flags.
pub(crate) fn read(sock: &Socket, nonblocking: bool, mem: &mut GuestMemory<'_>, iovs: u32, n: u32) -> WasiResult<u32> {
    Ok(receive(sock, nonblocking, mem, iovs, n, recv_how(0, false)?)?.bytes as u32)
}

/// `fd_write` of a socket: a send without flags.
pub(crate) fn write(sock: &Socket, nonblocking: bool, mem: &GuestMemory<'_>, iovs: u32, n: u32) -> WasiResult<u32> {
    Ok(send(sock, nonblocking, mem, iovs, n, None)? as u32)
}

/// `sock_recv(fd, iovs, n, riflags, *nread, *roflags)`.
#[allow(clippy::too_many_arguments)]
pub fn sock_recv(
    cx: &mut WasiCtx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    iovs: u32,
    n: u32,
    flags: u32,
    nread_out: u32,
    roflags_out: u32,
) -> WasiResult {
    mem.check_array(nread_out, 1, 4)?;
    mem.check_array(roflags_out, 1, 2)?;
    let e = entry(cx, fd, rights::FD_READ)?;
    let got = receive(socket(&e)?, nonblocking(&e), mem, iovs, n, recv_how(flags, false)?)?;
    let roflags = if got.truncated { RECV_DATA_TRUNCATED } else { 0 };
    mem.write(roflags_out, &roflags.to_le_bytes())?;
    mem.write_u32(nread_out, got.bytes as u32)
}

/// `sock_recv_from(fd, iovs, n, riflags, *addr, *nread)`: also the sender's
/// address (all zeros when the socket has none to give, as WAMR writes).
#[allow(clippy::too_many_arguments)]
pub fn sock_recv_from(
    cx: &mut WasiCtx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    iovs: u32,
    n: u32,
    flags: u32,
    addr_out: u32,
    nread_out: u32,
) -> WasiResult {
    mem.check_array(addr_out, 1, addr::ADDR_SIZE)?;
    mem.check_array(nread_out, 1, 4)?;
    let e = entry(cx, fd, rights::FD_READ)?;
    let got = receive(socket(&e)?, nonblocking(&e), mem, iovs, n, recv_how(flags, true)?)?;
    match got.from {
        Some(from) => addr::write_addr(mem, addr_out, from)?,
        None => mem.write(addr_out, &[0; addr::ADDR_SIZE as usize])?,
    }
    mem.write_u32(nread_out, got.bytes as u32)
}

/// A send of the guest's iovecs, to `to` if given (which must be in the
/// pool: `EACCES`, and nothing is sent, if not), the count written to
/// `out`. Preview 1 defines no `siflags`.
#[allow(clippy::too_many_arguments)]
fn send_call(
    cx: &mut WasiCtx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    iovs: u32,
    n: u32,
    flags: u32,
    to: Option<SocketAddr>,
    out: u32,
) -> WasiResult {
    if flags != 0 {
        return Err(Errno::Inval);
    }
    if let Some(to) = &to {
        allowed(cx, to)?;
    }
    mem.check_array(out, 1, 4)?;
    let e = entry(cx, fd, rights::FD_WRITE)?;
    let sent = send(socket(&e)?, nonblocking(&e), mem, iovs, n, to)?;
    mem.write_u32(out, sent as u32)
}

/// `sock_send(fd, iovs, n, siflags, *nwritten)`.
pub fn sock_send(
    cx: &mut WasiCtx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    iovs: u32,
    n: u32,
    flags: u32,
    out: u32,
) -> WasiResult {
    send_call(cx, mem, fd, iovs, n, flags, None, out)
}

/// `sock_send_to(fd, iovs, n, siflags, *addr, *nwritten)`.
#[allow(clippy::too_many_arguments)]
pub fn sock_send_to(
    cx: &mut WasiCtx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    iovs: u32,
    n: u32,
    flags: u32,
    addr: u32,
    out: u32,
) -> WasiResult {
    let to = addr::read_addr(mem, addr)?;
    send_call(cx, mem, fd, iovs, n, flags, Some(to), out)
}
