//! A module's code as the runtime holds it: executable pages, the tables
//! that describe them, and for a lazily compiled module what compiles the
//! rest. The code registry, trap lookup, backtraces, profiling and
//! instantiation all read it; the compiler never sees it.

use super::code_memory::CodeMemory;
use super::lazy::LazyCode;
use crate::environ::compiled::{CodeTables, StackMap};
use crate::environ::index::DefinedFuncIndex;
use crate::environ::module_info::ModuleInfo;
use crate::environ::trap::TrapCode;
use crate::environ::type_registry::TypeCollection;

/// A module's linked, executable code and what is known about it.
pub struct CompiledModule {
    pub code: CodeMemory,
    /// Functions, entry trampolines, trap sites, source locations and the
    /// process addresses written into `code`. For a lazily compiled module
    /// `funcs` are the stubs, and the functions' own traps and source
    /// locations are kept in `lazy`.
    pub tables: CodeTables,
    pub lazy: Option<Box<LazyCode>>,
}

impl CompiledModule {
    /// Bytes of machine code the module holds: all of an eager module's
    /// image, but only what a lazy one has laid out and compiled so far
    /// (its region is a sparse reservation, mostly never touched).
    pub fn code_bytes(&self) -> usize {
        match &self.lazy {
            Some(lazy) => lazy.used(),
            None => self.code.range().len(),
        }
    }

    /// The trap recorded for the instruction at `offset` in the code, if
    /// it is a trap site.
    pub fn trap_at(&self, offset: u32) -> Option<TrapCode> {
        match &self.lazy {
            Some(lazy) => lazy.trap_at(offset),
            None => self.tables.trap_at(offset),
        }
    }

    /// The exception handler of the call returning to `ret`, if it has
    /// one: its offset and frame size.
    pub fn handler_at(&self, ret: u32) -> Option<(u32, u32)> {
        match &self.lazy {
            Some(lazy) => lazy.handler_at(ret),
            None => crate::environ::compiled::handler_at(&self.tables.handlers, ret),
        }
    }

    /// The GC stack map of the call returning to `ret`, if it has one.
    pub fn stack_map_at(&self, ret: u32) -> Option<StackMap> {
        match &self.lazy {
            Some(lazy) => lazy.stack_map_at(ret),
            None => crate::environ::compiled::stack_map_at(&self.tables.stack_maps, ret).cloned(),
        }
    }

    /// The defined function whose code holds `offset`, and the wasm
    /// offsets of the source location there (see [`CodeTables::frame_at`]).
    pub fn frame_at(&self, offset: u32) -> Option<(DefinedFuncIndex, Vec<u32>)> {
        match &self.lazy {
            Some(lazy) => lazy.frame_at(offset),
            None => self.tables.frame_at(offset),
        }
    }
}

/// What compiled code and its metadata the runtime looks up by address.
pub struct ModuleCode {
    pub info: ModuleInfo,
    pub compiled: CompiledModule,
    /// Byte offset of each defined function's body in the binary.
    pub body_offsets: Vec<u32>,
    /// The module's types, registered with its engine while it lives.
    pub types: TypeCollection,
}
