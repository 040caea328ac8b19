//! x86-64, System V calling convention (Linux; macOS compiles).

use std::ffi::c_void;

// ---------------------------------------------------------------------------
// Traps: the jump buffer (see `unwind`)

/// Callee-saved registers (rbx, rbp, r12-r15), the stack pointer and the
/// resume address of a [`try_call`] activation.
#[repr(C)]
pub struct JmpBuf([usize; 8]);

/// Saves the caller's callee-saved registers, stack pointer and return
/// address in `buf`, then calls `body(data)`: returns 0 when `body`
/// returns, 1 when [`unwind`] jumps back through `buf`. Rust has no sound
/// `setjmp`, hence these few instructions.
///
/// # Safety
/// `buf` must stay valid while `body` runs; frames between here and an
/// `unwind` must own nothing with a destructor (see `unwind::catch_traps`).
#[unsafe(naked)]
pub unsafe extern "C" fn try_call(buf: *mut JmpBuf, body: unsafe extern "C" fn(*mut u8), data: *mut u8) -> u32 {
    // Naked functions get no call-frame information of their own; this
    // one says how its stack moves, for debuggers and profilers.
    std::arch::naked_asm!(
        ".cfi_startproc",
        "mov [rdi], rbx",
        "mov [rdi + 8], rbp",
        "mov [rdi + 16], r12",
        "mov [rdi + 24], r13",
        "mov [rdi + 32], r14",
        "mov [rdi + 40], r15",
        "lea rax, [rsp + 8]",
        "mov [rdi + 48], rax",
        "mov rax, [rsp]",
        "mov [rdi + 56], rax",
        "sub rsp, 8",
        ".cfi_adjust_cfa_offset 8",
        "mov rdi, rdx",
        "call rsi",
        "add rsp, 8",
        ".cfi_adjust_cfa_offset -8",
        "xor eax, eax",
        "ret",
        ".cfi_endproc",
    )
}

/// Restores what [`try_call`] saved in `buf`, so that it returns 1.
///
/// # Safety
/// `buf` must be the buffer of a `try_call` still running on this thread,
/// and the frames jumped over must own nothing with a destructor.
#[unsafe(naked)]
pub unsafe extern "C" fn unwind(buf: *const JmpBuf) -> ! {
    std::arch::naked_asm!(
        "mov rbx, [rdi]",
        "mov rbp, [rdi + 8]",
        "mov r12, [rdi + 16]",
        "mov r13, [rdi + 24]",
        "mov r14, [rdi + 32]",
        "mov r15, [rdi + 40]",
        "mov rsp, [rdi + 48]",
        "mov eax, 1",
        "jmp qword ptr [rdi + 56]",
    )
}

/// The builtin `throw` as compiled code calls it, `(vmctx, exn, fp)`: it
/// adds its own return address, the throwing call site, as a fourth
/// argument and jumps to [`super::exception::throw_at`]. A throw that was
/// inlined into a `try_call` site is itself a `try_call` of this builtin,
/// and its handler is found from that return address (see
/// `vm::exception`).
///
/// Compiled code calls it with Cranelift's `tail` convention (see
/// `compile::func_env::call`), whose first integer arguments are in the C
/// convention's registers on x86-64 (rdi, rsi, rdx), and whose stack at a
/// call is aligned as C's.
///
/// # Safety
/// As for `throw_at`: called by compiled code only.
#[unsafe(naked)]
pub unsafe extern "C" fn throw_entry(vmctx: *mut crate::environ::vmctx::VMContext, exn: usize, fp: usize) {
    // The return address is on top of the stack; the fourth argument
    // register is rcx. The jump keeps the stack as the call left it.
    std::arch::naked_asm!("mov rcx, [rsp]", "jmp {throw}", throw = sym super::super::exception::throw_at)
}

/// Defines `$name`, the entry through which compiled code calls builtin
/// `$target` (C convention, at most six integer arguments, the VMContext
/// first) when the builtin may collect garbage. The entry makes a frame of
/// its own, whose saved frame pointer and return address are the calling
/// wasm frame's and its call site, and records it as the store's exit
/// record (`VMStoreContext::last_exit_fp`) for the call, as a host call's
/// trampoline does: the collector walks the wasm frames from there
/// (`gc::roots`). The previous record comes back on return.
macro_rules! gc_exit_entry {
    ($name:ident => $target:path, ($($arg:ident: $ty:ty),*) -> $ret:ty) => {
        /// The GC exit entry of the builtin named (see `gc_exit_entry!`).
        ///
        /// # Safety
        /// Called by compiled code only, as the builtin itself is.
        #[unsafe(naked)]
        pub unsafe extern "C" fn $name(vmctx: *mut crate::environ::vmctx::VMContext, $($arg: $ty),*) -> $ret {
            // rax is no argument register; rcx and rdx are free once the
            // builtin returned. Three pushes keep the call 16-byte aligned.
            std::arch::naked_asm!(
                "push rbp",
                "mov rbp, rsp",
                "mov rax, qword ptr [rdi + {store}]",
                "push qword ptr [rax + {exit}]",
                "push rax",
                "mov qword ptr [rax + {exit}], rbp",
                "call {target}",
                "pop rcx",
                "pop rdx",
                "mov qword ptr [rcx + {exit}], rdx",
                "pop rbp",
                "ret",
                store = const crate::environ::vmctx::header::STORE,
                exit = const crate::environ::vmctx::VMStoreContext::LAST_EXIT_FP,
                target = sym $target,
            )
        }
    };
}

/// Resumes compiled code at exception handler `pc` of the frame whose
/// frame pointer is `fp` and whose stack pointer at the call was `sp`,
/// with `exn` in the first payload register (rax, as Cranelift's
/// `try_call` expects on x86-64). The handler treats every other register
/// as clobbered.
///
/// # Safety
/// `pc`, `sp` and `fp` must be a handler of a call in progress on this
/// thread's stack and that call's frame; the frames jumped over must own
/// nothing with a destructor.
#[unsafe(naked)]
pub unsafe extern "C" fn resume_at_handler(pc: usize, sp: usize, fp: usize, exn: usize) -> ! {
    std::arch::naked_asm!("mov rsp, rsi", "mov rbp, rdx", "mov rax, rcx", "jmp rdi")
}

/// The program counter and frame pointer of a signal's `ucontext_t`.
///
/// # Safety
/// `context` must be the context argument of an `SA_SIGINFO` handler.
#[cfg(target_os = "linux")]
pub unsafe fn context_pc_fp(context: *mut c_void) -> (usize, usize) {
    // SAFETY: as the caller promises.
    let uc = unsafe { &*(context as *const libc::ucontext_t) };
    (uc.uc_mcontext.gregs[libc::REG_RIP as usize] as usize, uc.uc_mcontext.gregs[libc::REG_RBP as usize] as usize)
}

/// The program counter and frame pointer of a signal's `ucontext_t`
/// (Darwin keeps the registers behind a pointer).
///
/// # Safety
/// `context` must be the context argument of an `SA_SIGINFO` handler.
#[cfg(target_vendor = "apple")]
pub unsafe fn context_pc_fp(context: *mut c_void) -> (usize, usize) {
    // SAFETY: as the caller promises; the kernel fills `uc_mcontext`.
    let ss = unsafe { &(*(*(context as *const libc::ucontext_t)).uc_mcontext).__ss };
    (ss.__rip as usize, ss.__rbp as usize)
}

/// The size of a return address on the stack above a frame pointer: a
/// frame's return address is at `fp + 8`, its caller's frame pointer at
/// `fp`.
pub const RETURN_ADDRESS_OFFSET: usize = 8;

/// The ELF machine of this CPU (`EM_X86_64`), for jitdump's header.
pub const ELF_MACHINE: u32 = 62;

// ---------------------------------------------------------------------------
// Instruction cache

/// Nothing to do: x86 keeps instruction fetch coherent with stores (see
/// the AArch64 version for what other CPUs need).
#[inline(always)]
pub fn flush_icache(_start: usize, _len: usize) {}

/// Whether code written as data needs [`flush_icache`] and a cross-core
/// synchronisation before it runs.
pub const INCOHERENT_ICACHE: bool = false;

// ---------------------------------------------------------------------------
// The null-call stub (see `null_call`)

/// The code address of a null slot in a frozen table's code array:
/// `push rbp; mov rbp, rsp; ud2`. The frame it makes leads backtraces to
/// the return address in the calling function, so the trap is reported at
/// the `call_indirect`.
///
/// # Safety
/// Only ever called by compiled code, which handles the trap it raises.
#[unsafe(naked)]
pub unsafe extern "C" fn null_call() {
    std::arch::naked_asm!("push rbp", "mov rbp, rsp", "ud2")
}

/// Offset of [`null_call`]'s trapping instruction from its start.
pub const NULL_CALL_TRAP_OFFSET: usize = 4;

// ---------------------------------------------------------------------------
// Lazy compilation (see `lazy_stub`)

/// How far a direct call reaches (`call rel32`).
pub const DIRECT_CALL_REACH: usize = 1 << 31;

/// Bytes per lazy stub.
pub const LAZY_STUB_SIZE: usize = 16;

/// Offset in a stub of the 8 bytes that publishing its code replaces.
pub const LAZY_STUB_PATCH_AT: usize = 0;

/// The bytes of the lazy stub at offset `at` of its region: lazy while
/// `code` is 0, else jumping to the code at offset `code` (the region's
/// address is not needed: every target is `rip`-relative).
///
/// ```text
/// at+0:  4c 8d 1d f9 ff ff ff   lea r11, [rip - 7]      ; r11 = the stub's address
/// at+7:  90                     nop
/// at+8:  ff 25 <rel32>          jmp [region + 0]        ; the lazy trampoline
/// at+14: cc cc
/// ```
///
/// Once its function is compiled, bytes 0..8 become, in one aligned 8-byte
/// store, `e9 <rel32>; 66 90; 90` (`jmp code`, then nops). A thread may be
/// at any instruction boundary of the old stub when the store lands: at 0
/// it runs either version whole; at 7 or 8 it finds the same bytes in
/// both (`90`, then the unchanged `jmp` to the trampoline) with `r11`
/// already set, and the compiler, finding the function compiled, sends it
/// to the code. The new version has a boundary at 5 only after its `jmp`,
/// which never falls through. (x86 keeps instruction fetch coherent with
/// stores, so no cache maintenance is needed.)
pub fn lazy_stub(at: usize, code: usize, _base: usize) -> [u8; LAZY_STUB_SIZE] {
    let mut s = [0xcc; LAZY_STUB_SIZE];
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

/// A naked function entered, in place of a wasm function, with that
/// function's arguments in place and the caller's return address on top of
/// the stack: it saves every register the wasm calling convention
/// (Cranelift's `tail`: rdi, rsi, rdx, rcx, r8, r9, xmm0-xmm7) passes
/// arguments in, calls `$resolve(first, fp)` (`first` from the register
/// `$first`, `fp` its own frame pointer, linked to the wasm caller's),
/// restores them and jumps to the address it returned, so the function
/// there runs as if called directly. Stack arguments stay where they are.
macro_rules! resolving_jump {
    ($(#[$doc:meta])* $name:ident, $first:literal, $resolve:path) => {
        $(#[$doc])*
        #[unsafe(naked)]
        pub unsafe extern "C" fn $name() {
            std::arch::naked_asm!(
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
                concat!("mov rdi, ", $first),
                "mov rsi, rbp",
                "call {resolve}",
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
                resolve = sym $resolve,
            )
        }
    };
}

resolving_jump!(
    /// Where the lazy stubs jump, with the stub's address in r11: compiles
    /// the function (`lazy_stub::lazy_compile`) and runs it. It keeps the
    /// frame pointer chain, so a trap raised while compiling records the
    /// wasm caller's frames.
    ///
    /// # Safety
    /// Only jumped to by a lazy stub.
    lazy_trampoline,
    "r11",
    crate::runtime::vm::lazy_stub::lazy_compile
);

resolving_jump!(
    /// A host function's code for wasm until its exit trampoline is known
    /// (`late_exit`): rdi, the callee's context, is the `VMHostFunc`.
    ///
    /// # Safety
    /// Only called by wasm through the funcref of a `VMHostFunc`.
    late_exit_trampoline,
    "rdi",
    crate::runtime::vm::late_exit::resolve
);

// ---------------------------------------------------------------------------
// Valgrind

/// Valgrind's client request `request` with `args`: its answer, or 0 when
/// not under valgrind. Natively the sequence below changes nothing (the
/// four rotations of `rdi` add up to 128 bits, and `xchg rbx, rbx` is a
/// no-op), so `rdx` keeps the 0 it was given; valgrind recognises the
/// sequence, performs the request and puts its answer in `rdx` instead.
pub fn valgrind_request(request: u64, args: [u64; 5]) -> u64 {
    let words: [u64; 6] = [request, args[0], args[1], args[2], args[3], args[4]];
    let answer: u64;
    // SAFETY: the instructions only rotate `rdi` back to its value and
    // exchange `rbx` with itself; valgrind, if present, reads the six words
    // of `words` (alive and initialised for the whole block) and writes
    // only `rdx`. Flags are clobbered, which asm! assumes by default.
    unsafe {
        std::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            inout("rdx") 0u64 => answer,
            in("rax") words.as_ptr(),
            inout("rdi") 0u64 => _,
            options(nostack, readonly),
        );
    }
    answer
}

/// Whether the process runs under valgrind: its `RUNNING_ON_VALGRIND`
/// client request, which valgrind answers with its nesting depth.
pub fn running_on_valgrind() -> bool {
    const VG_USERREQ_RUNNING_ON_VALGRIND: u64 = 0x1001;
    valgrind_request(VG_USERREQ_RUNNING_ON_VALGRIND, [0; 5]) != 0
}

// ---------------------------------------------------------------------------
// C variadic functions (the C API's `wasm_runtime_call_wasm_v`)

/// The arguments of a C variadic function as a [`c_variadic_entry!`]
/// stub saved them, read in order: System V passes the first six
/// integer-class arguments in rdi, rsi, rdx, rcx, r8, r9 and the first
/// eight floating-point ones in xmm0-xmm7, the rest on the stack in order.
pub struct VaArgs {
    regs: *const u64,
    stack: *const u64,
    gp: usize,
    fp: usize,
    spill: usize,
}

impl VaArgs {
    /// The arguments after `fixed` integer-class fixed ones, from the
    /// stub's saved registers `regs` (six integer, then eight vector
    /// registers' low halves) and the caller's stack arguments `stack`.
    ///
    /// # Safety
    /// `regs` and `stack` must be what a `c_variadic_entry!` stub passed,
    /// valid while the arguments are read.
    pub unsafe fn new(regs: *const u64, stack: *const u64, fixed: usize) -> VaArgs {
        VaArgs { regs, stack, gp: fixed, fp: 0, spill: 0 }
    }

    /// Fixed integer-class argument `i` (of the first six).
    ///
    /// # Safety
    /// The function must have at least `i + 1` such arguments, `i < 6`.
    pub unsafe fn fixed(&self, i: usize) -> u64 {
        debug_assert!(i < 6);
        // SAFETY: the stub saved all six integer registers.
        unsafe { *self.regs.add(i) }
    }

    /// The next integer-class argument.
    ///
    /// # Safety
    /// The caller must have passed one.
    pub unsafe fn int(&mut self) -> u64 {
        // SAFETY: saved registers, then the caller's stack arguments
        // (caller).
        unsafe {
            if self.gp < 6 {
                self.gp += 1;
                *self.regs.add(self.gp - 1)
            } else {
                self.spill += 1;
                *self.stack.add(self.spill - 1)
            }
        }
    }

    /// The next floating-point argument (a `double`; a `float` is
    /// promoted).
    ///
    /// # Safety
    /// As for [`VaArgs::int`].
    pub unsafe fn double(&mut self) -> f64 {
        // SAFETY: as for `int`; vector registers are saved after the six
        // integer ones.
        unsafe {
            if self.fp < 8 {
                self.fp += 1;
                f64::from_bits(*self.regs.add(6 + self.fp - 1))
            } else {
                self.spill += 1;
                f64::from_bits(*self.stack.add(self.spill - 1))
            }
        }
    }
}

impl VaArgs {
    /// Calls `f` with the arguments not read yet as the C library's
    /// `va_list`, for passing on to `vprintf` and its kin. System V's
    /// `va_list` points at `{gp_offset, fp_offset, overflow_arg_area,
    /// reg_save_area}`, whose save area holds the six integer registers and
    /// then the eight vector registers in 16-byte slots; the stub saved the
    /// vector registers' low halves only, which is all a `double` uses.
    ///
    /// # Safety
    /// As for [`VaArgs::int`]: the arguments `f`'s callee reads must have
    /// been passed.
    pub unsafe fn with_va_list<R>(&self, f: impl FnOnce(*mut std::ffi::c_void) -> R) -> R {
        #[repr(C)]
        struct VaList {
            gp_offset: u32,
            fp_offset: u32,
            overflow_arg_area: *const u64,
            reg_save_area: *const u64,
        }
        let mut save = [0u64; 6 + 8 * 2];
        // SAFETY: the stub saved six integer and eight vector registers.
        unsafe {
            std::ptr::copy_nonoverlapping(self.regs, save.as_mut_ptr(), 6);
            for i in 0..8 {
                save[6 + 2 * i] = *self.regs.add(6 + i);
            }
        }
        let mut list = VaList {
            gp_offset: 8 * self.gp as u32,
            fp_offset: 48 + 16 * self.fp as u32,
            // SAFETY: within (or one past) the caller's stack arguments.
            overflow_arg_area: unsafe { self.stack.add(self.spill) },
            reg_save_area: save.as_ptr(),
        };
        f((&raw mut list).cast())
    }
}

/// Defines `$name`, a C function with variadic arguments: Rust cannot
/// define one, so it is a stub that saves the argument registers and hands
/// them, with the caller's stack arguments, to `$saved(regs, stack)`,
/// which reads them with [`VaArgs`] and whose `bool` result it returns.
#[macro_export]
#[doc(hidden)]
macro_rules! __c_variadic_entry {
    ($(#[$doc:meta])* $vis:vis fn $name:ident => $saved:path) => {
        $(#[$doc])*
        #[unsafe(naked)]
        #[unsafe(no_mangle)]
        $vis unsafe extern "C" fn $name() {
            ::std::arch::naked_asm!(
                "push rbp",
                "mov rbp, rsp",
                "sub rsp, 112",
                "mov [rsp], rdi",
                "mov [rsp + 8], rsi",
                "mov [rsp + 16], rdx",
                "mov [rsp + 24], rcx",
                "mov [rsp + 32], r8",
                "mov [rsp + 40], r9",
                "movsd [rsp + 48], xmm0",
                "movsd [rsp + 56], xmm1",
                "movsd [rsp + 64], xmm2",
                "movsd [rsp + 72], xmm3",
                "movsd [rsp + 80], xmm4",
                "movsd [rsp + 88], xmm5",
                "movsd [rsp + 96], xmm6",
                "movsd [rsp + 104], xmm7",
                "mov rdi, rsp",
                "lea rsi, [rbp + 16]",
                "call {saved}",
                "leave",
                "ret",
                saved = sym $saved,
            )
        }
    };
}
pub use __c_variadic_entry as c_variadic_entry;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_null_call_stub_traps_where_the_handler_looks() {
        let at = null_call as *const () as usize + NULL_CALL_TRAP_OFFSET;
        // SAFETY: the stub's code, readable as any code.
        let bytes = unsafe { std::slice::from_raw_parts(at as *const u8, 2) };
        assert_eq!(bytes, [0x0f, 0x0b], "ud2");
    }
}
