//! Table types.

use super::limits::{IndexType, Limits};
use super::val::RefType;

/// The type of a table: its element type, limits in elements and index
/// type.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct TableType {
    element: RefType,
    limits: Limits,
    index: IndexType,
}

impl TableType {
    /// A 32-bit table of `element`s, `min` of them, at most `max`.
    pub fn new(element: RefType, min: u32, max: Option<u32>) -> TableType {
        TableType { element, limits: Limits::new(min.into(), max.map(Into::into)), index: IndexType::I32 }
    }

    /// A 64-bit table (table64) of `element`s.
    pub fn new64(element: RefType, min: u64, max: Option<u64>) -> TableType {
        TableType { element, limits: Limits::new(min, max), index: IndexType::I64 }
    }

    /// The type of the elements.
    pub fn element(&self) -> RefType {
        self.element
    }

    /// The minimum size in elements.
    pub fn minimum(&self) -> u64 {
        self.limits.min
    }

    /// The maximum size in elements, if declared.
    pub fn maximum(&self) -> Option<u64> {
        self.limits.max
    }

    /// The limits in elements.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Whether indices are 64-bit (table64).
    pub fn is_64(&self) -> bool {
        self.index == IndexType::I64
    }

    /// The index type.
    pub fn index_type(&self) -> IndexType {
        self.index
    }

    /// This type with `min` as its minimum (a table's current size).
    pub fn with_min(self, min: u64) -> TableType {
        TableType { limits: Limits { min, ..self.limits }, ..self }
    }

    /// This type with `max` as its maximum.
    pub fn with_max(self, max: Option<u64>) -> TableType {
        TableType { limits: Limits { max, ..self.limits }, ..self }
    }

    /// Whether this is a table type of WebAssembly 2.0: 32-bit, of
    /// `funcref` or `externref`.
    pub fn is_wasm2(&self) -> bool {
        self.index == IndexType::I32 && (self.element == RefType::FUNCREF || self.element == RefType::EXTERNREF)
    }

    /// Import matching: a table of type `self` (its current size as the
    /// minimum) can be given where `required` is declared: the same
    /// element and index types (tables are mutable, so the element type
    /// must be equal, not a subtype), and fitting limits.
    pub fn matches(&self, required: &TableType) -> bool {
        self.element == required.element && self.index == required.index && self.limits.matches(&required.limits)
    }
}
