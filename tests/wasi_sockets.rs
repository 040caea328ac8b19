//! The socket sandbox holds: a guest tries to bind, connect and send
//! outside its address pool (IPv4-mapped IPv6 addresses, the wildcard
//! address, mask edges, an empty pool) and to look up names outside its
//! allow list; every call gets bad fds, fds of other kinds and pointers out
//! of bounds; blocked calls are woken by a stop; descriptors do not leak.
//! Each refusal is checked to have left nothing behind: no connection
//! reached the listener, no datagram the receiver, no byte of guest memory
//! changed, no data was consumed.
//!
//! Every address used is loopback (127.0.0.0/8, ::1). The one non-loopback
//! address, `::ffff:10.0.0.1`, is only ever passed to calls that send
//! nothing even when allowed (a bind, a UDP connect), so a sandbox bug
//! could not put a packet on the network.

#[path = "support/wasi_guest.rs"]
mod wasi_guest;

use std::io::ErrorKind;
use std::net::{SocketAddr, TcpListener, UdpSocket};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use cranewasm::wasi::{self, Errno, WasiCtx};
use cranewasm::{Error, Trap, ValType};
use wasi_guest::{Guest, A, MEMORY_SIZE, SOCK_FUNCS};

/// `__wasi_address_family_t` and `__wasi_sock_type_t`.
const INET4: u32 = 0;
const INET6: u32 = 1;
const DGRAM: u32 = 0;
const STREAM: u32 = 1;

/// The tests count the process's descriptors and time wake-ups: one at a
/// time.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

fn ctx(pool: &[&str]) -> WasiCtx {
    let mut b = WasiCtx::builder();
    for p in pool {
        b.allow_addr(*p);
    }
    b.build().unwrap()
}

/// A `__wasi_addr_t`.
fn addr_bytes(addr: SocketAddr) -> Vec<u8> {
    let mut b = vec![0u8; 24];
    match addr {
        SocketAddr::V4(a) => {
            b[4..8].copy_from_slice(&a.ip().octets());
            b[8..10].copy_from_slice(&a.port().to_le_bytes());
        }
        SocketAddr::V6(a) => {
            b[0] = 1;
            for (i, g) in a.ip().segments().iter().enumerate() {
                b[4 + 2 * i..6 + 2 * i].copy_from_slice(&g.to_le_bytes());
            }
            b[20..22].copy_from_slice(&a.port().to_le_bytes());
        }
    }
    b
}

fn sa(s: &str) -> SocketAddr {
    s.parse().unwrap()
}

impl Guest {
    fn sock(&mut self, af: u32, ty: u32) -> u32 {
        let out = self.alloc(4);
        assert_eq!(self.call("sock_open", &[A::I(u32::MAX), A::I(af), A::I(ty), A::I(out)]), Errno::Success);
        let fd = self.u32_at(out);
        self.reset();
        fd
    }

    /// `name(fd, *addr)` for bind and connect.
    fn at(&mut self, name: &str, fd: u32, addr: SocketAddr) -> Errno {
        let a = self.put(&addr_bytes(addr));
        let e = self.call(name, &[A::I(fd), A::I(a)]);
        self.reset();
        e
    }

    fn local(&mut self, fd: u32) -> SocketAddr {
        let out = self.alloc(24);
        assert_eq!(self.call("sock_addr_local", &[A::I(fd), A::I(out)]), Errno::Success);
        let b = self.read(out, 24);
        self.reset();
        let port_at = if b[0] == 0 { 8 } else { 20 };
        let port = u16::from_le_bytes([b[port_at], b[port_at + 1]]);
        let ip: std::net::IpAddr = if b[0] == 0 {
            [b[4], b[5], b[6], b[7]].into()
        } else {
            let g: Vec<u16> = (0..8).map(|i| u16::from_le_bytes([b[4 + 2 * i], b[5 + 2 * i]])).collect();
            <[u16; 8]>::try_from(g).unwrap().into()
        };
        SocketAddr::new(ip, port)
    }

    /// `sock_send_to(fd, data, to)`.
    fn send_to(&mut self, fd: u32, data: &[u8], to: SocketAddr) -> Errno {
        let buf = self.put(data);
        let iov = self.put(&[buf.to_le_bytes(), (data.len() as u32).to_le_bytes()].concat());
        let a = self.put(&addr_bytes(to));
        let out = self.alloc(4);
        let e = self.call("sock_send_to", &[A::I(fd), A::I(iov), A::I(1), A::I(0), A::I(a), A::I(out)]);
        self.reset();
        e
    }

    /// `sock_recv(fd, n bytes)`: the errno and the data.
    fn recv(&mut self, fd: u32, n: u32) -> Result<Vec<u8>, Errno> {
        let buf = self.alloc(n);
        let iov = self.put(&[buf.to_le_bytes(), n.to_le_bytes()].concat());
        let out = self.alloc(8);
        let e = self.call("sock_recv", &[A::I(fd), A::I(iov), A::I(1), A::I(0), A::I(out), A::I(out + 4)]);
        let got = self.u32_at(out);
        let data = self.read(buf, got);
        self.reset();
        if e == Errno::Success {
            Ok(data)
        } else {
            Err(e)
        }
    }
}

/// A host UDP socket on loopback, non-blocking, that must receive nothing.
fn udp_receiver(ip: &str) -> UdpSocket {
    let s = UdpSocket::bind((ip, 0)).unwrap();
    s.set_nonblocking(true).unwrap();
    s
}

fn received_nothing(s: &UdpSocket) -> bool {
    let mut buf = [0u8; 64];
    std::thread::sleep(Duration::from_millis(20));
    matches!(s.recv(&mut buf), Err(e) if e.kind() == ErrorKind::WouldBlock)
}

fn accepted_nothing(l: &TcpListener) -> bool {
    l.set_nonblocking(true).unwrap();
    std::thread::sleep(Duration::from_millis(20));
    matches!(l.accept(), Err(e) if e.kind() == ErrorKind::WouldBlock)
}

#[test]
fn every_import_of_wasi_socket_ext_h_is_defined_with_its_type() {
    let header = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/clients/wamr-samples/core/iwasm/libraries/lib-socket/inc/wasi_socket_ext.h"
    );
    let text = std::fs::read_to_string(header).unwrap_or_else(|e| panic!("{header}: {e}"));
    let mut names = Vec::new();
    for (at, _) in text.match_indices("__import_name__(\"") {
        let name_start = at + "__import_name__(\"".len();
        let name = &text[name_start..name_start + text[name_start..].find('"').unwrap()];
        // The prototype just before: `__imported_..._NAME(int32_t arg0, ...)`.
        let decl = text[..at].rfind("__imported_wasi_snapshot_preview1_").unwrap();
        let params = &text[decl..at];
        let params = &params[params.find('(').unwrap() + 1..params.find(')').unwrap()];
        let want: Vec<ValType> =
            params.split(',').map(|p| if p.contains("int64_t") { ValType::I64 } else { ValType::I32 }).collect();
        let ty = wasi::function_type(name).unwrap_or_else(|| panic!("{name} is not defined"));
        assert_eq!(ty.params(), &want[..], "{name}'s parameters");
        assert_eq!(ty.results(), &[ValType::I32], "{name}'s result");
        names.push(name.to_string());
    }
    assert_eq!(names.len(), 49, "the header's imports: {names:?}");
    for name in SOCK_FUNCS {
        assert!(wasi::function_type(name).is_some(), "{name}");
    }
}

#[test]
fn bind_connect_and_send_outside_the_pool_are_refused() {
    let _serial = serial();
    let mut g = Guest::new(ctx(&["127.0.0.1/32"]));
    // Inside: loopback, any port.
    let s = g.sock(INET4, STREAM);
    assert_eq!(g.at("sock_bind", s, sa("127.0.0.1:0")), Errno::Success);
    assert_eq!(g.local(s).ip(), sa("127.0.0.1:0").ip());
    // The wildcard address with a port alone would listen everywhere.
    let s = g.sock(INET4, STREAM);
    assert_eq!(g.at("sock_bind", s, sa("0.0.0.0:0")), Errno::Acces);
    assert_eq!(g.at("sock_bind", s, sa("127.0.0.2:0")), Errno::Acces);
    // Nor may a socket never bound listen (on every interface).
    assert_eq!(g.call("sock_listen", &[A::I(s), A::I(1)]), Errno::Acces);
    // A connection outside the pool never reaches its listener.
    let listener = TcpListener::bind("127.0.0.2:0").unwrap();
    assert_eq!(g.at("sock_connect", s, listener.local_addr().unwrap()), Errno::Acces);
    assert!(accepted_nothing(&listener));
    // A datagram outside the pool is never sent.
    let u = g.sock(INET4, DGRAM);
    let receiver = udp_receiver("127.0.0.2");
    assert_eq!(g.send_to(u, b"x", receiver.local_addr().unwrap()), Errno::Acces);
    assert!(received_nothing(&receiver));
    // An IPv4 pool gives IPv6 nothing, and an IPv4-mapped address is the
    // IPv4 address it reaches.
    let v6 = g.sock(INET6, DGRAM);
    assert_eq!(g.at("sock_bind", v6, sa("[::1]:0")), Errno::Acces);
    assert_eq!(g.at("sock_connect", v6, sa("[::ffff:10.0.0.1]:9")), Errno::Acces);
    assert_eq!(g.at("sock_connect", v6, sa("[::ffff:127.0.0.1]:9")), Errno::Success);
    // The same socket still sends inside the pool.
    let inside = udp_receiver("127.0.0.1");
    assert_eq!(g.send_to(u, b"in", inside.local_addr().unwrap()), Errno::Success);
    let mut buf = [0u8; 8];
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(inside.recv(&mut buf).unwrap(), 2);
}

#[test]
fn an_ipv6_entry_does_not_reach_ipv4_hosts() {
    let _serial = serial();
    let mut g = Guest::new(ctx(&["::/0", "127.0.0.1/32"]));
    let v6 = g.sock(INET6, DGRAM);
    assert_eq!(g.at("sock_bind", v6, sa("[::ffff:10.0.0.1]:0")), Errno::Acces);
    assert_eq!(g.at("sock_connect", v6, sa("[::ffff:10.0.0.1]:9")), Errno::Acces);
    let receiver = udp_receiver("127.0.0.2");
    let to = SocketAddr::new(sa("[::ffff:127.0.0.2]:0").ip(), receiver.local_addr().unwrap().port());
    assert_eq!(g.send_to(v6, b"x", to), Errno::Acces);
    assert!(received_nothing(&receiver));
    // Plain IPv6 is in the pool.
    assert_eq!(g.at("sock_bind", v6, sa("[::1]:0")), Errno::Success);
}

#[test]
fn mask_edges_and_the_empty_pool() {
    let _serial = serial();
    let mut g = Guest::new(ctx(&["127.0.0.0/31", "::1/127"]));
    let s = g.sock(INET4, DGRAM);
    assert_eq!(g.at("sock_bind", s, sa("127.0.0.2:0")), Errno::Acces, "127.0.0.2 is outside /31");
    assert_eq!(g.at("sock_bind", s, sa("127.0.0.1:0")), Errno::Success, "127.0.0.1 is inside /31");
    let s6 = g.sock(INET6, DGRAM);
    assert_eq!(g.at("sock_bind", s6, sa("[::1]:0")), Errno::Success, "::1 is inside ::0/127");
    // /0 of any address is the whole family; 0.0.0.0 is any mask.
    for pool in ["192.0.2.77/0", "0.0.0.0/32"] {
        let mut g = Guest::new(ctx(&[pool]));
        let s = g.sock(INET4, DGRAM);
        assert_eq!(g.at("sock_bind", s, sa("127.0.0.3:0")), Errno::Success, "{pool}");
        let s6 = g.sock(INET6, DGRAM);
        assert_eq!(g.at("sock_bind", s6, sa("[::1]:0")), Errno::Acces, "{pool} is IPv4 only");
    }
    // No pool: nothing binds, connects, listens or sends.
    let mut g = Guest::new(ctx(&[]));
    let s = g.sock(INET4, STREAM);
    assert_eq!(g.at("sock_bind", s, sa("127.0.0.1:0")), Errno::Acces);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    assert_eq!(g.at("sock_connect", s, listener.local_addr().unwrap()), Errno::Acces);
    assert!(accepted_nothing(&listener));
    assert_eq!(g.call("sock_listen", &[A::I(s), A::I(1)]), Errno::Acces);
    let u = g.sock(INET4, DGRAM);
    let receiver = udp_receiver("127.0.0.1");
    assert_eq!(g.send_to(u, b"x", receiver.local_addr().unwrap()), Errno::Acces);
    assert!(received_nothing(&receiver));
}

#[test]
fn malformed_pool_entries_fail_the_build_with_wamr_messages() {
    for (entry, message) in [
        ("127.0.0.1", "Invalid address pool entry: 127.0.0.1, must be in the format of ADDRESS/MASK"),
        ("127.0.0.1/x", "Invalid address pool entry: mask must be a number"),
        ("127.0.0.1/-1", "Init wasi environment failed: invalid mask number"),
        ("127.0.0.1/33", "Init wasi environment failed: store address failed"),
        ("::1/129", "Init wasi environment failed: store address failed"),
        ("127.0.0.1/256", "Init wasi environment failed: store address failed"),
        ("localhost/8", "Init wasi environment failed: store address failed"),
    ] {
        let err = WasiCtx::builder().allow_addr(entry).build().err().unwrap_or_else(|| panic!("{entry} accepted"));
        assert_eq!(err.to_string(), message, "{entry}");
    }
}

/// `sock_addr_resolve(name)`: the errno and the addresses found.
fn resolve(g: &mut Guest, name: &str) -> (Errno, Vec<u8>, u32) {
    let host = g.put(&[name.as_bytes(), b"\0"].concat());
    let service = g.put(b"\0");
    // Hints: any type, IPv4, enabled.
    let hints = g.put(&[(-1i32).to_le_bytes(), 0i32.to_le_bytes(), [1, 0, 0, 0]].concat());
    let info = g.alloc(28 * 8);
    let found = g.alloc(4);
    let e = g.call("sock_addr_resolve", &[A::I(host), A::I(service), A::I(hints), A::I(info), A::I(8), A::I(found)]);
    let out = (e, g.read(info, 28 * 8), g.u32_at(found));
    g.reset();
    out
}

#[test]
fn resolution_outside_the_allow_list_is_refused() {
    let _serial = serial();
    let mut g = Guest::new(ctx(&[]));
    let (e, info, found) = resolve(&mut g, "localhost");
    assert_eq!(e, Errno::Acces, "no allow list");
    assert!(info.iter().all(|b| *b == 0) && found == 0, "nothing written");
    let mut g = Guest::new(WasiCtx::builder().allow_resolve("*.invalid").allow_resolve("localhost.").build().unwrap());
    assert_eq!(resolve(&mut g, "localhost").0, Errno::Acces, "neither a suffix nor the name");
    let mut g = Guest::new(WasiCtx::builder().allow_resolve("*host").build().unwrap());
    let (e, info, found) = resolve(&mut g, "localhost");
    assert_eq!(e, Errno::Success, "a suffix rule");
    assert!(found >= 1, "localhost has an IPv4 address");
    // The first result: IPv4 127.0.0.1.
    assert_eq!(&info[0..8], &[0, 0, 0, 0, 127, 0, 0, 1]);
    // A name running past the end of memory is EFAULT, not a read beyond.
    let end = MEMORY_SIZE - 4;
    g.memory.write(&mut g.store, end as usize, b"loca").unwrap();
    let service = g.put(b"\0");
    let hints = g.alloc(12);
    let info = g.alloc(28);
    let found = g.alloc(4);
    let args = [A::I(end), A::I(service), A::I(hints), A::I(info), A::I(1), A::I(found)];
    assert_eq!(g.call("sock_addr_resolve", &args), Errno::Fault);
}

/// Arguments for `name` that are all valid but the fd (`fd`): pointers to
/// scratch memory, an address in the pool, zero flags.
fn args_with_fd(g: &mut Guest, name: &str, fd: u32) -> Vec<A> {
    let ty = wasi::function_type(name).unwrap();
    let scratch = g.alloc(64);
    let addr = g.put(&addr_bytes(sa("127.0.0.1:9")));
    let buf = g.alloc(16);
    let iov = g.put(&[buf.to_le_bytes(), 16u32.to_le_bytes()].concat());
    let group = g.put(&[[0u8; 4], [224, 0, 0, 1]].concat());
    let mut args = vec![A::I(fd)];
    let rest = &ty.params()[1..];
    for (i, t) in rest.iter().enumerate() {
        args.push(match (name, i, t) {
            (_, _, ValType::I64) => A::L(1000),
            ("sock_bind" | "sock_connect", 0, _) => A::I(addr),
            ("sock_send_to" | "sock_recv_from", 3, _) => A::I(addr),
            ("sock_set_ip_add_membership" | "sock_set_ip_drop_membership", 0, _) => A::I(group),
            ("sock_send" | "sock_send_to" | "sock_recv" | "sock_recv_from", 0, _) => A::I(iov),
            ("sock_send" | "sock_send_to" | "sock_recv" | "sock_recv_from", 1, _) => A::I(1),
            ("sock_send" | "sock_send_to" | "sock_recv" | "sock_recv_from", 2, _) => A::I(0),
            ("sock_shutdown", 0, _) => A::I(3),
            ("sock_accept", 0, _) => A::I(0),
            (n, _, _) if n.starts_with("sock_set_") => A::I(1),
            ("sock_listen", 0, _) => A::I(1),
            ("sock_get_ip_multicast_loop", 0, _) => A::I(0),
            _ => A::I(scratch + 8 * i as u32),
        });
    }
    args
}

#[test]
fn bad_fds_and_other_kinds_of_fd_for_every_call() {
    let _serial = serial();
    let dir = std::env::temp_dir();
    let mut g = Guest::new(WasiCtx::builder().preopened_dir(&dir, "/").allow_addr("127.0.0.1/32").build().unwrap());
    // fd 1 is a stream, fd 3 the preopened directory, 99 nothing.
    for name in SOCK_FUNCS {
        if matches!(*name, "sock_open" | "sock_addr_resolve") {
            continue; // no fd argument
        }
        for (fd, want) in [(99, Errno::Badf), (1, Errno::Notsock), (3, Errno::Notsock)] {
            let args = args_with_fd(&mut g, name, fd);
            let got = g.call(name, &args);
            g.reset();
            assert_eq!(got, want, "{name} on fd {fd}");
        }
    }
    // And the fd calls that make no sense on a socket.
    let s = g.sock(INET4, STREAM);
    assert_eq!(g.call("fd_seek", &[A::I(s), A::L(0), A::I(0), A::I(2048)]), Errno::Notcapable);
    assert_eq!(g.call("fd_tell", &[A::I(s), A::I(2048)]), Errno::Notcapable);
    assert_eq!(g.call("fd_sync", &[A::I(s)]), Errno::Notcapable);
    assert_eq!(g.call("fd_readdir", &[A::I(s), A::I(2048), A::I(64), A::L(0), A::I(2048)]), Errno::Notcapable);
    assert_eq!(g.call("fd_prestat_get", &[A::I(s), A::I(2048)]), Errno::Badf);
    assert_eq!(g.path_call("path_create_directory", s, "x"), Errno::Notcapable);
    // Its stat says what it is.
    assert_eq!(g.call("fd_fdstat_get", &[A::I(s), A::I(2048)]), Errno::Success);
    assert_eq!(g.read(2048, 1)[0], wasi::types::filetype::SOCKET_STREAM);
    let u = g.sock(INET4, DGRAM);
    assert_eq!(g.call("fd_filestat_get", &[A::I(u), A::I(2048)]), Errno::Success);
    assert_eq!(g.read(2048 + 16, 1)[0], wasi::types::filetype::SOCKET_DGRAM);
    // Bad families, types and flags.
    let out = g.alloc(4);
    assert_eq!(g.call("sock_open", &[A::I(0), A::I(2), A::I(STREAM), A::I(out)]), Errno::Afnosupport);
    assert_eq!(g.call("sock_open", &[A::I(0), A::I(INET4), A::I(7), A::I(out)]), Errno::Inval);
    assert_eq!(g.call("sock_shutdown", &[A::I(s), A::I(0)]), Errno::Inval);
    assert_eq!(g.call("sock_shutdown", &[A::I(s), A::I(4)]), Errno::Inval);
    let a = g.put(&[[9u8, 0, 0, 0], [0; 4], [0; 4], [0; 4], [0; 4], [0; 4]].concat());
    assert_eq!(g.call("sock_bind", &[A::I(s), A::I(a)]), Errno::Protonosupport, "an address of kind 9");
    assert_eq!(g.call("sock_set_ip_ttl", &[A::I(s), A::I(256)]), Errno::Inval, "a TTL is one byte");
}

#[test]
fn out_of_bounds_pointers_are_efault_and_change_nothing() {
    let _serial = serial();
    let mut g = Guest::new(ctx(&["127.0.0.1/32"]));
    let edge = MEMORY_SIZE - 3;
    let tail = || vec![0xAAu8; 3];
    g.memory.write(&mut g.store, edge as usize, &tail()).unwrap();
    let far = u32::MAX - 1;
    // No socket made when its fd cannot be written.
    assert_eq!(g.call("sock_open", &[A::I(0), A::I(INET4), A::I(DGRAM), A::I(edge)]), Errno::Fault);
    let first = g.sock(INET4, DGRAM);
    assert_eq!(first, 3, "the failed open took no fd");
    let peer = udp_receiver("127.0.0.1");
    let (peer_addr, me) = (peer.local_addr().unwrap(), first);
    assert_eq!(g.at("sock_bind", me, sa("127.0.0.1:0")), Errno::Success);
    let my_addr = g.local(me);
    for (name, args) in [
        ("sock_bind", vec![A::I(me), A::I(edge)]),
        ("sock_connect", vec![A::I(me), A::I(far)]),
        ("sock_addr_local", vec![A::I(me), A::I(edge)]),
        ("sock_addr_remote", vec![A::I(me), A::I(far)]),
        ("sock_get_recv_buf_size", vec![A::I(me), A::I(edge)]),
        ("sock_get_recv_timeout", vec![A::I(me), A::I(edge)]),
        ("sock_get_linger", vec![A::I(me), A::I(1024), A::I(edge)]),
        ("sock_get_ip_multicast_loop", vec![A::I(me), A::I(0), A::I(far)]),
        ("sock_set_ip_add_membership", vec![A::I(me), A::I(edge), A::I(0)]),
        ("sock_accept", vec![A::I(me), A::I(0), A::I(edge)]),
    ] {
        assert_eq!(g.call(name, &args), Errno::Fault, "{name}");
        assert_eq!(g.read(edge, 3), tail(), "{name} wrote past the end");
    }
    // A datagram waiting is not taken by a receive that cannot store it.
    peer.send_to(b"kept", my_addr).unwrap();
    std::thread::sleep(Duration::from_millis(20));
    let iov = g.put(&[edge.to_le_bytes(), 16u32.to_le_bytes()].concat());
    let out = g.alloc(8);
    assert_eq!(g.call("sock_recv", &[A::I(me), A::I(iov), A::I(1), A::I(0), A::I(out), A::I(out + 4)]), Errno::Fault);
    let ok_iov = g.put(&[2048u32.to_le_bytes(), 16u32.to_le_bytes()].concat());
    let args = [A::I(me), A::I(ok_iov), A::I(1), A::I(0), A::I(edge), A::I(out)];
    assert_eq!(g.call("sock_recv_from", &args), Errno::Fault, "its address cannot be written");
    let args = [A::I(me), A::I(ok_iov), A::I(1), A::I(0), A::I(far), A::I(out)];
    assert_eq!(g.call("sock_recv", &args), Errno::Fault, "nor its flags");
    g.reset();
    assert_eq!(g.recv(me, 16).unwrap(), b"kept", "the datagram is still there");
    assert_eq!(g.read(edge, 3), tail());
    // A send from memory that is not there sends nothing.
    let iov = g.put(&[edge.to_le_bytes(), 16u32.to_le_bytes()].concat());
    let to = g.put(&addr_bytes(peer_addr));
    let out = g.alloc(4);
    assert_eq!(g.call("sock_send_to", &[A::I(me), A::I(iov), A::I(1), A::I(0), A::I(to), A::I(out)]), Errno::Fault);
    let iov = g.put(&[far.to_le_bytes(), 1u32.to_le_bytes()].concat());
    assert_eq!(g.call("sock_send_to", &[A::I(me), A::I(iov), A::I(1), A::I(0), A::I(to), A::I(out)]), Errno::Fault);
    assert_eq!(g.call("sock_send_to", &[A::I(me), A::I(far), A::I(1), A::I(0), A::I(to), A::I(out)]), Errno::Fault);
    assert!(received_nothing(&peer));
}

/// Runs `call` on `g` with a stop requested 150 ms in, and checks that the
/// call ends with the stop's trap within 100 ms of it.
fn woken_by_terminate(g: &mut Guest, name: &str, args: &[A]) {
    let handle = g.store.interrupt_handle();
    let requested = std::sync::Arc::new(Mutex::new(None::<Instant>));
    let stamp = requested.clone();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(150));
        *stamp.lock().unwrap() = Some(Instant::now());
        handle.interrupt();
    });
    let result = g.try_call(name, args);
    let ended = Instant::now();
    stopper.join().unwrap();
    let requested = requested.lock().unwrap().expect("the stop was requested before the call ended");
    let latency = ended.duration_since(requested);
    match result {
        Err(Error::Trap(t)) => assert_eq!(t.code(), Some(Trap::Interrupt), "{name}"),
        other => panic!("{name} ended with {other:?}, not the stop"),
    }
    eprintln!("{name} woken {latency:?} after the stop");
    assert!(latency < Duration::from_millis(100), "{name} took {latency:?} to stop");
}

#[test]
fn terminate_wakes_a_blocked_accept_and_recv() {
    let _serial = serial();
    let mut g = Guest::new(ctx(&["127.0.0.1/32"]));
    let l = g.sock(INET4, STREAM);
    assert_eq!(g.at("sock_bind", l, sa("127.0.0.1:0")), Errno::Success);
    assert_eq!(g.call("sock_listen", &[A::I(l), A::I(4)]), Errno::Success);
    woken_by_terminate(&mut g, "sock_accept", &[A::I(l), A::I(0), A::I(2048)]);
    // The store goes on: a receive with no data blocks, and stops too.
    let u = g.sock(INET4, DGRAM);
    assert_eq!(g.at("sock_bind", u, sa("127.0.0.1:0")), Errno::Success);
    let iov = g.put(&[2048u32.to_le_bytes(), 16u32.to_le_bytes()].concat());
    woken_by_terminate(&mut g, "sock_recv", &[A::I(u), A::I(iov), A::I(1), A::I(0), A::I(3000), A::I(3004)]);
    // And a connection accepted after all that works.
    let port = g.local(l).port();
    let client = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    assert_eq!(g.call("sock_accept", &[A::I(l), A::I(0), A::I(2048)]), Errno::Success);
    drop(client);
}

#[test]
fn timeouts_bound_blocking_calls() {
    let _serial = serial();
    let mut g = Guest::new(ctx(&["127.0.0.1/32"]));
    let u = g.sock(INET4, DGRAM);
    assert_eq!(g.at("sock_bind", u, sa("127.0.0.1:0")), Errno::Success);
    assert_eq!(g.call("sock_set_recv_timeout", &[A::I(u), A::L(30_000)]), Errno::Success);
    let start = Instant::now();
    assert_eq!(g.recv(u, 8), Err(Errno::Again));
    let waited = start.elapsed();
    assert!(waited >= Duration::from_millis(30) && waited < Duration::from_secs(2), "{waited:?}");
    // A stream send into a peer that reads nothing queues what fits, then
    // gives that count when its timeout passes (whatever the kernel's
    // buffer limits, the send buffer is made small).
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let s = g.sock(INET4, STREAM);
    assert_eq!(g.call("sock_set_send_buf_size", &[A::I(s), A::I(4096)]), Errno::Success);
    assert_eq!(g.call("sock_set_send_timeout", &[A::I(s), A::L(50_000)]), Errno::Success);
    assert_eq!(g.at("sock_connect", s, listener.local_addr().unwrap()), Errno::Success);
    let (_peer, _) = listener.accept().unwrap();
    // 16 iovecs of the whole 64 KiB memory: 1 MiB.
    let one = [0u32.to_le_bytes(), MEMORY_SIZE.to_le_bytes()].concat();
    let iovs = g.put(&one.repeat(16));
    let out = g.alloc(4);
    let start = Instant::now();
    assert_eq!(g.call("sock_send", &[A::I(s), A::I(iovs), A::I(16), A::I(0), A::I(out)]), Errno::Success);
    let waited = start.elapsed();
    let sent = g.u32_at(out);
    assert!(sent > 0 && sent < 16 * MEMORY_SIZE, "a part was queued: {sent}");
    assert!(waited >= Duration::from_millis(50) && waited < Duration::from_secs(2), "{waited:?}");
}

/// The descriptors this process has open: (sockets, all). Other test
/// threads may close descriptors meanwhile (a thread's wait eventfd goes
/// with it), never open any: they wait for the serial lock.
fn open_fds() -> (usize, usize) {
    let mut sockets = 0;
    let mut all = 0;
    for e in std::fs::read_dir("/proc/self/fd").unwrap().flatten() {
        all += 1;
        if std::fs::read_link(e.path()).is_ok_and(|l| l.to_string_lossy().starts_with("socket:")) {
            sockets += 1;
        }
    }
    (sockets, all)
}

/// `open_fds` now is `before`: the same sockets, no more descriptors.
fn flat(before: (usize, usize), when: &str) {
    let now = open_fds();
    assert_eq!(now.0, before.0, "sockets {when}");
    assert!(now.1 <= before.1, "descriptors {when}: {} then {}", before.1, now.1);
}

#[test]
fn a_thousand_opens_and_closes_leak_nothing() {
    let _serial = serial();
    let mut g = Guest::new(ctx(&["127.0.0.1/32"]));
    // Warm up: whatever the first calls set up once (a blocking wait makes
    // this thread's eventfd).
    let s = g.sock(INET4, DGRAM);
    assert_eq!(g.at("sock_bind", s, sa("127.0.0.1:0")), Errno::Success);
    assert_eq!(g.call("sock_set_recv_timeout", &[A::I(s), A::L(1000)]), Errno::Success);
    assert_eq!(g.recv(s, 8), Err(Errno::Again));
    assert_eq!(g.call("fd_close", &[A::I(s)]), Errno::Success);
    let before = open_fds();
    for i in 0..1000 {
        let (af, ty) = [(INET4, STREAM), (INET6, DGRAM), (INET4, DGRAM), (INET6, STREAM)][i % 4];
        let s = g.sock(af, ty);
        if i % 2 == 0 {
            assert_eq!(g.call("fd_close", &[A::I(s)]), Errno::Success);
        } else {
            assert_eq!(g.call("sock_close", &[A::I(s)]), Errno::Success);
        }
    }
    flat(before, "after 1,000 opens and closes");
    // Accepted connections too, and whatever is open when the guest goes.
    let l = g.sock(INET4, STREAM);
    assert_eq!(g.at("sock_bind", l, sa("127.0.0.1:0")), Errno::Success);
    assert_eq!(g.call("sock_listen", &[A::I(l), A::I(8)]), Errno::Success);
    let addr = g.local(l);
    for _ in 0..100 {
        let c = std::net::TcpStream::connect(addr).unwrap();
        let out = g.alloc(4);
        assert_eq!(g.call("sock_accept", &[A::I(l), A::I(0), A::I(out)]), Errno::Success);
        let fd = g.u32_at(out);
        g.reset();
        assert_eq!(g.call("fd_close", &[A::I(fd)]), Errno::Success);
        drop(c);
    }
    for _ in 0..10 {
        g.sock(INET6, STREAM);
    }
    drop(g);
    flat(before, "after the guest went");
}

#[test]
fn data_flows_through_sock_and_fd_calls_and_poll() {
    let _serial = serial();
    let mut g = Guest::new(ctx(&["127.0.0.1/32", "::1/128"]));
    // TCP over IPv6: connect to a host listener, write with fd_write, read
    // with fd_read, shutdown.
    let listener = TcpListener::bind("[::1]:0").unwrap();
    let s = g.sock(INET6, STREAM);
    assert_eq!(g.at("sock_connect", s, listener.local_addr().unwrap()), Errno::Success);
    let (mut peer, from) = listener.accept().unwrap();
    assert_eq!(g.local(s), from);
    assert_eq!(g.write_fd(s, b"ping").unwrap(), 4);
    let mut buf = [0u8; 4];
    std::io::Read::read_exact(&mut peer, &mut buf).unwrap();
    assert_eq!(&buf, b"ping");
    std::io::Write::write_all(&mut peer, b"pong").unwrap();
    assert_eq!(g.read_fd(s, 16).unwrap(), b"pong");
    assert_eq!(g.call("sock_shutdown", &[A::I(s), A::I(2)]), Errno::Success);
    assert_eq!(std::io::Read::read(&mut peer, &mut buf).unwrap(), 0, "the peer sees the end");
    // A non-blocking socket answers EAGAIN instead of waiting.
    let u = g.sock(INET4, DGRAM);
    assert_eq!(g.at("sock_bind", u, sa("127.0.0.1:0")), Errno::Success);
    assert_eq!(g.call("fd_fdstat_set_flags", &[A::I(u), A::I(4)]), Errno::Success);
    assert_eq!(g.recv(u, 8), Err(Errno::Again));
    // poll_oneoff waits for a datagram, then sock_recv_from says who sent it.
    let sender = UdpSocket::bind("127.0.0.1:0").unwrap();
    let me = g.local(u);
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        sender.send_to(b"hello", me).unwrap();
        sender.local_addr().unwrap()
    });
    let sub = g.put(&[&7u64.to_le_bytes()[..], &[1u8, 0, 0, 0, 0, 0, 0, 0], &u.to_le_bytes(), &[0u8; 28]].concat());
    let ev = g.alloc(32);
    let n = g.alloc(4);
    assert_eq!(g.call("poll_oneoff", &[A::I(sub), A::I(ev), A::I(1), A::I(n)]), Errno::Success);
    assert_eq!(g.u32_at(n), 1);
    assert_eq!(g.u64_at(ev), 7, "the subscription's userdata");
    let from = t.join().unwrap();
    g.reset();
    let buf = g.alloc(16);
    let iov = g.put(&[buf.to_le_bytes(), 16u32.to_le_bytes()].concat());
    let addr = g.alloc(24);
    let out = g.alloc(4);
    assert_eq!(
        g.call("sock_recv_from", &[A::I(u), A::I(iov), A::I(1), A::I(0), A::I(addr), A::I(out)]),
        Errno::Success
    );
    assert_eq!(g.read(buf, g.u32_at(out)), b"hello");
    assert_eq!(g.read(addr, 24), addr_bytes(from));
    // Multicast membership reaches the kernel (which refuses to drop a
    // group never joined, or to join a unicast address), and sends nothing.
    let group = g.put(&[[0u8; 4], [224, 0, 0, 1]].concat());
    let lo = u32::from_le_bytes([127, 0, 0, 1]);
    assert_eq!(g.call("sock_set_ip_drop_membership", &[A::I(u), A::I(group), A::I(lo)]), Errno::Addrnotavail);
    let unicast = g.put(&[[0u8; 4], [127, 0, 0, 1]].concat());
    assert_eq!(g.call("sock_set_ip_add_membership", &[A::I(u), A::I(unicast), A::I(lo)]), Errno::Inval);
    let u6 = g.sock(INET6, DGRAM);
    let group6 = g.put(&[&[1u8, 0, 0, 0][..], &[0x02, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0]].concat());
    assert_eq!(g.call("sock_set_ip_drop_membership", &[A::I(u6), A::I(group6), A::I(1)]), Errno::Addrnotavail);
    // Options read back.
    assert_eq!(g.call("sock_set_reuse_addr", &[A::I(u), A::I(1)]), Errno::Success);
    assert_eq!(g.call("sock_get_reuse_addr", &[A::I(u), A::I(out)]), Errno::Success);
    assert_eq!(g.read(out, 1)[0], 1);
}
