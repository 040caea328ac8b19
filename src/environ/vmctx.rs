//! The memory layout that compiled code and the runtime agree on.
//!
//! Every instance has one `VMContext` block. Its layout depends only on the
//! module (how many functions, tables, memories and globals it imports and
//! defines), so [`VMOffsets`] computes it once per module; the translator
//! bakes the offsets into loads, and instantiation fills the block in.
//!
//! ```text
//! VMContext (offsets from its start)
//!   0  magic: u32                    VMCONTEXT_MAGIC; host contexts differ
//!   8  builtins: *const Builtins     runtime functions called from wasm
//!  16  store: *mut VMStoreContext    per-store state (stack limit, ...)
//!  24  instance: *mut VMInstance     the owning instance, for builtins
//!  32  stack_limit: usize            the store's stack limit, copied here
//!                                    so that prologues check it in one load
//!  40  imported functions            [*const VMFuncRef]
//!      memories                      [VMMemoryImport] (base, definition)
//!      tables                        [*mut VMTableDefinition]
//!      imported globals              [*mut VMGlobal]
//!      defined globals               [VMGlobal], 16-byte aligned
//!      defined functions             [VMFuncRef]
//!      type ids                      [usize], one per type of the module:
//!                                    what `call_indirect` compares a
//!                                    signature by when it has no small id
//!      tags                          [*const VMTag]
//!      type displays                 [*const u32], one per type: what a
//!                                    new GC object's header records
//! ```

use crate::environ::index::*;
use crate::environ::module_info::ModuleInfo;
use crate::environ::val_raw::ValRaw;
use cranelift_entity::EntityRef;

/// Opaque marker for a pointer to a VMContext block.
#[repr(C)]
pub struct VMContext {
    _private: [u8; 0],
}

/// The first word of an instance's VMContext.
pub const VMCONTEXT_MAGIC: u32 = u32::from_le_bytes(*b"cwvm");
/// The first word of a host function's context.
pub const HOST_CONTEXT_MAGIC: u32 = u32::from_le_bytes(*b"cwhf");

/// Entry point from the host: `(callee_vmctx, caller_vmctx, wasm_call,
/// values)` reads the arguments from `values`, calls `wasm_call` and writes
/// the results back to `values`.
pub type ArrayCallFn = unsafe extern "C" fn(*mut VMContext, *mut VMContext, *const u8, *mut ValRaw);

/// A function as compiled code calls it: through `wasm_call` with the wasm
/// calling convention, or from the host through `array_call`.
///
/// A funcref value is a pointer to one of these (null for `ref.null`).
#[repr(C)]
pub struct VMFuncRef {
    pub wasm_call: *const u8,
    pub array_call: ArrayCallFn,
    pub vmctx: *mut VMContext,
    /// The id `call_indirect` compares the signature by (see
    /// `type_registry::sig_id`).
    pub sig: usize,
    /// The signature, for the runtime: a `FuncType` that lives as long as
    /// the function (in its module's type section, or its host function's
    /// registration).
    pub ty: *const crate::environ::types::FuncType,
    /// The type's supertype display (GC): `[n, id_0, .., id_n-1]`, the
    /// canonical ids of its supertypes from the root down to itself, which
    /// casts and `call_indirect` to a non-final type read (see
    /// `src/runtime/vm/gc/README.md`). `[0]` for a plain type, which no
    /// non-final type's check can match. It lives as long as `ty`.
    pub display: *const u32,
}

impl VMFuncRef {
    pub const WASM_CALL: i32 = 0;
    pub const VMCTX: i32 = 16;
    pub const SIG: i32 = 24;
    pub const DISPLAY: i32 = 40;
}

/// A linear memory's current extent. Owned by the memory; instances point
/// at it so that growth is seen by every importer.
#[repr(C)]
pub struct VMMemoryDefinition {
    pub base: *mut u8,
    /// Current length in bytes.
    pub length: usize,
}

impl VMMemoryDefinition {
    pub const LENGTH: i32 = 8;
}

/// How an instance reaches a memory: the base (which never moves once the
/// memory exists) cached next to the definition it came from.
#[repr(C)]
pub struct VMMemoryImport {
    pub base: *mut u8,
    pub definition: *mut VMMemoryDefinition,
}

/// A table's current elements: funcrefs (`*const VMFuncRef`) or externrefs
/// (`*const VMExternData`), null for a null reference.
#[repr(C)]
pub struct VMTableDefinition {
    pub base: *mut usize,
    pub length: u32,
    /// For a frozen table of the module's own functions of one type (and
    /// nulls), their code addresses (`VMFuncRef::wasm_call`; a trapping
    /// stub for null), element by element: `call_indirect` then loads the
    /// code in one step (`VMTable::freeze_codes`). Null otherwise.
    pub codes: *const usize,
}

impl VMTableDefinition {
    pub const BASE: i32 = 0;
    pub const LENGTH: i32 = 8;
    pub const CODES: i32 = 16;
    /// log2 of the size of an element (a pointer): element `i` is at
    /// `base + (i << ELEMENT_SIZE_LOG2)`.
    pub const ELEMENT_SIZE_LOG2: i64 = 3;
}

/// Storage for one global: wide enough for a v128, value at offset 0.
#[repr(C, align(16))]
#[derive(Copy, Clone, Default)]
pub struct VMGlobal {
    pub bytes: [u8; 16],
}

/// Per-store state that compiled code reads.
#[repr(C)]
pub struct VMStoreContext {
    /// Lowest stack address wasm frames may use; prologues trap below it.
    /// Prologues read the copy in their own VMContext (`header::STACK_LIMIT`),
    /// one load instead of two; this is the value those copies hold.
    pub stack_limit: usize,
    /// Frame pointer of the last exit trampoline (wasm → host), for
    /// backtraces of traps raised by the host.
    pub last_exit_fp: usize,
    /// Fuel used so far minus fuel given: negative while fuel remains.
    /// Read and written by code compiled with `Config::consume_fuel`.
    pub fuel_consumed: i64,
    /// The store's interruption state, null until an interrupt handle or
    /// an epoch deadline needed it (read by the runtime and its signal
    /// handler, not by compiled code). Opaque here: the runtime's
    /// `InterruptState`, which only the runtime reads.
    pub interrupt: *const (),
    /// The store itself (the runtime's `StoreOpaque`, opaque here), for
    /// builtins that need more than this context (the resource limiter of
    /// `memory.grow`).
    pub store: *mut (),
    /// The store's GC heap (see `gc_layout`): the start of its
    /// reservation, null until the first object. An object at offset `o`
    /// is at `gc_base + o`.
    pub gc_base: *mut u8,
    /// The next free offset in the heap's current chunk: compiled code
    /// allocates by bumping it while it stays within `gc_limit`.
    pub gc_top: u32,
    /// The end of the current chunk; allocation past it calls the runtime.
    pub gc_limit: u32,
}

impl VMStoreContext {
    pub const LAST_EXIT_FP: i32 = 8;
    pub const FUEL_CONSUMED: i32 = 16;
    pub const GC_BASE: i32 = 40;
    pub const GC_TOP: i32 = 48;
    pub const GC_LIMIT: i32 = 52;
}

/// Offsets in a host function's context, which stands where a VMContext
/// would in the function's `VMFuncRef`.
pub mod host_ctx {
    /// `unsafe extern "C" fn(ctx, caller_vmctx, values: *mut ValRaw)`.
    pub const HOST_CALL: i32 = 8;
    /// `*mut VMStoreContext` of the store owning the function.
    pub const STORE: i32 = 16;
}

/// Offsets of the fixed header fields.
pub mod header {
    pub const MAGIC: i32 = 0;
    pub const BUILTINS: i32 = 8;
    pub const STORE: i32 = 16;
    pub const INSTANCE: i32 = 24;
    /// A copy of `VMStoreContext::stack_limit`, which the runtime keeps
    /// equal in every instance of the store (see `StoreOpaque::publish_stack_limit`).
    pub const STACK_LIMIT: i32 = 32;
    pub const SIZE: u32 = 40;
}

/// The layout of an exception object (`vm::exception::VMExn`) as compiled
/// code reads it: the tag's address, then a pointer to the payload, one
/// 16-byte slot per value (a scalar at offset 8 of its slot, as in a
/// `ValRaw`; a vector in the whole slot).
pub mod exn {
    /// Offset of the tag's address.
    pub const TAG: i32 = 0;
    /// Offset of the pointer to the payload.
    pub const VALUES: i32 = 8;
    /// Bytes per payload slot.
    pub const SLOT: i32 = 16;
    /// Offset of a scalar in its slot.
    pub const SCALAR: i32 = 8;
    /// Offset of the byte that is nonzero once the exception may be
    /// referred to from anywhere but the throw in flight (an `exnref`, a
    /// legacy catch, the host): until then a catch that drops it frees it.
    pub const EXPOSED: i32 = 16;
}

/// The VMContext layout of one module.
#[derive(Clone, Debug)]
pub struct VMOffsets {
    imported_funcs: u32,
    memories: u32,
    tables: u32,
    imported_globals: u32,
    defined_globals: u32,
    defined_funcs: u32,
    type_ids: u32,
    tags: u32,
    type_displays: u32,
    size: u32,
}

const PTR: u32 = 8;

impl VMOffsets {
    pub fn new(info: &ModuleInfo) -> VMOffsets {
        let count = |n: usize| n as u32;
        let imported_funcs = header::SIZE;
        let memories = imported_funcs + count(info.num_imported_funcs) * PTR;
        let tables = memories + count(info.memories.len()) * 2 * PTR;
        let imported_globals = tables + count(info.tables.len()) * PTR;
        let defined_globals = (imported_globals + count(info.num_imported_globals) * PTR + 15) & !15;
        let num_defined_globals = info.globals.len() - info.num_imported_globals;
        let defined_funcs = defined_globals + count(num_defined_globals) * 16;
        let type_ids = defined_funcs + count(info.num_defined_funcs()) * std::mem::size_of::<VMFuncRef>() as u32;
        let tags = type_ids + count(info.types.len()) * PTR;
        let type_displays = tags + count(info.tags.len()) * PTR;
        let size = type_displays + count(info.types.len()) * PTR;
        VMOffsets {
            imported_funcs,
            memories,
            tables,
            imported_globals,
            defined_globals,
            defined_funcs,
            type_ids,
            tags,
            type_displays,
            size,
        }
    }

    /// Total size of the block in bytes.
    pub fn size(&self) -> u32 {
        self.size
    }

    /// Slot holding `*const VMFuncRef` of an imported function.
    pub fn imported_func(&self, f: FuncIndex) -> u32 {
        self.imported_funcs + f.index() as u32 * PTR
    }

    /// Slot holding the base address of memory `m`.
    pub fn memory_base(&self, m: MemoryIndex) -> u32 {
        self.memories + m.index() as u32 * 2 * PTR
    }

    /// Slot holding `*mut VMMemoryDefinition` of memory `m`.
    pub fn memory_definition(&self, m: MemoryIndex) -> u32 {
        self.memory_base(m) + PTR
    }

    /// Slot holding `*mut VMTableDefinition` of table `t`.
    pub fn table(&self, t: TableIndex) -> u32 {
        self.tables + t.index() as u32 * PTR
    }

    /// Slot holding `*mut VMGlobal` of an imported global.
    pub fn imported_global(&self, g: GlobalIndex) -> u32 {
        self.imported_globals + g.index() as u32 * PTR
    }

    /// The storage of a defined global.
    pub fn defined_global(&self, g: DefinedGlobalIndex) -> u32 {
        self.defined_globals + g.index() as u32 * 16
    }

    /// Slot holding the id `call_indirect` compares type `t` by.
    pub fn type_id(&self, t: TypeIndex) -> u32 {
        self.type_ids + t.index() as u32 * PTR
    }

    /// Slot holding the `*const VMTag` of tag `t` (its identity: defined
    /// here or imported, see `vm::exception`).
    pub fn tag(&self, t: TagIndex) -> u32 {
        self.tags + t.index() as u32 * PTR
    }

    /// Slot holding type `t`'s supertype display (`*const u32`), which a
    /// new struct or array object of the type records in its header.
    pub fn type_display(&self, t: TypeIndex) -> u32 {
        self.type_displays + t.index() as u32 * PTR
    }

    /// The `VMFuncRef` of a defined function.
    pub fn defined_func(&self, f: DefinedFuncIndex) -> u32 {
        self.defined_funcs + f.index() as u32 * std::mem::size_of::<VMFuncRef>() as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    #[test]
    fn struct_offsets_match_constants() {
        assert_eq!(offset_of!(VMFuncRef, wasm_call) as i32, VMFuncRef::WASM_CALL);
        assert_eq!(offset_of!(VMFuncRef, vmctx) as i32, VMFuncRef::VMCTX);
        assert_eq!(offset_of!(VMFuncRef, sig) as i32, VMFuncRef::SIG);
        assert_eq!(offset_of!(VMFuncRef, display) as i32, VMFuncRef::DISPLAY);
        assert_eq!(size_of::<VMFuncRef>(), 48);
        assert_eq!(offset_of!(VMMemoryDefinition, length) as i32, VMMemoryDefinition::LENGTH);
        assert_eq!(offset_of!(VMTableDefinition, base) as i32, VMTableDefinition::BASE);
        assert_eq!(offset_of!(VMTableDefinition, length) as i32, VMTableDefinition::LENGTH);
        assert_eq!(offset_of!(VMTableDefinition, codes) as i32, VMTableDefinition::CODES);
        assert_eq!(1 << VMTableDefinition::ELEMENT_SIZE_LOG2, size_of::<usize>());
        assert_eq!(offset_of!(VMStoreContext, last_exit_fp) as i32, VMStoreContext::LAST_EXIT_FP);
        assert_eq!(offset_of!(VMStoreContext, fuel_consumed) as i32, VMStoreContext::FUEL_CONSUMED);
        assert_eq!(offset_of!(VMStoreContext, gc_base) as i32, VMStoreContext::GC_BASE);
        assert_eq!(offset_of!(VMStoreContext, gc_top) as i32, VMStoreContext::GC_TOP);
        assert_eq!(offset_of!(VMStoreContext, gc_limit) as i32, VMStoreContext::GC_LIMIT);
        assert_eq!(size_of::<VMGlobal>(), 16);
    }
}
