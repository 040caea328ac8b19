//! The code address of a null slot in a frozen table's array of code
//! addresses (`VMTable::freeze_codes`): calling it traps with
//! "uninitialized element", as calling through the null funcref would.
//!
//! clang's function table has a null slot 0, so without a stand-in for
//! null, no clang table could have the array. The stub
//! ([`arch::null_call`]) makes a frame that leads backtraces to the return
//! address in the calling function, so the trap is reported at the
//! `call_indirect`, and the fault handler knows its trapping instruction
//! by address ([`trap_at`]), since the stub lies outside every module's
//! code.

use super::arch;
use crate::environ::trap::TrapCode;

/// The address to call for a null slot.
pub fn address() -> usize {
    arch::null_call as *const () as usize
}

/// The trap of a fault at `pc`, if it is the stub's trapping instruction.
pub fn trap_at(pc: usize) -> Option<TrapCode> {
    (pc == address() + arch::NULL_CALL_TRAP_OFFSET).then_some(TrapCode::IndirectCallToNull)
}
