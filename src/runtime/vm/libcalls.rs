//! The builtins compiled code calls: growing memories and tables, the
//! bulk memory and table operations, and atomic wait/notify (see
//! [`crate::builtins`]).
//!
//! Each takes the calling instance's VMContext first. The bulk operations
//! return nonzero when out of bounds and the compiled caller traps with
//! [`Builtin::trap_code`](crate::environ::builtins::Builtin), so the trap's
//! backtrace starts at a wasm pc like any other trap. The only unwinding
//! here is [`stop_if_interrupted`]'s.
//!
//! Safety of every builtin: it may only be called by compiled code of the
//! instance whose VMContext it gets, with indices the validator accepted.

use cranelift_entity::EntityRef;

use super::instance::VMInstance;
use super::interrupt;
use super::limits::GrowSite;
use super::memory::VMMemory;
use super::parking_lot;
use super::store::StoreOpaque;
use super::table::VMTable;
use super::unwind::{raise, UnwindReason};
use crate::environ::builtins::BuiltinFunctions;
use crate::environ::index::*;
use crate::environ::trap::TrapCode;
use crate::environ::vmctx::{header, VMContext, VMStoreContext};

pub const BUILTINS: BuiltinFunctions = BuiltinFunctions {
    memory_grow,
    memory_fill,
    memory_copy,
    memory_init,
    data_drop,
    table_grow,
    table_fill,
    table_copy,
    table_init,
    elem_drop,
    memory_atomic_wait32,
    memory_atomic_wait64,
    memory_atomic_notify,
    exn_new: super::exception::exn_new,
    throw: super::arch::throw_entry,
    exn_release: super::exception::exn_release,
    memory_move,
    gc_alloc: super::arch::gc_alloc_entry,
    gc_box: super::arch::gc_box_entry,
    array_new_data: super::arch::array_new_data_entry,
    array_new_elem: super::arch::array_new_elem_entry,
    array_init_data: super::gc::libcalls::array_init_data,
    array_init_elem: super::gc::libcalls::array_init_elem,
    array_copy: super::gc::libcalls::array_copy,
    array_fill: super::gc::libcalls::array_fill,
};

/// The store of the instance owning `vmctx`.
///
/// # Safety
/// As for [`instance`].
pub(crate) unsafe fn store(vmctx: *mut VMContext) -> *mut StoreOpaque {
    // SAFETY: `vmctx` is a live instance's (caller), whose store context
    // points at its live store.
    unsafe { (*store_context(vmctx)).store.cast() }
}

/// The store context of the instance owning `vmctx`.
///
/// # Safety
/// As for [`instance`].
unsafe fn store_context(vmctx: *mut VMContext) -> *const VMStoreContext {
    // SAFETY: `vmctx` is a live instance's (caller); every layout has the
    // store-context pointer at `header::STORE`.
    unsafe { *(vmctx as *const u8).add(header::STORE as usize).cast::<*const VMStoreContext>() }
}

/// Unwinds if a stop of the store's call is pending (an interrupt or an
/// epoch deadline).
/// Called first by the builtins that can take long or run in a tight loop
/// (bulk operations, growth): the interrupt signal stops only compiled
/// code, and a loop spending its time in here would otherwise rarely be
/// caught in wasm.
///
/// # Safety
/// `vmctx` must be the VMContext of a live instance, passed by its code;
/// the calling builtin must own nothing with a destructor yet.
#[inline]
unsafe fn stop_if_interrupted(vmctx: *mut VMContext) {
    // SAFETY: `vmctx` is a live instance's and the builtin owns nothing
    // with a destructor yet (caller), so unwinding from here is sound.
    unsafe {
        if let Some(code) = interrupt::of_store(store_context(vmctx)).and_then(|i| i.pending()) {
            raise(UnwindReason::Wasm(code));
        }
    }
}

/// The instance owning `vmctx`.
///
/// # Safety
/// `vmctx` must be the VMContext of a live instance, passed by its code.
pub(crate) unsafe fn instance<'a>(vmctx: *mut VMContext) -> &'a mut VMInstance {
    // SAFETY: `vmctx` is the VMContext of a live instance, passed by its
    // code (caller).
    unsafe { VMInstance::from_vmctx(vmctx) }
}

/// Memory `m` of `inst`.
///
/// # Safety
/// `m` must be a memory index of `inst`'s module (compiled code passes only
/// validated ones), and no other reference to that memory may be live.
unsafe fn memory<'a>(inst: &VMInstance, m: u32) -> &'a mut VMMemory {
    // SAFETY: `m` is a validated memory index of `inst`'s module, whose
    // memory lives as long as the instance and is not otherwise borrowed
    // (caller).
    unsafe { &mut *inst.memory(MemoryIndex::from_u32(m)).as_ptr() }
}

/// Table `t` of `inst`.
///
/// # Safety
/// As for [`memory`], for a table index.
unsafe fn table<'a>(inst: &VMInstance, t: u32) -> &'a mut VMTable {
    // SAFETY: as for `memory`: a validated table index, its table not
    // otherwise borrowed (caller).
    unsafe { &mut *inst.table(TableIndex::from_u32(t)).as_ptr() }
}

/// Base address and length in bytes of memory `m`'s accessible part.
///
/// # Safety
/// As for [`memory`]; other references to the memory may be live.
unsafe fn memory_extent(inst: &VMInstance, m: u32) -> (*mut u8, usize) {
    // SAFETY: a validated memory index of `inst` (caller); only the extent
    // is read, so other references may be live.
    unsafe {
        let memory = &*inst.memory(MemoryIndex::from_u32(m)).as_ptr();
        (memory.base(), memory.byte_size())
    }
}

/// Base address and length in elements of table `t`.
///
/// # Safety
/// As for [`memory_extent`], for a table index.
unsafe fn table_extent(inst: &VMInstance, t: u32) -> (*mut usize, usize) {
    // SAFETY: a validated table index of `inst` (caller); only the
    // definition's base and length are read.
    unsafe {
        let def = &(*inst.table(TableIndex::from_u32(t)).as_ptr()).definition;
        (def.base, def.length as usize)
    }
}

/// Copies `len` elements from index `src` of `from` to index `dst` of `to`
/// (each a base address and a length) as memmove does: the two may be the
/// same storage and overlap. Returns the status of a bulk builtin: nonzero,
/// and nothing copied, when either range is out of bounds.
///
/// # Safety
/// Each base must address that many elements, valid for reads (`from`) and
/// writes (`to`).
unsafe fn copy_checked<T>(to: (*mut T, usize), dst: u64, from: (*mut T, usize), src: u64, len: u64) -> u32 {
    // SAFETY: both ranges were checked against their lengths above, and
    // each base addresses that many elements (caller); `copy` allows the
    // overlap.
    unsafe {
        match (range(dst, len, to.1), range(src, len, from.1)) {
            (Ok(d), Ok(s)) => {
                std::ptr::copy(from.0.add(s.start), to.0.add(d.start), d.len());
                0
            }
            _ => 1,
        }
    }
}

/// `start..start + len` if it lies within `0..size`.
pub(crate) fn range(start: u64, len: u64, size: usize) -> Result<std::ops::Range<usize>, ()> {
    let end = start.checked_add(len).ok_or(())?;
    if end > size as u64 {
        return Err(());
    }
    Ok(start as usize..end as usize)
}

/// The status a bulk builtin returns: 0 on success, 1 when the compiled
/// caller must trap.
fn check(r: Result<(), TrapCode>) -> u32 {
    r.is_err() as u32
}

unsafe extern "C" fn memory_grow(vmctx: *mut VMContext, mem: u32, delta: u64) -> u64 {
    // SAFETY: compiled code calls builtins with its own VMContext, of a
    // live instance of the store it runs in, and with indices its module's
    // validation proved; nothing else borrows that instance's memories or
    // tables while a builtin runs.
    unsafe {
        stop_if_interrupted(vmctx);
        let inst = instance(vmctx);
        let site = GrowSite { instance: Some(inst.index()), memory_index: Some(mem) };
        let memory: *mut VMMemory = memory(inst, mem);
        (*store(vmctx)).grow_memory(memory, delta, site).unwrap_or(u64::MAX)
    }
}

unsafe extern "C" fn memory_fill(vmctx: *mut VMContext, mem: u32, dst: u64, byte: u32, len: u64) -> u32 {
    // SAFETY: compiled code calls builtins with its own VMContext, of a
    // live instance of the store it runs in, and with indices its module's
    // validation proved; nothing else borrows that instance's memories or
    // tables while a builtin runs.
    unsafe {
        stop_if_interrupted(vmctx);
        let m = memory(instance(vmctx), mem);
        check((|| {
            let r = range(dst, len, m.byte_size()).map_err(|_| TrapCode::MemoryOutOfBounds)?;
            m.data_mut()[r].fill(byte as u8);
            Ok(())
        })())
    }
}

unsafe extern "C" fn memory_copy(
    vmctx: *mut VMContext,
    dst_mem: u32,
    dst: u64,
    src_mem: u32,
    src: u64,
    len: u64,
) -> u32 {
    // SAFETY: compiled code calls builtins with its own VMContext, of a
    // live instance of the store it runs in, and with indices its module's
    // validation proved; nothing else borrows that instance's memories or
    // tables while a builtin runs.
    unsafe {
        stop_if_interrupted(vmctx);
        let inst = instance(vmctx);
        copy_checked(memory_extent(inst, dst_mem), dst, memory_extent(inst, src_mem), src, len)
    }
}

/// `memory.copy`'s fast path (see `FuncEnv::memory_copy`): compiled code
/// checked both ranges against the memory's length and passes host
/// addresses. No interrupt check: the copies that come here are short, and
/// a signal that lands in here is sent again (see `interrupt`).
unsafe extern "C" fn memory_move(_vmctx: *mut VMContext, dst: usize, src: usize, len: u64) {
    // SAFETY: the caller, compiled code, checked that `src..src + len` and
    // `dst..dst + len` lie in one live memory; `copy` allows the overlap.
    unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, len as usize) }
}

unsafe extern "C" fn memory_init(vmctx: *mut VMContext, mem: u32, data: u32, dst: u64, src: u32, len: u32) -> u32 {
    // SAFETY: compiled code calls builtins with its own VMContext, of a
    // live instance of the store it runs in, and with indices its module's
    // validation proved; nothing else borrows that instance's memories or
    // tables while a builtin runs.
    unsafe {
        stop_if_interrupted(vmctx);
        let inst = instance(vmctx);
        let m = memory(inst, mem);
        check((|| {
            let oob = |_| TrapCode::MemoryOutOfBounds;
            let seg = inst.datas[data as usize].clone();
            let bytes = &inst.module.wasm()[seg];
            let sr = range(src as u64, len as u64, bytes.len()).map_err(oob)?;
            let dr = range(dst, len as u64, m.byte_size()).map_err(oob)?;
            m.data_mut()[dr].copy_from_slice(&bytes[sr]);
            Ok(())
        })())
    }
}

unsafe extern "C" fn data_drop(vmctx: *mut VMContext, data: u32) {
    // SAFETY: compiled code calls builtins with its own VMContext, of a
    // live instance of the store it runs in, and with indices its module's
    // validation proved; nothing else borrows that instance's memories or
    // tables while a builtin runs.
    unsafe {
        instance(vmctx).datas[data as usize] = 0..0;
    }
}

unsafe extern "C" fn table_grow(vmctx: *mut VMContext, t: u32, delta: u32, init: usize) -> u32 {
    // SAFETY: compiled code calls builtins with its own VMContext, of a
    // live instance of the store it runs in, and with indices its module's
    // validation proved; nothing else borrows that instance's memories or
    // tables while a builtin runs.
    unsafe {
        stop_if_interrupted(vmctx);
        let table: *mut VMTable = table(instance(vmctx), t);
        (*store(vmctx)).grow_table(table, delta, init).unwrap_or(u32::MAX)
    }
}

unsafe extern "C" fn table_fill(vmctx: *mut VMContext, t: u32, dst: u32, value: usize, len: u32) -> u32 {
    // SAFETY: compiled code calls builtins with its own VMContext, of a
    // live instance of the store it runs in, and with indices its module's
    // validation proved; nothing else borrows that instance's memories or
    // tables while a builtin runs.
    unsafe {
        stop_if_interrupted(vmctx);
        check(table(instance(vmctx), t).fill(dst, value, len))
    }
}

unsafe extern "C" fn table_copy(vmctx: *mut VMContext, dst_t: u32, src_t: u32, dst: u32, src: u32, len: u32) -> u32 {
    // SAFETY: compiled code calls builtins with its own VMContext, of a
    // live instance of the store it runs in, and with indices its module's
    // validation proved; nothing else borrows that instance's memories or
    // tables while a builtin runs.
    unsafe {
        stop_if_interrupted(vmctx);
        let inst = instance(vmctx);
        copy_checked(table_extent(inst, dst_t), dst.into(), table_extent(inst, src_t), src.into(), len.into())
    }
}

unsafe extern "C" fn table_init(vmctx: *mut VMContext, t: u32, elem: u32, dst: u32, src: u32, len: u32) -> u32 {
    // SAFETY: compiled code calls builtins with its own VMContext, of a
    // live instance of the store it runs in, and with indices its module's
    // validation proved; nothing else borrows that instance's memories or
    // tables while a builtin runs.
    unsafe {
        stop_if_interrupted(vmctx);
        let inst = instance(vmctx);
        let tb = table(inst, t);
        check((|| {
            let oob = |_| TrapCode::TableOutOfBounds;
            let items = &inst.elems[ElemIndex::from_u32(elem).index()];
            let sr = range(src as u64, len as u64, items.len()).map_err(oob)?;
            let dr = range(dst as u64, len as u64, tb.len() as usize).map_err(oob)?;
            tb.elements_mut()[dr].copy_from_slice(&items[sr]);
            Ok(())
        })())
    }
}

unsafe extern "C" fn elem_drop(vmctx: *mut VMContext, elem: u32) {
    // SAFETY: compiled code calls builtins with its own VMContext, of a
    // live instance of the store it runs in, and with indices its module's
    // validation proved; nothing else borrows that instance's memories or
    // tables while a builtin runs.
    unsafe {
        instance(vmctx).elems[elem as usize] = Box::default();
    }
}

/// The host address of byte `addr` of memory `mem`, which compiled code
/// checked to start an aligned cell in bounds.
///
/// # Safety
/// As for [`memory_extent`]; `addr` must be such a checked address.
unsafe fn cell(vmctx: *mut VMContext, mem: u32, addr: u64) -> usize {
    // SAFETY: a validated memory index, and an address compiled code
    // checked to be an aligned cell in bounds (caller).
    unsafe { memory_extent(instance(vmctx), mem).0 as usize + addr as usize }
}

/// A wait's timeout: negative means forever.
fn timeout(ns: u64) -> Option<std::time::Duration> {
    (ns as i64 >= 0).then(|| std::time::Duration::from_nanos(ns))
}

unsafe extern "C" fn memory_atomic_wait32(vmctx: *mut VMContext, mem: u32, addr: u64, expected: u32, ns: u64) -> u32 {
    // SAFETY: compiled code calls builtins with its own VMContext, of a
    // live instance of the store it runs in, and with indices its module's
    // validation proved; nothing else borrows that instance's memories or
    // tables while a builtin runs.
    unsafe { wait(vmctx, mem, addr, expected, ns) }
}

unsafe extern "C" fn memory_atomic_wait64(vmctx: *mut VMContext, mem: u32, addr: u64, expected: u64, ns: u64) -> u32 {
    // SAFETY: compiled code calls builtins with its own VMContext, of a
    // live instance of the store it runs in, and with indices its module's
    // validation proved; nothing else borrows that instance's memories or
    // tables while a builtin runs.
    unsafe { wait(vmctx, mem, addr, expected, ns) }
}

/// A wait of wasm code, which an interrupt of its store ends with a trap
/// (a program stopping its threads wakes those that wait).
///
/// # Safety
/// As for [`cell`]; the memory is shared (the translator traps before
/// calling otherwise), so it stays mapped while any store using it lives,
/// and this thread's store is in use.
unsafe fn wait<T: parking_lot::Cell>(vmctx: *mut VMContext, mem: u32, addr: u64, expected: T, ns: u64) -> u32 {
    // SAFETY: the cell is checked and its memory shared, so mapped for the
    // whole wait; nothing with a destructor is live when it unwinds
    // (caller).
    unsafe {
        let stop = interrupt::of_store(store_context(vmctx));
        match parking_lot::wait_or_stop(cell(vmctx, mem, addr), expected, timeout(ns), stop) {
            Ok(r) => r as u32,
            // Nothing with a destructor is live here.
            Err(code) => raise(UnwindReason::Wasm(code)),
        }
    }
}

unsafe extern "C" fn memory_atomic_notify(vmctx: *mut VMContext, mem: u32, addr: u64, count: u32) -> u32 {
    // SAFETY: compiled code calls builtins with its own VMContext, of a
    // live instance of the store it runs in, and with indices its module's
    // validation proved; nothing else borrows that instance's memories or
    // tables while a builtin runs.
    unsafe { parking_lot::notify(cell(vmctx, mem, addr), count) }
}
