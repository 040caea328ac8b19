//! Memory types.

use super::limits::{IndexType, Limits};

/// Bytes in a WebAssembly page of the default size.
pub const WASM_PAGE_SIZE: usize = 65536;
/// Pages of the default size addressable with a 32-bit index.
pub const MAX_PAGES: u32 = 65536;
/// The most pages a 32-bit memory declared smaller than 4 GiB grows to: it
/// stops 64 KiB short, so that compiled code may step an index it has
/// accessed by less than 64 KiB without a 32-bit wrap
/// (`compile::address_steps`). The spec lets `memory.grow` fail; a memory
/// declared with 65536 pages has them.
pub const GROWN_MAX_PAGES: u32 = MAX_PAGES - 1;

/// The type of a linear memory: its limits in pages, its index type, its
/// page size, and whether it is shared between threads.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct MemoryType {
    limits: Limits,
    index: IndexType,
    shared: bool,
    page_size_log2: u8,
}

impl MemoryType {
    /// An unshared 32-bit memory type of `min` 64 KiB pages, at most `max`.
    pub fn new(min: u32, max: Option<u32>) -> MemoryType {
        MemoryType::new64(min.into(), max.map(Into::into)).with_index_type(IndexType::I32)
    }

    /// An unshared 64-bit memory type (memory64) of `min` pages, at most
    /// `max`.
    pub fn new64(min: u64, max: Option<u64>) -> MemoryType {
        MemoryType { limits: Limits::new(min, max), index: IndexType::I64, shared: false, page_size_log2: 16 }
    }

    /// A shared 32-bit memory type (the threads proposal) of `min` pages,
    /// at most `max`: shared memories must declare their maximum, and are
    /// reserved at it so that they never move.
    pub fn shared(min: u32, max: u32) -> MemoryType {
        MemoryType { shared: true, ..MemoryType::new(min, Some(max)) }
    }

    /// This type with `index` as its index type.
    pub fn with_index_type(self, index: IndexType) -> MemoryType {
        MemoryType { index, ..self }
    }

    /// This type, shared between threads or not.
    pub fn with_shared(self, shared: bool) -> MemoryType {
        MemoryType { shared, ..self }
    }

    /// This type with pages of `2^log2` bytes (the custom-page-sizes
    /// proposal allows 1 and 65536).
    pub fn with_page_size_log2(self, log2: u8) -> MemoryType {
        MemoryType { page_size_log2: log2, ..self }
    }

    /// This type with `min` as its minimum (a memory's current size).
    pub fn with_min(self, min: u64) -> MemoryType {
        MemoryType { limits: Limits { min, ..self.limits }, ..self }
    }

    /// This type with `max` as its maximum.
    pub fn with_max(self, max: Option<u64>) -> MemoryType {
        MemoryType { limits: Limits { max, ..self.limits }, ..self }
    }

    /// The minimum size in pages.
    pub fn minimum(&self) -> u64 {
        self.limits.min
    }

    /// The maximum size in pages, if declared.
    pub fn maximum(&self) -> Option<u64> {
        self.limits.max
    }

    /// The limits in pages.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Whether memories of this type are shared between threads.
    pub fn is_shared(&self) -> bool {
        self.shared
    }

    /// Whether addresses are 64-bit (memory64).
    pub fn is_64(&self) -> bool {
        self.index == IndexType::I64
    }

    /// The index type of addresses.
    pub fn index_type(&self) -> IndexType {
        self.index
    }

    /// The size of a page in bytes.
    pub fn page_size(&self) -> u64 {
        1 << self.page_size_log2
    }

    /// How many of this type's pages make 4 GiB (`MAX_MEMORY_BYTES`).
    pub fn pages_in_4gib(&self) -> u64 {
        MAX_MEMORY_BYTES >> self.page_size_log2
    }

    /// The base-2 logarithm of the page size.
    pub fn page_size_log2(&self) -> u8 {
        self.page_size_log2
    }

    /// Whether this is a memory type of WebAssembly 2.0 and the threads
    /// proposal: 32-bit, 64 KiB pages. The runtime runs these; the rest is
    /// parsed and refused until its proposal lands.
    pub fn is_wasm2(&self) -> bool {
        self.index == IndexType::I32 && self.page_size_log2 == 16
    }

    /// Import matching: a memory of type `self` (its current size as the
    /// minimum) can be given where `required` is declared. Sharedness, the
    /// index type and the page size must agree exactly: code compiled for
    /// one kind of memory cannot run on another.
    pub fn matches(&self, required: &MemoryType) -> bool {
        self.shared == required.shared
            && self.index == required.index
            && self.page_size_log2 == required.page_size_log2
            && self.limits.matches(&required.limits)
    }
}

/// The most bytes a memory of any type may hold here: 4 GiB. A 32-bit
/// index cannot address more; a 64-bit memory stops there too, so that
/// every memory fits the same guarded reservation, whose second 4 GiB are
/// the guard region that makes a 64-bit bounds check one compare
/// (`compile::func_env::bounds64`).
pub const MAX_MEMORY_BYTES: u64 = 1 << 32;

/// The address range each memory reserves with guard pages: 4 GiB of
/// memory, 4 GiB of guard region (every address a 32-bit index plus a
/// 32-bit offset can form), and [`GUARD_TAIL_BYTES`] more, so that an
/// access of up to 16 bytes starting anywhere before 8 GiB, and a
/// masked 64-bit loop address plus a small offset
/// (`compile::loop_bounds64`), stay inside it. Past the length, all of it
/// faults.
pub const GUARDED_RESERVATION_BYTES: u64 = 2 * MAX_MEMORY_BYTES + GUARD_TAIL_BYTES;

/// The guard bytes past 8 GiB in a guarded reservation: the largest
/// immediate offset plus access size that compiled code may add to an
/// index below 8 GiB without a check. 64 KiB keeps the reservation a
/// whole number of pages on every host (arm64 kernels may use 64 KiB).
pub const GUARD_TAIL_BYTES: u64 = 64 << 10;

/// The largest size memories of type `ty` may grow to, in their pages: the
/// declared maximum, at most [`MAX_MEMORY_BYTES`]; a memory of 64 KiB
/// pages declared smaller than 4 GiB stops one page short of it (see
/// [`GROWN_MAX_PAGES`]; in bytes, whatever the page size).
pub fn max_pages(ty: &MemoryType) -> u64 {
    let cap = ty.pages_in_4gib();
    let declared = ty.maximum().unwrap_or(cap).min(cap);
    match ty.minimum() >= cap {
        true => declared,
        false => declared.min(u64::from(GROWN_MAX_PAGES) * WASM_PAGE_SIZE as u64 >> ty.page_size_log2),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memories_match_only_their_own_kind() {
        let decl = MemoryType::new(1, Some(4));
        assert!(MemoryType::new(2, Some(3)).matches(&decl));
        assert!(!MemoryType::new(2, None).matches(&decl));
        let shared = MemoryType::shared(1, 4);
        assert!(shared.matches(&MemoryType::shared(1, 4)));
        assert!(!shared.matches(&decl), "a shared memory where an unshared one is imported");
        assert!(!decl.matches(&shared), "an unshared memory where a shared one is imported");
        assert!(!MemoryType::new64(2, Some(3)).matches(&decl), "a 64-bit memory where a 32-bit one is imported");
        assert!(!MemoryType::new(2, Some(3)).with_page_size_log2(0).matches(&decl));
        assert_eq!(MemoryType::new(1, None).page_size(), 65536);
        assert_eq!(max_pages(&MemoryType::new(1, None)), GROWN_MAX_PAGES.into());
        assert_eq!(max_pages(&MemoryType::new(65536, None)), MAX_PAGES.into());
        assert_eq!(max_pages(&MemoryType::new64(1, Some(1 << 40))), GROWN_MAX_PAGES.into());
        assert_eq!(max_pages(&MemoryType::new(0, None).with_page_size_log2(0)), (1 << 32) - 65536);
        assert_eq!(max_pages(&MemoryType::new64(1 << 32, None).with_page_size_log2(0)), 1 << 32);
    }
}
