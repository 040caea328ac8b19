//! The address records of WAMR's socket extension as they lie in guest
//! memory (`wasi_socket_ext.h`, wasm32 layout): `__wasi_addr_t` (an IP
//! address and port), `__wasi_addr_ip_t` (an address alone, for multicast
//! groups) and the resolver's `__wasi_addr_info_t`. Numbers are in the
//! guest's byte order (little-endian), port included; an IPv6 address is
//! eight 16-bit groups, most significant first.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use super::super::guest::GuestMemory;
use super::super::types::{Errno, WasiResult};

/// `sizeof(__wasi_addr_t)`: a 4-byte kind, then the largest member (eight
/// groups and a port) at offset 4, padded to 4.
pub const ADDR_SIZE: u32 = 24;
/// `sizeof(__wasi_addr_ip_t)`: a 4-byte kind and 16 address bytes.
pub const ADDR_IP_SIZE: u32 = 20;
/// `sizeof(__wasi_addr_info_t)`: an address and a 4-byte socket type.
pub const ADDR_INFO_SIZE: u32 = 28;

/// `__wasi_addr_type_t`.
const IPV4: u32 = 0;
const IPV6: u32 = 1;

/// The IP address of a `__wasi_addr_ip_t`-shaped record at `ptr`: its kind,
/// then the address bytes at `ptr + 4`.
fn read_ip(mem: &GuestMemory<'_>, ptr: u32, len: u32) -> WasiResult<IpAddr> {
    let b = mem.slice(ptr, len)?;
    match u32::from_le_bytes(b[0..4].try_into().expect("4 bytes")) {
        IPV4 => Ok(IpAddr::V4(Ipv4Addr::new(b[4], b[5], b[6], b[7]))),
        IPV6 => {
            let group = |i: usize| u16::from_le_bytes([b[4 + 2 * i], b[5 + 2 * i]]);
            let groups = [0, 1, 2, 3, 4, 5, 6, 7].map(group);
            Ok(IpAddr::V6(Ipv6Addr::from(groups)))
        }
        // WAMR's answer to a kind it cannot print as an address.
        _ => Err(Errno::Protonosupport),
    }
}

/// The socket address of the `__wasi_addr_t` at `ptr`.
pub fn read_addr(mem: &GuestMemory<'_>, ptr: u32) -> WasiResult<SocketAddr> {
    let ip = read_ip(mem, ptr, ADDR_SIZE)?;
    let b = mem.slice(ptr, ADDR_SIZE)?;
    let port_at = if ip.is_ipv4() { 8 } else { 20 };
    let port = u16::from_le_bytes([b[port_at], b[port_at + 1]]);
    Ok(SocketAddr::new(ip, port))
}

/// The address of the `__wasi_addr_ip_t` at `ptr`.
pub fn read_addr_ip(mem: &GuestMemory<'_>, ptr: u32) -> WasiResult<IpAddr> {
    read_ip(mem, ptr, ADDR_IP_SIZE)
}

/// The bytes of a `__wasi_addr_t` holding `addr`.
pub fn addr_bytes(addr: SocketAddr) -> [u8; ADDR_SIZE as usize] {
    let mut b = [0u8; ADDR_SIZE as usize];
    match addr {
        SocketAddr::V4(a) => {
            b[0..4].copy_from_slice(&IPV4.to_le_bytes());
            b[4..8].copy_from_slice(&a.ip().octets());
            b[8..10].copy_from_slice(&a.port().to_le_bytes());
        }
        SocketAddr::V6(a) => {
            b[0..4].copy_from_slice(&IPV6.to_le_bytes());
            for (i, g) in a.ip().segments().iter().enumerate() {
                b[4 + 2 * i..6 + 2 * i].copy_from_slice(&g.to_le_bytes());
            }
            b[20..22].copy_from_slice(&a.port().to_le_bytes());
        }
    }
    b
}

/// Writes `addr` as a `__wasi_addr_t` at `ptr`.
pub fn write_addr(mem: &mut GuestMemory<'_>, ptr: u32, addr: SocketAddr) -> WasiResult {
    mem.write(ptr, &addr_bytes(addr))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_both_families() {
        for addr in ["127.0.0.1:1234", "[fe80::3ba2:893b:4be0:e3dd]:8989", "[::ffff:10.0.0.1]:1"] {
            let addr: SocketAddr = addr.parse().unwrap();
            let mut bytes = addr_bytes(addr).to_vec();
            let mem = GuestMemory::new(&mut bytes);
            assert_eq!(read_addr(&mem, 0).unwrap(), addr);
        }
    }

    #[test]
    fn layout_is_wasi_socket_ext_h() {
        // 127.0.0.1:1234 is {kind 0, n0..n3 = 127,0,0,1, port 1234 LE}.
        let b = addr_bytes("127.0.0.1:1234".parse().unwrap());
        assert_eq!(&b[..10], &[0, 0, 0, 0, 127, 0, 0, 1, 0xd2, 0x04]);
        // fe80::1 is {kind 1, n0 = 0xfe80 LE, ..., h3 = 1}.
        let b = addr_bytes("[fe80::1]:2".parse().unwrap());
        assert_eq!(&b[..6], &[1, 0, 0, 0, 0x80, 0xfe]);
        assert_eq!(&b[18..22], &[1, 0, 2, 0]);
    }

    #[test]
    fn bad_kind_and_bounds() {
        let mut bytes = [0u8; 24];
        bytes[0] = 7;
        assert_eq!(read_addr(&GuestMemory::new(&mut bytes), 0), Err(Errno::Protonosupport));
        let mut short = [0u8; 23];
        assert_eq!(read_addr(&GuestMemory::new(&mut short), 0), Err(Errno::Fault));
    }
}
