//! The runtime functions compiled code calls (memory.grow, bulk memory,
//! table operations), declared once.
//!
//! Compiled code reaches them through a table of function pointers whose
//! address sits in every VMContext; this list fixes the table's order and
//! each function's signature. The translator reads the signatures from
//! [`Builtin`]; the runtime fills in [`BuiltinFunctions`], whose field types
//! come from the same list, so the two cannot disagree.

use crate::environ::vmctx::VMContext;

/// Parameter and result types of builtins, as the ABI passes them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AbiType {
    /// The calling instance's VMContext.
    VMContext,
    I32,
    I64,
    /// A pointer-sized value (a reference).
    Ptr,
}

macro_rules! rust_type {
    (vmctx) => { *mut VMContext };
    (i32) => { u32 };
    (i64) => { u64 };
    (ptr) => { usize };
}

macro_rules! abi_type {
    (vmctx) => {
        AbiType::VMContext
    };
    (i32) => {
        AbiType::I32
    };
    (i64) => {
        AbiType::I64
    };
    (ptr) => {
        AbiType::Ptr
    };
}

macro_rules! declare_builtins {
    ($( $(#[$doc:meta])* $name:ident ( $($param:ident),* ) $(-> $ret:ident)? ; )*) => {
        /// Names a builtin; its discriminant is its slot in the table.
        #[allow(non_camel_case_types)]
        #[derive(Copy, Clone, Debug, PartialEq, Eq)]
        pub enum Builtin { $($name),* }

        impl Builtin {
            pub fn params(self) -> &'static [AbiType] {
                match self { $(Builtin::$name => &[$(abi_type!($param)),*]),* }
            }
            pub fn result(self) -> Option<AbiType> {
                match self { $(Builtin::$name => { None $(.or(Some(abi_type!($ret))))? }),* }
            }
        }

        /// The table compiled code calls through, one field per builtin.
        #[repr(C)]
        pub struct BuiltinFunctions {
            $( $(#[$doc])* pub $name: unsafe extern "C" fn($(rust_type!($param)),*) $(-> rust_type!($ret))?, )*
        }
    };
}

// The bulk operations do not trap themselves: they return nonzero when out
// of bounds and the compiled caller traps (see `Builtin::trap_code`), so
// the trap is raised at a wasm pc and its backtrace starts in wasm.
declare_builtins! {
    /// `(mem, delta_pages)` → old size in pages, or -1: 64-bit, for
    /// 64-bit memories and 1-byte pages (32-bit code narrows it).
    memory_grow(vmctx, i32, i64) -> i64;
    /// `(mem, dst, byte, len)` → nonzero when out of bounds.
    memory_fill(vmctx, i32, i64, i32, i64) -> i32;
    /// `(dst_mem, dst, src_mem, src, len)` → nonzero when out of bounds.
    memory_copy(vmctx, i32, i64, i32, i64, i64) -> i32;
    /// `(mem, data, dst, src, len)` → nonzero when out of bounds.
    memory_init(vmctx, i32, i32, i64, i32, i32) -> i32;
    /// `(data)`.
    data_drop(vmctx, i32);
    /// `(table, delta, init)` → old size, or -1.
    table_grow(vmctx, i32, i32, ptr) -> i32;
    /// `(table, dst, value, len)` → nonzero when out of bounds.
    table_fill(vmctx, i32, i32, ptr, i32) -> i32;
    /// `(dst_table, src_table, dst, src, len)` → nonzero when out of bounds.
    table_copy(vmctx, i32, i32, i32, i32, i32) -> i32;
    /// `(table, elem, dst, src, len)` → nonzero when out of bounds.
    table_init(vmctx, i32, i32, i32, i32, i32) -> i32;
    /// `(elem)`.
    elem_drop(vmctx, i32);
    /// `(mem, addr, expected, timeout_ns)` → 0 woken, 1 not equal, 2 timed
    /// out. `addr` was checked (aligned, in bounds) by the caller, and the
    /// memory is shared.
    memory_atomic_wait32(vmctx, i32, i64, i32, i64) -> i32;
    /// As `memory_atomic_wait32`, on an 8-byte cell.
    memory_atomic_wait64(vmctx, i32, i64, i64, i64) -> i32;
    /// `(mem, addr, count)` → threads woken; `addr` checked by the caller.
    memory_atomic_notify(vmctx, i32, i64, i32) -> i32;
    /// `(tag)` → a new exception of tag `tag` with a zeroed payload, which
    /// the caller then writes (see `VMExn`).
    exn_new(vmctx, i32) -> ptr;
    /// `(exn, fp)`: throws `exn` from the wasm frame whose frame pointer
    /// is `fp` (which has no handler of its own for it); never returns.
    throw(vmctx, ptr, ptr);
    /// `(exn)`: a catch took the payload of `exn` and dropped it; frees it
    /// unless it was exposed (see `vmctx::exn::EXPOSED`).
    exn_release(vmctx, ptr);
    /// `(dst, src, len)`: `memmove` between two host addresses of a memory
    /// whose ranges the caller checked (`memory.copy`'s fast path).
    memory_move(vmctx, ptr, ptr, i64);
    /// `(size)` → the offset of `size` new zeroed bytes of the store's GC
    /// heap (the inline bump's slow path), or 0 when the heap is full.
    gc_alloc(vmctx, i64) -> i32;
    /// `(host_ptr)` → it boxed in the GC heap, or 0 when full.
    gc_box(vmctx, ptr) -> ptr;
    /// `(type, data, src, len)` → the new array, or 1 (segment out of
    /// bounds) or 3 (heap full).
    array_new_data(vmctx, i32, i32, i32, i32) -> ptr;
    /// `(type, elem, src, len)` → as `array_new_data`.
    array_new_elem(vmctx, i32, i32, i32, i32) -> ptr;
    /// `(type, array, dst, data, src, len)` → 0, 1 (array out of bounds)
    /// or 2 (segment out of bounds).
    array_init_data(vmctx, i32, ptr, i32, i32, i32, i32) -> i32;
    /// `(type, array, dst, elem, src, len)` → as `array_init_data`.
    array_init_elem(vmctx, i32, ptr, i32, i32, i32, i32) -> i32;
    /// `(dst, dst_index, src, src_index, len, elem_size)` → nonzero when
    /// out of bounds.
    array_copy(vmctx, ptr, i32, ptr, i32, i32, i32) -> i32;
    /// `(array, index, value_low, value_high, len, elem_size)` → nonzero
    /// when out of bounds.
    array_fill(vmctx, ptr, i32, i64, i64, i32, i32) -> i32;
}

impl Builtin {
    /// The trap compiled code raises when this builtin returns nonzero;
    /// `None` for builtins whose result is a value.
    pub fn trap_code(self) -> Option<crate::environ::trap::TrapCode> {
        use crate::environ::trap::TrapCode::*;
        match self {
            Builtin::memory_fill | Builtin::memory_copy | Builtin::memory_init => Some(MemoryOutOfBounds),
            Builtin::table_fill | Builtin::table_copy | Builtin::table_init => Some(TableOutOfBounds),
            Builtin::array_copy | Builtin::array_fill => Some(ArrayOutOfBounds),
            _ => None,
        }
    }

    /// Byte offset of this builtin's slot in [`BuiltinFunctions`].
    pub fn offset(self) -> i32 {
        self as i32 * std::mem::size_of::<usize>() as i32
    }
}
