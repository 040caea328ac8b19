//! Reading this process's `/proc/self/status` (Linux), for tests that
//! watch resident memory and address space.

/// A field of `/proc/self/status` in KiB (`VmRSS:`, `VmSize:`, ...).
pub fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with(field)).unwrap_or_else(|| panic!("no {field}"));
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}
