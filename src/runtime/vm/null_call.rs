//! The code address of a null slot in a frozen table's array of code
//! addresses (`VMTable::freeze_codes`): calling it traps with
//! "uninitialized element", as calling through the null funcref would.
//!
//! clang's function table has a null slot 0, so without a stand-in for
//! null, no clang table could have the array. The stub is
//! `push rbp; mov rbp, rsp; ud2`: the frame it makes leads backtraces to
//! the return address in the calling function, so the trap is reported at
//! the `call_indirect`, and the fault handler knows the `ud2` by address
//! ([`trap_at`]), since the stub lies outside every module's code.

std::arch::global_asm!(
    ".text",
    ".globl cranewasm_null_call",
    ".hidden cranewasm_null_call",
    ".type cranewasm_null_call,@function",
    ".p2align 4",
    "cranewasm_null_call:",
    "push rbp",
    "mov rbp, rsp",
    ".globl cranewasm_null_call_trap",
    ".hidden cranewasm_null_call_trap",
    "cranewasm_null_call_trap:",
    "ud2",
    ".size cranewasm_null_call, . - cranewasm_null_call",
);

extern "C" {
    fn cranewasm_null_call();
    fn cranewasm_null_call_trap();
}

/// The address to call for a null slot.
pub fn address() -> usize {
    cranewasm_null_call as *const () as usize
}

/// The trap of a fault at `pc`, if it is the stub's `ud2`.
pub fn trap_at(pc: usize) -> Option<crate::environ::trap::TrapCode> {
    (pc == cranewasm_null_call_trap as *const () as usize)
        .then_some(crate::environ::trap::TrapCode::UninitializedElement)
}
