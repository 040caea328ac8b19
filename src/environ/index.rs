//! Typed indices into a module's index spaces.
//!
//! A bare `u32` could name a function, a table or a type; mixing them up is
//! the classic translator bug, so each space gets its own type. "Defined"
//! indices count only the entities a module defines itself, after its imports.

use cranelift_entity::entity_impl;

macro_rules! indices {
    ($($(#[$doc:meta])* $name:ident = $prefix:literal;)*) => {$(
        $(#[$doc])*
        #[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(u32);
        entity_impl!($name, $prefix);
    )*};
}

indices! {
    /// A function, imported or defined.
    FuncIndex = "func";
    /// A function defined by the module (imports not counted).
    DefinedFuncIndex = "defined_func";
    /// A function signature in the type section.
    TypeIndex = "type";
    /// A table, imported or defined.
    TableIndex = "table";
    /// A table defined by the module.
    DefinedTableIndex = "defined_table";
    /// A linear memory, imported or defined.
    MemoryIndex = "memory";
    /// A memory defined by the module.
    DefinedMemoryIndex = "defined_memory";
    /// A global, imported or defined.
    GlobalIndex = "global";
    /// A global defined by the module.
    DefinedGlobalIndex = "defined_global";
    /// An element segment.
    ElemIndex = "elem";
    /// A data segment.
    DataIndex = "data";
    /// An exception tag, imported or defined.
    TagIndex = "tag";
}

/// An index into any of the spaces an import or export can name.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum EntityIndex {
    Func(FuncIndex),
    Table(TableIndex),
    Memory(MemoryIndex),
    Global(GlobalIndex),
    Tag(TagIndex),
}
