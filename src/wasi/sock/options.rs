//! Socket options: each `sock_get_X(fd, *out)` and `sock_set_X(fd, value)`
//! pair of WAMR's socket extension, passed through to the host socket as
//! WAMR passes them (`posix_socket.c`), so a value reads back as the kernel
//! keeps it (Linux doubles buffer sizes, say). Values travel in guest
//! memory at the widths `wasi_socket_ext.h` gives them: a flag is one byte,
//! a size or a number of seconds four, a TTL one, a timeout eight
//! (microseconds, 0 for none).

use std::net::{IpAddr, Ipv4Addr};
use std::os::fd::{AsFd, AsRawFd};
use std::time::Duration;

use rustix::net::sockopt::{self, Timeout};

use super::super::guest::GuestMemory;
use super::super::types::{Errno, WasiResult};
use super::{addr, entry, host, os, socket, Socket};
use crate::wasi::ctx::WasiCtx;

/// How one kind of option value is passed: what the getter writes, and
/// what the setter's argument means.
trait Codec {
    /// The host's value.
    type Value;
    /// The setter's argument as the guest passes it.
    type Arg;
    /// Bytes the getter writes.
    const SIZE: u32;
    fn encode(v: Self::Value) -> Vec<u8>;
    fn decode(a: Self::Arg) -> WasiResult<Self::Value>;
}

/// On or off: one byte out; any non-zero argument is on.
struct Flag;
impl Codec for Flag {
    type Value = bool;
    type Arg = u32;
    const SIZE: u32 = 1;
    fn encode(v: bool) -> Vec<u8> {
        vec![u8::from(v)]
    }
    fn decode(a: u32) -> WasiResult<bool> {
        Ok(a != 0)
    }
}

/// A buffer size (`__wasi_size_t`).
struct Size;
impl Codec for Size {
    type Value = usize;
    type Arg = u32;
    const SIZE: u32 = 4;
    fn encode(v: usize) -> Vec<u8> {
        u32::try_from(v).unwrap_or(u32::MAX).to_le_bytes().to_vec()
    }
    fn decode(a: u32) -> WasiResult<usize> {
        Ok(a as usize)
    }
}

/// A number of seconds (the keep-alive times).
struct Seconds;
impl Codec for Seconds {
    type Value = Duration;
    type Arg = u32;
    const SIZE: u32 = 4;
    fn encode(v: Duration) -> Vec<u8> {
        u32::try_from(v.as_secs()).unwrap_or(u32::MAX).to_le_bytes().to_vec()
    }
    fn decode(a: u32) -> WasiResult<Duration> {
        Ok(Duration::from_secs(a.into()))
    }
}

/// A TTL: one byte (`uint8_t`); a wider argument is `EINVAL` rather than
/// cut to its low byte.
struct Ttl;
impl Codec for Ttl {
    type Value = u32;
    type Arg = u32;
    const SIZE: u32 = 1;
    fn encode(v: u32) -> Vec<u8> {
        vec![u8::try_from(v).unwrap_or(u8::MAX)]
    }
    fn decode(a: u32) -> WasiResult<u32> {
        u8::try_from(a).map(u32::from).map_err(|_| Errno::Inval)
    }
}

/// A timeout in microseconds, 0 for none.
struct Micros;
impl Codec for Micros {
    type Value = Option<Duration>;
    type Arg = u64;
    const SIZE: u32 = 8;
    fn encode(v: Option<Duration>) -> Vec<u8> {
        let us = v.map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX));
        us.to_le_bytes().to_vec()
    }
    fn decode(a: u64) -> WasiResult<Option<Duration>> {
        Ok((a != 0).then(|| Duration::from_micros(a)))
    }
}

/// Defines `$get(fd, *out)` and `$set(fd, value: $arg)` over a host getter
/// and setter, with the value passed as `$codec` says (`$arg` is its
/// `Codec::Arg`).
macro_rules! options {
    ($($get:ident / $set:ident: $codec:ident($arg:ty) => $read:expr, $write:expr;)*) => {$(
        #[doc = concat!("`", stringify!($get), "(fd, *out)`.")]
        pub fn $get(cx: &mut WasiCtx, mem: &mut GuestMemory<'_>, fd: u32, out: u32) -> WasiResult {
            mem.check_array(out, 1, $codec::SIZE)?;
            let e = entry(cx, fd, 0)?;
            let v: <$codec as Codec>::Value = ($read)(socket(&e)?).map_err(os)?;
            mem.write(out, &$codec::encode(v))
        }

        #[doc = concat!("`", stringify!($set), "(fd, value)`.")]
        pub fn $set(cx: &mut WasiCtx, _mem: &mut GuestMemory<'_>, fd: u32, v: $arg) -> WasiResult {
            let e = entry(cx, fd, 0)?;
            let v = $codec::decode(v)?;
            ($write)(socket(&e)?, v).map_err(os)
        }
    )*};
}

options! {
    sock_get_keep_alive / sock_set_keep_alive: Flag(u32) => sockopt::socket_keepalive, sockopt::set_socket_keepalive;
    sock_get_reuse_addr / sock_set_reuse_addr: Flag(u32) => sockopt::socket_reuseaddr, sockopt::set_socket_reuseaddr;
    sock_get_reuse_port / sock_set_reuse_port: Flag(u32) => sockopt::socket_reuseport, sockopt::set_socket_reuseport;
    sock_get_broadcast / sock_set_broadcast: Flag(u32) => sockopt::socket_broadcast, sockopt::set_socket_broadcast;
    sock_get_tcp_no_delay / sock_set_tcp_no_delay: Flag(u32) => sockopt::tcp_nodelay, sockopt::set_tcp_nodelay;
    sock_get_tcp_quick_ack / sock_set_tcp_quick_ack: Flag(u32) => host::tcp_quickack, host::set_tcp_quickack;
    sock_get_ipv6_only / sock_set_ipv6_only: Flag(u32) => sockopt::ipv6_v6only, sockopt::set_ipv6_v6only;
    sock_get_tcp_fastopen_connect / sock_set_tcp_fastopen_connect: Flag(u32) => fastopen_connect, set_fastopen_connect;
    sock_get_recv_buf_size / sock_set_recv_buf_size: Size(u32) =>
        sockopt::socket_recv_buffer_size, sockopt::set_socket_recv_buffer_size;
    sock_get_send_buf_size / sock_set_send_buf_size: Size(u32) =>
        sockopt::socket_send_buffer_size, sockopt::set_socket_send_buffer_size;
    sock_get_tcp_keep_idle / sock_set_tcp_keep_idle: Seconds(u32) => sockopt::tcp_keepidle, sockopt::set_tcp_keepidle;
    sock_get_tcp_keep_intvl / sock_set_tcp_keep_intvl: Seconds(u32) => sockopt::tcp_keepintvl, sockopt::set_tcp_keepintvl;
    sock_get_ip_ttl / sock_set_ip_ttl: Ttl(u32) => sockopt::ip_ttl, sockopt::set_ip_ttl;
    sock_get_ip_multicast_ttl / sock_set_ip_multicast_ttl: Ttl(u32) =>
        sockopt::ip_multicast_ttl, sockopt::set_ip_multicast_ttl;
    sock_get_recv_timeout / sock_set_recv_timeout: Micros(u64) =>
        |s| sockopt::socket_timeout(s, Timeout::Recv), |s: &Socket, v| s.set_timeout(Timeout::Recv, v);
    sock_get_send_timeout / sock_set_send_timeout: Micros(u64) =>
        |s| sockopt::socket_timeout(s, Timeout::Send), |s: &Socket, v| s.set_timeout(Timeout::Send, v);
}

/// The errno of a failed libc call.
fn last_errno() -> rustix::io::Errno {
    rustix::io::Errno::from_io_error(&std::io::Error::last_os_error()).unwrap_or(rustix::io::Errno::IO)
}

/// `TCP_FASTOPEN_CONNECT`, which rustix does not name: an `int` option.
fn fastopen_connect(s: &Socket) -> rustix::io::Result<bool> {
    let mut v: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: a getsockopt into a local int of the length given.
    let r = unsafe {
        libc::getsockopt(
            s.as_fd().as_raw_fd(),
            libc::IPPROTO_TCP,
            host::TCP_FASTOPEN_CONNECT.ok_or(rustix::io::Errno::NOPROTOOPT)?,
            (&mut v as *mut libc::c_int).cast(),
            &mut len,
        )
    };
    if r != 0 {
        return Err(last_errno());
    }
    Ok(v != 0)
}

/// Sets `TCP_FASTOPEN_CONNECT` (see [`fastopen_connect`]).
fn set_fastopen_connect(s: &Socket, on: bool) -> rustix::io::Result<()> {
    let v = libc::c_int::from(on);
    let len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: a setsockopt from a local int of the length given.
    let r = unsafe {
        libc::setsockopt(
            s.as_fd().as_raw_fd(),
            libc::IPPROTO_TCP,
            host::TCP_FASTOPEN_CONNECT.ok_or(rustix::io::Errno::NOPROTOOPT)?,
            (&v as *const libc::c_int).cast(),
            len,
        )
    };
    if r != 0 {
        return Err(last_errno());
    }
    Ok(())
}

/// `sock_get_linger(fd, *enabled, *seconds)`: one byte and an `int`.
pub fn sock_get_linger(cx: &mut WasiCtx, mem: &mut GuestMemory<'_>, fd: u32, on_out: u32, secs_out: u32) -> WasiResult {
    mem.check_array(on_out, 1, 1)?;
    mem.check_array(secs_out, 1, 4)?;
    let e = entry(cx, fd, 0)?;
    let linger = sockopt::socket_linger(socket(&e)?.fd.as_fd()).map_err(os)?;
    let secs = linger.map_or(0, |d| i32::try_from(d.as_secs()).unwrap_or(i32::MAX));
    mem.write(on_out, &[u8::from(linger.is_some())])?;
    mem.write(secs_out, &secs.to_le_bytes())
}

/// `sock_set_linger(fd, enabled, seconds)`: a negative time is `EINVAL`.
pub fn sock_set_linger(cx: &mut WasiCtx, _mem: &mut GuestMemory<'_>, fd: u32, on: u32, secs: u32) -> WasiResult {
    let e = entry(cx, fd, 0)?;
    let secs = u64::try_from(secs as i32).map_err(|_| Errno::Inval)?;
    let linger = (on != 0).then(|| Duration::from_secs(secs));
    sockopt::set_socket_linger(socket(&e)?.fd.as_fd(), linger).map_err(os)
}

/// `sock_get_ip_multicast_loop(fd, ipv6, *out)`: `IP_MULTICAST_LOOP`, or
/// `IPV6_MULTICAST_LOOP` when `ipv6` is non-zero.
pub fn sock_get_ip_multicast_loop(
    cx: &mut WasiCtx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    ipv6: u32,
    out: u32,
) -> WasiResult {
    mem.check_array(out, 1, 1)?;
    let e = entry(cx, fd, 0)?;
    let fd = socket(&e)?.fd.as_fd();
    let on = if ipv6 != 0 { sockopt::ipv6_multicast_loop(fd) } else { sockopt::ip_multicast_loop(fd) };
    mem.write(out, &[u8::from(on.map_err(os)?)])
}

/// `sock_set_ip_multicast_loop(fd, ipv6, on)`.
pub fn sock_set_ip_multicast_loop(
    cx: &mut WasiCtx,
    _mem: &mut GuestMemory<'_>,
    fd: u32,
    ipv6: u32,
    on: u32,
) -> WasiResult {
    let e = entry(cx, fd, 0)?;
    let fd = socket(&e)?.fd.as_fd();
    let set = if ipv6 != 0 {
        sockopt::set_ipv6_multicast_loop(fd, on != 0)
    } else {
        sockopt::set_ip_multicast_loop(fd, on != 0)
    };
    set.map_err(os)
}

/// Joins (`join`) or leaves the multicast group of the `__wasi_addr_ip_t`
/// at `group`: on the IPv4 interface whose address is `iface` (network
/// order, as `ip_mreq` holds it), or on IPv6 interface number `iface`.
fn membership(cx: &mut WasiCtx, mem: &GuestMemory<'_>, fd: u32, group: u32, iface: u32, join: bool) -> WasiResult {
    let group = addr::read_addr_ip(mem, group)?;
    let e = entry(cx, fd, 0)?;
    let fd = socket(&e)?.fd.as_fd();
    let done = match (group, join) {
        (IpAddr::V4(g), true) => sockopt::set_ip_add_membership(fd, &g, &Ipv4Addr::from(iface.to_le_bytes())),
        (IpAddr::V4(g), false) => sockopt::set_ip_drop_membership(fd, &g, &Ipv4Addr::from(iface.to_le_bytes())),
        (IpAddr::V6(g), true) => sockopt::set_ipv6_add_membership(fd, &g, iface),
        (IpAddr::V6(g), false) => sockopt::set_ipv6_drop_membership(fd, &g, iface),
    };
    done.map_err(os)
}

/// `sock_set_ip_add_membership(fd, *group, interface)`.
pub fn sock_set_ip_add_membership(
    cx: &mut WasiCtx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    group: u32,
    iface: u32,
) -> WasiResult {
    membership(cx, mem, fd, group, iface, true)
}

/// `sock_set_ip_drop_membership(fd, *group, interface)`.
pub fn sock_set_ip_drop_membership(
    cx: &mut WasiCtx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    group: u32,
    iface: u32,
) -> WasiResult {
    membership(cx, mem, fd, group, iface, false)
}
