//! `sock_addr_resolve`: name lookup, for names the context's allow list
//! (`--allow-resolve`) has, with the host's resolver (`getaddrinfo`, as
//! WAMR: neither rustix nor socket2 resolves names, and std's resolver
//! fixes the socket type and takes only numeric services).
//!
//! A lookup may wait on the network for seconds, so it runs on a thread of
//! its own while the guest's thread waits for it in `blocking::poll`: a
//! stop of the guest's call ends the wait, and the lookup finishes (and is
//! dropped) on its own.

use std::ffi::{CStr, CString};
use std::io::{Read, Write};
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;

use super::super::guest::GuestMemory;
use super::super::types::{Errno, WasiResult};
use super::addr::{addr_bytes, ADDR_INFO_SIZE, ADDR_SIZE};
use crate::runtime::vm::blocking::{self, Polled};
use crate::wasi::ctx::WasiCtx;

/// `sizeof(__wasi_addr_info_hints_t)`: type, family, a flag, padding.
const HINTS_SIZE: u32 = 12;
/// `__wasi_sock_type_t` of a result.
const SOCKET_DGRAM: u32 = 0;
const SOCKET_STREAM: u32 = 1;

/// What to look up, as `getaddrinfo` takes it.
struct Query {
    host: CString,
    service: Option<CString>,
    /// `ai_family` and `ai_socktype` hints; `None` for no hints.
    hints: Option<(i32, i32)>,
}

/// One result: an address and whether it is for a stream socket.
type Found = (SocketAddr, bool);

/// The hints of the `__wasi_addr_info_hints_t` at `ptr`.
fn read_hints(mem: &GuestMemory<'_>, ptr: u32) -> WasiResult<Option<(i32, i32)>> {
    let b = mem.slice(ptr, HINTS_SIZE)?;
    let ty = i32::from_le_bytes(b[0..4].try_into().expect("4 bytes"));
    let family = i32::from_le_bytes(b[4..8].try_into().expect("4 bytes"));
    if b[8] == 0 {
        return Ok(None);
    }
    let socktype = match ty {
        -1 => 0,
        0 => libc::SOCK_DGRAM,
        1 => libc::SOCK_STREAM,
        _ => return Err(Errno::Inval),
    };
    let family = match family {
        0 => libc::AF_INET,
        1 => libc::AF_INET6,
        2 => libc::AF_UNSPEC,
        _ => return Err(Errno::Inval),
    };
    // Both unconstrained is no hints at all, as WAMR passes them.
    Ok((socktype != 0 || family != libc::AF_UNSPEC).then_some((family, socktype)))
}

/// The errno of a `getaddrinfo` failure, as WAMR maps them.
fn gai_errno(code: i32) -> Errno {
    match code {
        libc::EAI_AGAIN => Errno::Again,
        libc::EAI_MEMORY => Errno::Nomem,
        libc::EAI_SYSTEM => std::io::Error::last_os_error().into(),
        _ => Errno::Inval,
    }
}

/// The socket address a resolver result points at, if it is IPv4 or IPv6.
///
/// # Safety
/// `ai` is an entry of a list `getaddrinfo` returned and not yet freed.
unsafe fn found(ai: &libc::addrinfo) -> Option<Found> {
    let stream = match (ai.ai_socktype, ai.ai_protocol) {
        (libc::SOCK_STREAM, 0 | libc::IPPROTO_TCP) => true,
        (libc::SOCK_DGRAM, 0 | libc::IPPROTO_UDP) => false,
        _ => return None,
    };
    let addr = match ai.ai_family {
        libc::AF_INET if ai.ai_addrlen as usize >= std::mem::size_of::<libc::sockaddr_in>() => {
            // SAFETY: the resolver's address of the family and length
            // checked (caller).
            let sin = unsafe { std::ptr::read_unaligned(ai.ai_addr.cast::<libc::sockaddr_in>()) };
            let ip = Ipv4Addr::from(u32::from_be(sin.sin_addr.s_addr));
            SocketAddr::V4(SocketAddrV4::new(ip, u16::from_be(sin.sin_port)))
        }
        libc::AF_INET6 if ai.ai_addrlen as usize >= std::mem::size_of::<libc::sockaddr_in6>() => {
            // SAFETY: as above.
            let sin6 = unsafe { std::ptr::read_unaligned(ai.ai_addr.cast::<libc::sockaddr_in6>()) };
            let ip = Ipv6Addr::from(sin6.sin6_addr.s6_addr);
            SocketAddr::V6(SocketAddrV6::new(ip, u16::from_be(sin6.sin6_port), sin6.sin6_flowinfo, sin6.sin6_scope_id))
        }
        _ => return None,
    };
    Some((addr, stream))
}

/// `getaddrinfo`: the IPv4 and IPv6, stream and datagram results.
fn getaddrinfo(q: &Query) -> WasiResult<Vec<Found>> {
    // SAFETY: an all-zero addrinfo is the "no constraint" hints value.
    let mut hints: libc::addrinfo = unsafe { std::mem::zeroed() };
    if let Some((family, socktype)) = q.hints {
        hints.ai_family = family;
        hints.ai_socktype = socktype;
    }
    let hints_ptr = if q.hints.is_some() { &hints as *const libc::addrinfo } else { std::ptr::null() };
    let service = q.service.as_deref().map_or(std::ptr::null(), CStr::as_ptr);
    let mut list: *mut libc::addrinfo = std::ptr::null_mut();
    // SAFETY: NUL-terminated strings (or NULL service), hints or NULL, and
    // an out pointer, all living across the call.
    let code = unsafe { libc::getaddrinfo(q.host.as_ptr(), service, hints_ptr, &mut list) };
    if code != 0 {
        return Err(gai_errno(code));
    }
    let mut out = Vec::new();
    let mut at = list;
    while !at.is_null() {
        // SAFETY: an entry of the list just returned, freed below.
        let ai = unsafe { &*at };
        // SAFETY: as above.
        out.extend(unsafe { found(ai) });
        at = ai.ai_next;
    }
    // SAFETY: the list getaddrinfo returned, freed once.
    unsafe { libc::freeaddrinfo(list) };
    Ok(out)
}

/// Runs the lookup on a thread of its own (see the module documentation).
fn lookup(q: Query) -> WasiResult<Vec<Found>> {
    let (mut done, signal) = UnixStream::pair()?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new().name("wasi-resolve".into()).spawn(move || {
        // Nobody may be waiting any more: then both sends just fail.
        let _ = tx.send(getaddrinfo(&q));
        let _ = (&signal).write_all(&[1]);
    })?;
    let mut fds = [libc::pollfd { fd: done.as_raw_fd(), events: libc::POLLIN, revents: 0 }];
    match blocking::poll(&mut fds, None)? {
        Polled::Stopped(_) => return Err(Errno::Intr),
        Polled::Ready(_) => {}
    }
    let mut byte = [0u8; 1];
    let _ = done.read(&mut byte);
    rx.recv().map_err(|_| Errno::Io)?
}

/// `sock_addr_resolve(host, service, *hints, *info, info_len, *found)`:
/// `host` and `service` are NUL-terminated; up to `info_len` results are
/// written (`__wasi_addr_info_t`), and how many there are to `*found`. A
/// name outside the allow list is `EACCES`, without any lookup.
#[allow(clippy::too_many_arguments)]
pub fn sock_addr_resolve(
    cx: &mut WasiCtx,
    mem: &mut GuestMemory<'_>,
    host: u32,
    service: u32,
    hints: u32,
    info: u32,
    info_len: u32,
    found_out: u32,
) -> WasiResult {
    let host = mem.cstr(host)?.to_vec();
    let service = mem.cstr(service)?.to_vec();
    let hints = read_hints(mem, hints)?;
    mem.check_array(info, info_len, ADDR_INFO_SIZE)?;
    mem.check_array(found_out, 1, 4)?;
    if !cx.net.may_resolve(&host) {
        return Err(Errno::Acces);
    }
    let q = Query {
        host: CString::new(host).map_err(|_| Errno::Inval)?,
        service: (!service.is_empty()).then(|| CString::new(service)).transpose().map_err(|_| Errno::Inval)?,
        hints,
    };
    let results = lookup(q)?;
    for (i, (addr, stream)) in results.iter().take(info_len as usize).enumerate() {
        let at = info + i as u32 * ADDR_INFO_SIZE;
        mem.write(at, &addr_bytes(*addr))?;
        let ty = if *stream { SOCKET_STREAM } else { SOCKET_DGRAM };
        mem.write_u32(at + ADDR_SIZE, ty)?;
    }
    mem.write_u32(found_out, u32::try_from(results.len()).unwrap_or(u32::MAX))
}
