//! Where a guest's sockets may go: WAMR's address pool (`--addr-pool`,
//! `wasm_runtime_set_wasi_addr_pool`) and its name-lookup allow list
//! (`--allow-resolve`, `wasm_runtime_set_wasi_ns_lookup_pool`), with
//! WAMR's rules (`sandboxed-system-primitives`' `addr_pool_search` and
//! `ns_lookup_list_search`):
//!
//! - An entry is `ADDRESS/MASK`, IPv4 or IPv6; an address matches when its
//!   first MASK bits are the entry's. An entry whose address is all zeros
//!   (`0.0.0.0/…`, `::/…`) matches every address of its family, whatever
//!   its mask. An empty pool matches nothing: no socket binds, connects or
//!   sends anywhere.
//! - A lookup name matches an entry equal to it, or an entry `*SUFFIX`
//!   that it ends with (`*.example.com`, and `*` for any name).
//!
//! Two rules are stricter than WAMR's, where WAMR's would let a guest out:
//! an IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) is checked as the IPv4
//! address it reaches, so an IPv6 entry (`::/0`) never lets a guest reach
//! an IPv4 host the IPv4 entries keep it from; and a mask above 255 is
//! refused, where WAMR truncates it to 8 bits (`/256` would become `/0`,
//! the whole family).

use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;

/// One `ADDRESS/MASK` entry of an address pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddrPoolEntry {
    addr: IpAddr,
    mask: u8,
}

/// Why an address pool entry was refused; `Display` gives WAMR's message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AddrPoolError {
    /// No `/MASK` part.
    NoMask(String),
    /// The mask is not a decimal number.
    MaskNotNumber,
    /// The mask is negative or does not fit.
    BadMask,
    /// The address is not an IP address, or the mask is longer than it.
    BadAddress,
}

impl fmt::Display for AddrPoolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AddrPoolError::NoMask(entry) => {
                write!(f, "Invalid address pool entry: {entry}, must be in the format of ADDRESS/MASK")
            }
            AddrPoolError::MaskNotNumber => f.write_str("Invalid address pool entry: mask must be a number"),
            AddrPoolError::BadMask => f.write_str("Init wasi environment failed: invalid mask number"),
            AddrPoolError::BadAddress => f.write_str("Init wasi environment failed: store address failed"),
        }
    }
}

impl std::error::Error for AddrPoolError {}

/// C's `strtol(s, &end, 10)` with `*end == '\0'` required: leading white
/// space and a sign allowed, then at least one digit and nothing else.
fn c_decimal(s: &str) -> Result<i64, AddrPoolError> {
    let t = s.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(AddrPoolError::MaskNotNumber);
    }
    // Out of range is strtol's ERANGE, which WAMR reports as a bad mask.
    t.parse::<i64>().map_err(|_| AddrPoolError::BadMask)
}

impl FromStr for AddrPoolEntry {
    type Err = AddrPoolError;

    /// Parses `ADDRESS/MASK` as WAMR does (`strtok` on `/`, so empty parts
    /// are skipped and a third part is ignored).
    fn from_str(entry: &str) -> Result<AddrPoolEntry, AddrPoolError> {
        let mut parts = entry.split('/').filter(|p| !p.is_empty());
        let (Some(address), Some(mask)) = (parts.next(), parts.next()) else {
            return Err(AddrPoolError::NoMask(entry.to_string()));
        };
        let mask = c_decimal(mask)?;
        if mask < 0 {
            return Err(AddrPoolError::BadMask);
        }
        let addr: IpAddr = address.parse().map_err(|_| AddrPoolError::BadAddress)?;
        let bits = if addr.is_ipv4() { 32 } else { 128 };
        if mask > bits {
            return Err(AddrPoolError::BadAddress);
        }
        Ok(AddrPoolEntry { addr, mask: mask as u8 })
    }
}

impl AddrPoolEntry {
    /// Whether `ip` (of the entry's family) is in the entry's range.
    fn contains(&self, ip: &IpAddr) -> bool {
        let (base, target, bits): (u128, u128, u32) = match (self.addr, ip) {
            (IpAddr::V4(b), IpAddr::V4(t)) => (u32::from(b).into(), u32::from(*t).into(), 32),
            (IpAddr::V6(b), IpAddr::V6(t)) => (u128::from(b), u128::from(*t), 128),
            _ => return false,
        };
        if base == 0 {
            return true;
        }
        let mask = u32::from(self.mask);
        if mask == 0 {
            return true;
        }
        let shift = bits - mask;
        (base >> shift) == (target >> shift)
    }
}

/// What a guest's sockets may reach: the address pool and the names it may
/// look up. Shared by all threads of a program.
#[derive(Clone, Debug, Default)]
pub struct NetPolicy {
    pool: Vec<AddrPoolEntry>,
    resolve: Vec<String>,
}

impl NetPolicy {
    /// A policy of `pool` entries (`ADDRESS/MASK`) and lookup names.
    pub fn new(pool: &[String], resolve: &[String]) -> Result<NetPolicy, AddrPoolError> {
        let pool = pool.iter().map(|e| e.parse()).collect::<Result<Vec<_>, _>>()?;
        Ok(NetPolicy { pool, resolve: resolve.to_vec() })
    }

    /// Whether a socket may bind, connect or send to `ip`.
    pub fn allows(&self, ip: IpAddr) -> bool {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 => v4,
        };
        self.pool.iter().any(|e| e.contains(&ip))
    }

    /// Whether the guest may look `host` up.
    pub fn may_resolve(&self, host: &[u8]) -> bool {
        self.resolve.iter().any(|entry| match entry.as_bytes().split_first() {
            Some((b'*', suffix)) => host.ends_with(suffix),
            _ => entry.as_bytes() == host,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(pool: &[&str]) -> NetPolicy {
        NetPolicy::new(&pool.iter().map(|s| s.to_string()).collect::<Vec<_>>(), &[]).unwrap()
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn masks_match_prefixes() {
        let p = policy(&["127.0.0.1/15", "fe80::/10"]);
        assert!(p.allows(ip("127.0.0.1")));
        assert!(p.allows(ip("127.1.255.255")));
        assert!(!p.allows(ip("127.2.0.0")));
        assert!(!p.allows(ip("128.0.0.1")));
        assert!(p.allows(ip("fe80::1")));
        assert!(p.allows(ip("febf::1")));
        assert!(!p.allows(ip("fec0::1")));
        assert!(!p.allows(ip("::1")));
        // Edges: /32 and /128 are one address, /0 a whole family.
        let p = policy(&["10.1.2.3/32", "::1/128"]);
        assert!(p.allows(ip("10.1.2.3")) && !p.allows(ip("10.1.2.2")));
        assert!(p.allows(ip("::1")) && !p.allows(ip("::2")));
        let p = policy(&["192.168.0.0/0"]);
        assert!(p.allows(ip("8.8.8.8")));
        assert!(!p.allows(ip("2001:db8::1")));
    }

    #[test]
    fn zero_address_means_any_of_its_family() {
        let p = policy(&["0.0.0.0/15"]);
        assert!(p.allows(ip("203.0.113.9")) && p.allows(ip("0.0.0.0")));
        assert!(!p.allows(ip("::1")));
        let p = policy(&["::/64"]);
        assert!(p.allows(ip("2001:db8::1")) && !p.allows(ip("127.0.0.1")));
    }

    #[test]
    fn empty_pool_allows_nothing() {
        let p = NetPolicy::default();
        assert!(!p.allows(ip("127.0.0.1")) && !p.allows(ip("::1")) && !p.allows(ip("0.0.0.0")));
    }

    #[test]
    fn mapped_addresses_are_checked_as_ipv4() {
        let p = policy(&["::/0", "127.0.0.1/32"]);
        assert!(!p.allows(ip("::ffff:10.0.0.1")));
        assert!(p.allows(ip("::ffff:127.0.0.1")));
        assert!(p.allows(ip("2001:db8::1")));
    }

    #[test]
    fn entries_parse_as_wamr_parses_them() {
        let e = |s: &str| s.parse::<AddrPoolEntry>();
        assert_eq!(
            e("127.0.0.1").unwrap_err().to_string(),
            "Invalid address pool entry: 127.0.0.1, must be in the format of ADDRESS/MASK"
        );
        assert_eq!(e("/8"), Err(AddrPoolError::NoMask("/8".into())));
        assert_eq!(e("1.2.3.4/8x"), Err(AddrPoolError::MaskNotNumber));
        assert_eq!(e("1.2.3.4/"), Err(AddrPoolError::NoMask("1.2.3.4/".into())));
        assert_eq!(e("1.2.3.4/-1"), Err(AddrPoolError::BadMask));
        assert_eq!(e("1.2.3.4/33"), Err(AddrPoolError::BadAddress));
        assert_eq!(e("1.2.3.4/256"), Err(AddrPoolError::BadAddress));
        assert_eq!(e("::1/129"), Err(AddrPoolError::BadAddress));
        assert_eq!(e("localhost/8"), Err(AddrPoolError::BadAddress));
        assert!(e("1.2.3.4// 8").is_ok());
        assert!(e("1.2.3.4/+8/ignored").is_ok());
        assert!(e("::ffff:1.2.3.4/128").is_ok());
    }

    #[test]
    fn lookup_names_exact_or_suffix() {
        let p = NetPolicy::new(&[], &["*.example.com".into(), "localhost".into()]).unwrap();
        assert!(p.may_resolve(b"www.example.com"));
        assert!(p.may_resolve(b".example.com"));
        assert!(!p.may_resolve(b"example.com"));
        assert!(p.may_resolve(b"localhost"));
        assert!(!p.may_resolve(b"localhost.localdomain"));
        assert!(!p.may_resolve(b"LOCALHOST"));
        assert!(NetPolicy::new(&[], &["*".into()]).unwrap().may_resolve(b"anything"));
        assert!(!NetPolicy::default().may_resolve(b"localhost"));
    }
}
