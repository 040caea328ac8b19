//! The stubs of lazily compiled functions and the way from a stub into
//! the compiler and on to the compiled code (see `compile::lazy`).
//!
//! A stub (16 bytes, 16-aligned, in the module's region at offset `at`):
//!
//! ```text
//! at+0:  4c 8d 1d f9 ff ff ff   lea r11, [rip - 7]      ; r11 = the stub's address
//! at+7:  90                     nop
//! at+8:  ff 25 <rel32>          jmp [region + 0]        ; the lazy trampoline
//! at+14: cc cc
//! ```
//!
//! Once its function is compiled, bytes 0..8 become, in one aligned 8-byte
//! store, `e9 <rel32>; 66 90; 90` (`jmp code`, then nops). A thread may be
//! at any instruction boundary of the old stub when the store lands: at 0
//! it runs either version whole; at 7 or 8 it finds the same bytes in
//! both (`90`, then the unchanged `jmp` to the trampoline) with `r11`
//! already set, and the compiler, finding the function compiled, sends it
//! to the code. The new version has a boundary at 5 only after its `jmp`,
//! which never falls through.
//!
//! The trampoline, entered with the wasm callee's arguments in place and
//! the caller's return address on top of the stack, saves every register
//! the wasm calling convention (Cranelift's `tail`: `rdi`, `rsi`, `rdx`,
//! `rcx`, `r8`, `r9`, `xmm0`-`xmm7`) passes arguments in, calls
//! [`cranewasm_lazy_compile`], restores them and jumps to the address it
//! returned, so the function runs as if called directly. It keeps a frame
//! pointer chain, so a trap raised while compiling records the wasm
//! caller's frames.

use std::panic::{catch_unwind, AssertUnwindSafe};

use super::code_registry;
use super::stack;
use super::unwind::{self, UnwindReason};
use crate::environ::trap::{Trap, TrapCode};

pub const STUB_SIZE: usize = 16;

/// Stack that compiling a function may need: what eager compilation's
/// threads get (Rust's default 2 MiB). With less left below the caller
/// (deep wasm recursion, a small thread), the function is compiled on a
/// helper thread with [`HELPER_STACK`]; Cranelift running out of stack
/// would be a crash, not a trap.
const COMPILE_STACK: usize = 2 << 20;
const HELPER_STACK: usize = 8 << 20;

/// The bytes of the stub at offset `at` of its region: lazy while `code`
/// is 0, else jumping to the code at offset `code`.
pub fn stub(at: usize, code: usize) -> [u8; STUB_SIZE] {
    let mut s = [0xcc; STUB_SIZE];
    if code == 0 {
        s[..8].copy_from_slice(&[0x4c, 0x8d, 0x1d, 0xf9, 0xff, 0xff, 0xff, 0x90]);
    } else {
        let rel = (code as i64 - (at as i64 + 5)) as i32;
        s[0] = 0xe9;
        s[1..5].copy_from_slice(&rel.to_le_bytes());
        s[5..8].copy_from_slice(&[0x66, 0x90, 0x90]);
    }
    // The trampoline's address is at offset 0 of the region.
    let rel = -(at as i64 + 14) as i32;
    s[8..10].copy_from_slice(&[0xff, 0x25]);
    s[10..14].copy_from_slice(&rel.to_le_bytes());
    s
}

std::arch::global_asm!(
    ".text",
    ".globl cranewasm_lazy_trampoline",
    ".hidden cranewasm_lazy_trampoline",
    ".type cranewasm_lazy_trampoline,@function",
    ".p2align 4",
    "cranewasm_lazy_trampoline:",
    // Entered with rsp = 8 mod 16 (a call's return address on top).
    "push rbp",
    "mov rbp, rsp",
    "sub rsp, 176",
    "mov [rsp], rdi",
    "mov [rsp + 8], rsi",
    "mov [rsp + 16], rdx",
    "mov [rsp + 24], rcx",
    "mov [rsp + 32], r8",
    "mov [rsp + 40], r9",
    "movdqu [rsp + 48], xmm0",
    "movdqu [rsp + 64], xmm1",
    "movdqu [rsp + 80], xmm2",
    "movdqu [rsp + 96], xmm3",
    "movdqu [rsp + 112], xmm4",
    "movdqu [rsp + 128], xmm5",
    "movdqu [rsp + 144], xmm6",
    "movdqu [rsp + 160], xmm7",
    "mov rdi, r11",
    "mov rsi, rbp",
    "call {compile}",
    "mov rdi, [rsp]",
    "mov rsi, [rsp + 8]",
    "mov rdx, [rsp + 16]",
    "mov rcx, [rsp + 24]",
    "mov r8, [rsp + 32]",
    "mov r9, [rsp + 40]",
    "movdqu xmm0, [rsp + 48]",
    "movdqu xmm1, [rsp + 64]",
    "movdqu xmm2, [rsp + 80]",
    "movdqu xmm3, [rsp + 96]",
    "movdqu xmm4, [rsp + 112]",
    "movdqu xmm5, [rsp + 128]",
    "movdqu xmm6, [rsp + 144]",
    "movdqu xmm7, [rsp + 160]",
    "mov rsp, rbp",
    "pop rbp",
    "jmp rax",
    ".size cranewasm_lazy_trampoline, . - cranewasm_lazy_trampoline",
    compile = sym cranewasm_lazy_compile,
);

extern "C" {
    fn cranewasm_lazy_trampoline();
}

/// The address the stubs jump to.
pub fn trampoline_address() -> usize {
    cranewasm_lazy_trampoline as *const () as usize
}

/// Compiles the function of the stub at `stub` (if no thread has) and
/// returns the address of its code; called by the trampoline only, on the
/// thread running wasm, whose frame pointer into the caller is `fp`. A
/// function that cannot be compiled traps.
///
/// # Safety
/// Called only by the trampoline, from compiled code under `catch_traps`.
unsafe extern "C" fn cranewasm_lazy_compile(stub: usize, fp: usize) -> usize {
    // Nothing with a destructor is live past this match: raising skips them.
    let reason = match compile_for_stub(stub) {
        Ok(addr) => return addr,
        Err(reason) => reason,
    };
    if let Some(state) = unwind::current() {
        // SAFETY: `fp` is the trampoline's frame, linked to its wasm caller's.
        state.record_frames(0, fp, code_registry::is_wasm_pc);
    }
    unwind::raise(reason)
}

fn compile_for_stub(stub: usize) -> Result<usize, UnwindReason> {
    let fail = |message: String| UnwindReason::Host(Trap::new(message));
    let code = code_registry::lookup(stub).ok_or_else(|| fail("lazy stub of no module".into()))?;
    let lazy = code.compiled.lazy.as_ref().ok_or_else(|| fail("lazy stub in an eager module".into()))?;
    let offset = stub - code.compiled.code.base() as usize;
    let d = lazy.stub_function(offset).ok_or_else(|| fail(format!("no lazy stub at {offset:#x}")))?;
    if let Some(addr) = lazy.compiled(d) {
        return Ok(addr);
    }
    let compile = || {
        let result = catch_unwind(AssertUnwindSafe(|| lazy.compile(d, &code.info)));
        result.unwrap_or_else(|_| Err(crate::environ::error::Error::Unsupported("the compiler panicked".into())))
    };
    let result = if stack::remaining_here() >= COMPILE_STACK {
        compile()
    } else {
        // Deep in wasm recursion: compile where there is room, or trap as
        // the recursion would have.
        std::thread::scope(|s| {
            let helper = std::thread::Builder::new().name("cranewasm-lazy".into()).stack_size(HELPER_STACK);
            match helper.spawn_scoped(s, compile) {
                Ok(h) => h.join().map_err(|_| ()),
                Err(_) => Err(()),
            }
        })
        .map_err(|()| UnwindReason::Wasm(TrapCode::StackOverflow))?
    };
    let func = code.info.func_index(d).as_u32();
    result.map_err(|e| fail(format!("lazy compilation of function {func} failed: {e}")))
}
