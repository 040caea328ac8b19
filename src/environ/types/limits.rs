//! Sizes of memories and tables: limits, and the index type they are
//! addressed with.

/// The type of the indices of a memory or table: `i32` as in WebAssembly
/// 2.0, or `i64` (the memory64 proposal, part of 3.0).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum IndexType {
    /// 32-bit indices.
    I32,
    /// 64-bit indices.
    I64,
}

impl IndexType {
    /// The most a count of this index type can be: 2^32 or 2^64.
    pub fn max_count(self) -> u128 {
        match self {
            IndexType::I32 => 1 << 32,
            IndexType::I64 => 1 << 64,
        }
    }
}

/// Size bounds of a memory (in pages) or a table (in elements).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Limits {
    /// Minimum size.
    pub min: u64,
    /// Maximum size, if any.
    pub max: Option<u64>,
}

impl Limits {
    /// Limits from a minimum and an optional maximum.
    pub fn new(min: u64, max: Option<u64>) -> Limits {
        Limits { min, max }
    }

    /// Import matching: `self` (the provided entity's current limits) fits
    /// where `required` is declared.
    pub fn matches(&self, required: &Limits) -> bool {
        self.min >= required.min
            && match (self.max, required.max) {
                (_, None) => true,
                (Some(have), Some(want)) => have <= want,
                (None, Some(_)) => false,
            }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_match_as_imports_require() {
        let decl = Limits::new(1, Some(4));
        assert!(Limits::new(2, Some(3)).matches(&decl));
        assert!(!Limits::new(0, Some(3)).matches(&decl));
        assert!(!Limits::new(2, None).matches(&decl));
        assert!(Limits::new(2, None).matches(&Limits::new(1, None)));
        assert_eq!(IndexType::I32.max_count(), 1 << 32);
    }
}
