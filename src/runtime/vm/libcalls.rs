//! The builtins compiled code calls: growing memories and tables and the
//! bulk memory and table operations (see [`crate::builtins`]).
//!
//! Each takes the calling instance's VMContext first. The bulk operations
//! never unwind: they return nonzero when out of bounds and the compiled
//! caller traps with [`Builtin::trap_code`](crate::builtins::Builtin), so
//! the trap's backtrace starts at a wasm pc like any other trap.
//!
//! Safety of every builtin: it may only be called by compiled code of the
//! instance whose VMContext it gets, with indices the validator accepted.

use cranelift_codegen::entity::EntityRef;

use super::instance::VMInstance;
use super::memory::VMMemory;
use super::table::VMTable;
use crate::builtins::BuiltinFunctions;
use crate::index::*;
use crate::trap::TrapCode;
use crate::vmctx::VMContext;

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
};

/// The instance owning `vmctx`.
///
/// # Safety
/// `vmctx` must be the VMContext of a live instance, passed by its code.
unsafe fn instance<'a>(vmctx: *mut VMContext) -> &'a mut VMInstance {
    VMInstance::from_vmctx(vmctx)
}

/// Memory `m` of `inst`.
///
/// # Safety
/// `m` must be a memory index of `inst`'s module (compiled code passes only
/// validated ones), and no other reference to that memory may be live.
unsafe fn memory<'a>(inst: &VMInstance, m: u32) -> &'a mut VMMemory {
    &mut *inst.memory(MemoryIndex::from_u32(m)).as_ptr()
}

/// Table `t` of `inst`.
///
/// # Safety
/// As for [`memory`], for a table index.
unsafe fn table<'a>(inst: &VMInstance, t: u32) -> &'a mut VMTable {
    &mut *inst.table(TableIndex::from_u32(t)).as_ptr()
}

/// `start..start + len` if it lies within `0..size`.
fn range(start: u64, len: u64, size: usize) -> Result<std::ops::Range<usize>, ()> {
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

unsafe extern "C" fn memory_grow(vmctx: *mut VMContext, mem: u32, delta: u32) -> u32 {
    memory(instance(vmctx), mem).grow(delta).unwrap_or(u32::MAX)
}

unsafe extern "C" fn memory_fill(vmctx: *mut VMContext, mem: u32, dst: u64, byte: u32, len: u64) -> u32 {
    let m = memory(instance(vmctx), mem);
    check((|| {
        let r = range(dst, len, m.byte_size()).map_err(|_| TrapCode::MemoryOutOfBounds)?;
        m.data_mut()[r].fill(byte as u8);
        Ok(())
    })())
}

unsafe extern "C" fn memory_copy(
    vmctx: *mut VMContext,
    dst_mem: u32,
    dst: u64,
    src_mem: u32,
    src: u64,
    len: u64,
) -> u32 {
    let inst = instance(vmctx);
    let (d, s) = (memory(inst, dst_mem), memory(inst, src_mem));
    check((|| {
        let oob = |_| TrapCode::MemoryOutOfBounds;
        let dr = range(dst, len, d.byte_size()).map_err(oob)?;
        let sr = range(src, len, s.byte_size()).map_err(oob)?;
        // The two may be the same memory and overlap: copy as memmove does.
        let from = s.definition.base.add(sr.start);
        std::ptr::copy(from, d.definition.base.add(dr.start), dr.len());
        Ok(())
    })())
}

unsafe extern "C" fn memory_init(vmctx: *mut VMContext, mem: u32, data: u32, dst: u64, src: u32, len: u32) -> u32 {
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

unsafe extern "C" fn data_drop(vmctx: *mut VMContext, data: u32) {
    instance(vmctx).datas[data as usize] = 0..0;
}

unsafe extern "C" fn table_grow(vmctx: *mut VMContext, t: u32, delta: u32, init: usize) -> u32 {
    table(instance(vmctx), t).grow(delta, init).unwrap_or(u32::MAX)
}

unsafe extern "C" fn table_fill(vmctx: *mut VMContext, t: u32, dst: u32, value: usize, len: u32) -> u32 {
    check(table(instance(vmctx), t).fill(dst, value, len))
}

unsafe extern "C" fn table_copy(vmctx: *mut VMContext, dst_t: u32, src_t: u32, dst: u32, src: u32, len: u32) -> u32 {
    let inst = instance(vmctx);
    let (d, s) = (table(inst, dst_t), table(inst, src_t));
    check((|| {
        let oob = |_| TrapCode::TableOutOfBounds;
        let dr = range(dst as u64, len as u64, d.len() as usize).map_err(oob)?;
        let sr = range(src as u64, len as u64, s.len() as usize).map_err(oob)?;
        let from = s.elements().as_ptr().add(sr.start);
        std::ptr::copy(from, d.elements_mut().as_mut_ptr().add(dr.start), dr.len());
        Ok(())
    })())
}

unsafe extern "C" fn table_init(vmctx: *mut VMContext, t: u32, elem: u32, dst: u32, src: u32, len: u32) -> u32 {
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

unsafe extern "C" fn elem_drop(vmctx: *mut VMContext, elem: u32) {
    instance(vmctx).elems[elem as usize] = Box::default();
}
