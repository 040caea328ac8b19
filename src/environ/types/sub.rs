//! The type section's entries as WebAssembly 3.0 defines them: recursion
//! groups of subtypes, each a function, struct or array type with an
//! optional declared supertype.
//!
//! WebAssembly 2.0 modules hold only final function types without
//! supertypes, each in a group of its own. Struct and array types are
//! GC's (issue 40, see `src/runtime/vm/gc/README.md`).

use std::ops::Range;

use super::func::FuncType;
use super::val::ValType;
use crate::environ::index::TypeIndex;

/// How a struct field or an array element is stored: a value type, or a
/// packed 8- or 16-bit integer.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum StorageType {
    /// A packed 8-bit integer.
    I8,
    /// A packed 16-bit integer.
    I16,
    /// A value of a value type.
    Val(ValType),
}

/// A struct field or an array's element type.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct FieldType {
    /// How the value is stored.
    pub storage: StorageType,
    /// Whether `struct.set`/`array.set` may change it.
    pub mutable: bool,
}

/// What a type defines.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CompositeType {
    /// A function type.
    Func(FuncType),
    /// A struct type: its fields in order.
    Struct(Box<[FieldType]>),
    /// An array type: its element type.
    Array(FieldType),
}

/// One entry of the type section.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SubType {
    /// Whether no type may declare this one its supertype.
    pub is_final: bool,
    /// The declared supertype, by index in the module.
    pub supertype: Option<TypeIndex>,
    /// What the type defines.
    pub composite: CompositeType,
}

impl SubType {
    /// The function type, if this is one.
    pub fn as_func(&self) -> Option<&FuncType> {
        match &self.composite {
            CompositeType::Func(f) => Some(f),
            _ => None,
        }
    }
}

/// A recursion group: the types at `range` of the type section, which may
/// refer to each other (and to earlier groups).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecGroup {
    pub range: Range<u32>,
}

impl StorageType {
    pub(crate) fn from_wasmparser(s: wasmparser::StorageType) -> StorageType {
        match s {
            wasmparser::StorageType::I8 => StorageType::I8,
            wasmparser::StorageType::I16 => StorageType::I16,
            wasmparser::StorageType::Val(v) => StorageType::Val(ValType::from_wasmparser(v)),
        }
    }
}

impl FieldType {
    pub(crate) fn from_wasmparser(f: wasmparser::FieldType) -> FieldType {
        FieldType { storage: StorageType::from_wasmparser(f.element_type), mutable: f.mutable }
    }
}
