//! The types of WebAssembly values and entities, as WebAssembly 3.0
//! defines them: values and references ([`val`]), functions ([`func`]),
//! memories and tables with their limits and index types, tags, and the
//! type section's recursion groups of subtypes ([`sub`]).
//!
//! The runtime runs the WebAssembly 2.0 part of the model (and the
//! proposals it claims); the rest is parsed into it and refused, naming
//! the feature, until its proposal lands.

mod func;
mod limits;
mod memory;
mod sub;
mod table;
mod tag;
mod val;

pub use func::{FuncType, LARGE_SIG_ID_TAG};
pub use limits::{IndexType, Limits};
pub use memory::{max_pages, MemoryType, GUARDED_RESERVATION_BYTES};
// The translator's bounds checks read them.
#[cfg(feature = "compiler")]
pub use memory::{GUARD_TAIL_BYTES, MAX_MEMORY_BYTES};
pub use sub::{CompositeType, FieldType, RecGroup, StorageType, SubType};
pub use table::TableType;
pub use tag::TagType;
pub use val::{HeapType, RefType, ValType};

/// Whether a global may be written after instantiation.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Mutability {
    /// Immutable.
    Const,
    /// Mutable.
    Var,
}

/// The type of a global: its content and whether it is mutable.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct GlobalType {
    /// Type of the value.
    pub content: ValType,
    /// Whether the value may change.
    pub mutability: Mutability,
}

impl GlobalType {
    /// A global type.
    pub fn new(content: ValType, mutability: Mutability) -> GlobalType {
        GlobalType { content, mutability }
    }

    /// The type of the value.
    pub fn content(&self) -> ValType {
        self.content
    }

    /// Whether the value may change.
    pub fn mutability(&self) -> Mutability {
        self.mutability
    }
}

/// The type of anything a module imports or exports.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ExternType {
    /// A function of this signature.
    Func(FuncType),
    /// A global of this type.
    Global(GlobalType),
    /// A table of this type.
    Table(TableType),
    /// A memory of this type.
    Memory(MemoryType),
    /// A tag of this type (exceptions).
    Tag(TagType),
}

impl ExternType {
    /// A short name of the kind, for messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            ExternType::Func(_) => "function",
            ExternType::Global(_) => "global",
            ExternType::Table(_) => "table",
            ExternType::Memory(_) => "memory",
            ExternType::Tag(_) => "tag",
        }
    }
}

/// One import of a module: where it comes from and what it must be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportType {
    /// Module name.
    pub module: String,
    /// Field name.
    pub name: String,
    /// Required type.
    pub ty: ExternType,
}

/// One export of a module: its name and type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportType {
    /// Export name.
    pub name: String,
    /// Type of the exported entity.
    pub ty: ExternType,
}
