//! AArch64, AAPCS64 (Linux; Apple's variant compiles, see `VaArgs`).
//!
//! Unlike x86-64, instruction fetch is not coherent with data stores: code
//! written as data must be cleaned to the point of unification and the
//! instruction cache invalidated before it runs ([`flush_icache`]), and a
//! thread that may have fetched the old bytes must pass a context
//! synchronisation event (`os::sync_cores`). Code is therefore never
//! patched while it may run: the lazy stub branches through a data word.

use std::ffi::c_void;

// ---------------------------------------------------------------------------
// Traps: the jump buffer (see `unwind`)

/// Callee-saved registers (x19-x28, the frame pointer x29 and the link
/// register x30, which is the resume address), the stack pointer and the
/// callee-saved halves of the vector registers (d8-d15) of a [`try_call`]
/// activation.
#[repr(C)]
pub struct JmpBuf([usize; 21]);

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
        "stp x19, x20, [x0]",
        "stp x21, x22, [x0, #16]",
        "stp x23, x24, [x0, #32]",
        "stp x25, x26, [x0, #48]",
        "stp x27, x28, [x0, #64]",
        "stp x29, x30, [x0, #80]",
        "mov x16, sp",
        "str x16, [x0, #96]",
        "stp d8, d9, [x0, #104]",
        "stp d10, d11, [x0, #120]",
        "stp d12, d13, [x0, #136]",
        "stp d14, d15, [x0, #152]",
        "stp x29, x30, [sp, #-16]!",
        ".cfi_def_cfa_offset 16",
        ".cfi_offset x30, -8",
        ".cfi_offset x29, -16",
        "mov x29, sp",
        "mov x0, x2",
        "blr x1",
        "ldp x29, x30, [sp], #16",
        ".cfi_def_cfa_offset 0",
        ".cfi_restore x30",
        ".cfi_restore x29",
        "mov w0, #0",
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
        "ldp x19, x20, [x0]",
        "ldp x21, x22, [x0, #16]",
        "ldp x23, x24, [x0, #32]",
        "ldp x25, x26, [x0, #48]",
        "ldp x27, x28, [x0, #64]",
        "ldp x29, x30, [x0, #80]",
        "ldr x16, [x0, #96]",
        "mov sp, x16",
        "ldp d8, d9, [x0, #104]",
        "ldp d10, d11, [x0, #120]",
        "ldp d12, d13, [x0, #136]",
        "ldp d14, d15, [x0, #152]",
        // Returns from `try_call` to its caller (x30), with 1.
        "mov w0, #1",
        "ret",
    )
}

/// The program counter and frame pointer (x29) of a signal's `ucontext_t`.
///
/// # Safety
/// `context` must be the context argument of an `SA_SIGINFO` handler.
#[cfg(target_os = "linux")]
pub unsafe fn context_pc_fp(context: *mut c_void) -> (usize, usize) {
    // SAFETY: as the caller promises.
    let uc = unsafe { &*(context as *const libc::ucontext_t) };
    (uc.uc_mcontext.pc as usize, uc.uc_mcontext.regs[29] as usize)
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
    (ss.__pc as usize, ss.__fp as usize)
}

/// The builtin `throw` as compiled code calls it, `(vmctx, exn, fp)`: it
/// adds its own return address, the throwing call site, as a fourth
/// argument and jumps to [`super::exception::throw_at`]. A throw that was
/// inlined into a `try_call` site is itself a `try_call` of this builtin,
/// and its handler is found from that return address (see
/// `vm::exception`).
///
/// Compiled code calls it with Cranelift's `tail` convention (see
/// `compile::func_env::call`), which passes the first integer arguments
/// in x2, x3, x4 (x0 and x1 are reserved for a return area and an
/// indirect callee): they move to the C convention's x0-x2. Its stack is
/// aligned as C's.
///
/// # Safety
/// As for `throw_at`: called by compiled code only.
#[unsafe(naked)]
pub unsafe extern "C" fn throw_entry(vmctx: *mut crate::environ::vmctx::VMContext, exn: usize, fp: usize) {
    // The return address is in the link register; the fourth argument
    // register is x3.
    std::arch::naked_asm!(
        "mov x0, x2",
        "mov x1, x3",
        "mov x2, x4",
        "mov x3, x30",
        "b {throw}",
        throw = sym super::super::exception::throw_at
    )
}

/// Defines `$name`, the entry through which compiled code calls builtin
/// `$target` (C convention, arguments in registers, the VMContext first)
/// when the builtin may collect garbage. The entry makes a frame of its
/// own, whose saved frame pointer and link register are the calling wasm
/// frame's and its call site, and records it as the store's exit record
/// (`VMStoreContext::last_exit_fp`) for the call, as a host call's
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
            // x16 and x17 are scratch registers of every convention; the
            // store context and the old record wait in the frame.
            std::arch::naked_asm!(
                "stp x29, x30, [sp, #-32]!",
                "mov x29, sp",
                "ldr x16, [x0, #{store}]",
                "ldr x17, [x16, #{exit}]",
                "stp x16, x17, [sp, #16]",
                "str x29, [x16, #{exit}]",
                "bl {target}",
                "ldp x16, x17, [sp, #16]",
                "str x17, [x16, #{exit}]",
                "ldp x29, x30, [sp], #32",
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
/// with `exn` in the first payload register (x0, as Cranelift's
/// `try_call` expects on AArch64). The handler treats every other
/// register as clobbered.
///
/// # Safety
/// `pc`, `sp` and `fp` must be a handler of a call in progress on this
/// thread's stack and that call's frame; the frames jumped over must own
/// nothing with a destructor.
#[unsafe(naked)]
pub unsafe extern "C" fn resume_at_handler(pc: usize, sp: usize, fp: usize, exn: usize) -> ! {
    std::arch::naked_asm!("mov sp, x1", "mov x29, x2", "mov x16, x0", "mov x0, x3", "br x16")
}

/// Where a frame's return address lies above its frame pointer: a frame
/// record is the caller's frame pointer at `fp` and the link register at
/// `fp + 8`.
pub const RETURN_ADDRESS_OFFSET: usize = 8;

/// The ELF machine of this CPU (`EM_AARCH64`), for jitdump's header.
pub const ELF_MACHINE: u32 = 183;

// ---------------------------------------------------------------------------
// Instruction cache

/// Makes the instructions just written at `start..start + len` (addresses
/// they will run at) visible to instruction fetch on every core: cleans
/// the data cache to the point of unification and invalidates the
/// instruction cache for the range (`dc cvau`/`ic ivau`/`dsb ish`, which
/// are broadcast to the inner-shareable domain), then `isb` on this core.
/// Other cores that may already hold fetched instructions of the range
/// need `os::sync_cores` as well.
pub fn flush_icache(start: usize, len: usize) {
    unsafe extern "C" {
        // compiler-rt's and libgcc's implementation, which reads the cache
        // line sizes from CTR_EL0.
        fn __clear_cache(start: *mut libc::c_char, end: *mut libc::c_char);
    }
    if len == 0 {
        return;
    }
    // SAFETY: cache maintenance only; the range is mapped (caller's
    // addresses of code just written), and nothing in it is changed.
    unsafe { __clear_cache(start as *mut libc::c_char, (start + len) as *mut libc::c_char) };
}

/// Whether code written as data needs [`flush_icache`] and a cross-core
/// synchronisation before it runs.
pub const INCOHERENT_ICACHE: bool = true;

// ---------------------------------------------------------------------------
// The null-call stub (see `null_call`)

/// The code address of a null slot in a frozen table's code array:
/// `stp x29, x30, [sp, #-16]!; mov x29, sp; udf #0`. The frame record it
/// makes leads backtraces to the return address in the calling function,
/// so the trap is reported at the `call_indirect`.
///
/// # Safety
/// Only ever called by compiled code, which handles the trap it raises.
#[unsafe(naked)]
pub unsafe extern "C" fn null_call() {
    std::arch::naked_asm!("stp x29, x30, [sp, #-16]!", "mov x29, sp", "udf #0")
}

/// Offset of [`null_call`]'s trapping instruction from its start.
pub const NULL_CALL_TRAP_OFFSET: usize = 8;

// ---------------------------------------------------------------------------
// Lazy compilation (see `lazy_stub`)

/// How far a direct call reaches (`bl`: 26 bits of words, ±128 MiB).
pub const DIRECT_CALL_REACH: usize = 128 << 20;

/// Bytes per lazy stub.
pub const LAZY_STUB_SIZE: usize = 32;

/// Offset in a stub of the 8 bytes that publishing its code replaces.
pub const LAZY_STUB_PATCH_AT: usize = 16;

/// The bytes of the lazy stub at offset `at` of its region, whose code
/// starts at `base`: lazy while `code` is 0, else going to the code at
/// offset `code`.
///
/// ```text
/// at+0:  10 00 00 10   adr x16, at          ; the stub's address, for the trampoline
/// at+4:  71 00 00 58   ldr x17, at+16       ; where to go
/// at+8:  20 02 1f d6   br x17
/// at+12: 00 00 00 00   udf #0
/// at+16: <8 bytes>     the trampoline's address, then the code's
/// at+24: udf #0, udf #0
/// ```
///
/// Only the aligned data word at 16 ever changes (one 64-bit store, which
/// AArch64 makes single-copy atomic), so no thread ever executes
/// instructions being rewritten: it loads either the trampoline's address
/// (and the compiler, finding the function compiled, sends it on to the
/// code) or the code's, which was flushed to instruction fetch on every
/// core before the word was stored (`lazy_code::LazyRegion::write`).
pub fn lazy_stub(at: usize, code: usize, base: usize) -> [u8; LAZY_STUB_SIZE] {
    let _ = at; // The stub's instructions are position-independent.
    let mut s = [0u8; LAZY_STUB_SIZE];
    s[0..4].copy_from_slice(&0x1000_0010u32.to_le_bytes());
    s[4..8].copy_from_slice(&0x5800_0071u32.to_le_bytes());
    s[8..12].copy_from_slice(&0xd61f_0220u32.to_le_bytes());
    let target = if code == 0 { lazy_trampoline as *const () as usize } else { base + code };
    s[16..24].copy_from_slice(&(target as u64).to_le_bytes());
    s
}

/// A naked function entered, in place of a wasm function, with that
/// function's arguments in place and the wasm caller's return address in
/// x30: it saves every register Cranelift's `tail` convention passes
/// arguments in (x0-x7, x8 for the return area, q0-q7), calls
/// `$resolve(first, fp)` (`first` from the register `$first`, `fp` its own
/// frame record, linked to the wasm caller's), restores them and branches
/// to the address it returned with the caller's x29 and x30, so the
/// function there runs as if called directly. Stack arguments stay where
/// they are.
macro_rules! resolving_jump {
    ($(#[$doc:meta])* $name:ident, $first:literal, $resolve:path) => {
        $(#[$doc])*
        #[unsafe(naked)]
        pub unsafe extern "C" fn $name() {
            std::arch::naked_asm!(
                "stp x29, x30, [sp, #-224]!",
                "mov x29, sp",
                "stp x0, x1, [sp, #16]",
                "stp x2, x3, [sp, #32]",
                "stp x4, x5, [sp, #48]",
                "stp x6, x7, [sp, #64]",
                "str x8, [sp, #80]",
                "stp q0, q1, [sp, #96]",
                "stp q2, q3, [sp, #128]",
                "stp q4, q5, [sp, #160]",
                "stp q6, q7, [sp, #192]",
                concat!("mov x0, ", $first),
                "mov x1, x29",
                "bl {resolve}",
                "mov x17, x0",
                "ldp x0, x1, [sp, #16]",
                "ldp x2, x3, [sp, #32]",
                "ldp x4, x5, [sp, #48]",
                "ldp x6, x7, [sp, #64]",
                "ldr x8, [sp, #80]",
                "ldp q0, q1, [sp, #96]",
                "ldp q2, q3, [sp, #128]",
                "ldp q4, q5, [sp, #160]",
                "ldp q6, q7, [sp, #192]",
                "ldp x29, x30, [sp], #224",
                "br x17",
                resolve = sym $resolve,
            )
        }
    };
}

resolving_jump!(
    /// Where the lazy stubs go, with the stub's address in x16: compiles
    /// the function (`lazy_stub::lazy_compile`) and runs it. Its frame
    /// record keeps the frame chain, so a trap raised while compiling
    /// records the wasm caller's frames.
    ///
    /// # Safety
    /// Only branched to by a lazy stub.
    lazy_trampoline,
    "x16",
    crate::runtime::vm::lazy_stub::lazy_compile
);

resolving_jump!(
    /// A host function's code for wasm until its exit trampoline is known
    /// (`late_exit`): x0, the callee's context, is the `VMHostFunc`.
    ///
    /// # Safety
    /// Only called by wasm through the funcref of a `VMHostFunc`.
    late_exit_trampoline,
    "x0",
    crate::runtime::vm::late_exit::resolve
);

// ---------------------------------------------------------------------------
// Valgrind

/// Valgrind's client request `request` with `args`: its answer, or 0 when
/// not under valgrind. Natively the sequence below changes nothing (the
/// four rotations of x12 add up to 128 bits, and `orr x10, x10, x10` is a
/// no-op), so x3 keeps the 0 it was given; valgrind recognises the
/// sequence, performs the request and puts its answer in x3 instead.
pub fn valgrind_request(request: u64, args: [u64; 5]) -> u64 {
    let words: [u64; 6] = [request, args[0], args[1], args[2], args[3], args[4]];
    let answer: u64;
    // SAFETY: the instructions only rotate x12 back to its value and or
    // x10 with itself; valgrind, if present, reads the six words of
    // `words` (alive and initialised for the whole block) and writes only
    // x3.
    unsafe {
        std::arch::asm!(
            "ror x12, x12, #3",
            "ror x12, x12, #13",
            "ror x12, x12, #51",
            "ror x12, x12, #61",
            "orr x10, x10, x10",
            inout("x3") 0u64 => answer,
            in("x4") words.as_ptr(),
            inout("x12") 0u64 => _,
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
/// stub saved them, read in order. AAPCS64 (Linux) passes variadic
/// arguments as it passes fixed ones: the first eight integer-class ones
/// in x0-x7, the first eight floating-point ones in v0-v7, the rest on
/// the stack in 8-byte slots. Apple's arm64 passes every variadic argument
/// on the stack, in 8-byte slots, whatever its class.
pub struct VaArgs {
    regs: *const u64,
    stack: *const u64,
    gp: usize,
    fp: usize,
    spill: usize,
}

/// Whether variadic arguments go in registers as fixed ones do.
const VARIADIC_IN_REGISTERS: bool = !cfg!(target_vendor = "apple");

impl VaArgs {
    /// The arguments after `fixed` integer-class fixed ones, from the
    /// stub's saved registers `regs` (eight integer, then eight vector
    /// registers' low halves) and the caller's stack arguments `stack`.
    ///
    /// # Safety
    /// `regs` and `stack` must be what a `c_variadic_entry!` stub passed,
    /// valid while the arguments are read.
    pub unsafe fn new(regs: *const u64, stack: *const u64, fixed: usize) -> VaArgs {
        VaArgs { regs, stack, gp: fixed, fp: 0, spill: 0 }
    }

    /// Fixed integer-class argument `i` (of the first eight).
    ///
    /// # Safety
    /// The function must have at least `i + 1` such arguments, `i < 8`.
    pub unsafe fn fixed(&self, i: usize) -> u64 {
        debug_assert!(i < 8);
        // SAFETY: the stub saved all eight integer registers.
        unsafe { *self.regs.add(i) }
    }

    fn next_stack(&mut self) -> *const u64 {
        self.spill += 1;
        self.stack.wrapping_add(self.spill - 1)
    }

    /// The next integer-class argument.
    ///
    /// # Safety
    /// The caller must have passed one.
    pub unsafe fn int(&mut self) -> u64 {
        // SAFETY: saved registers, then the caller's stack arguments
        // (caller).
        unsafe {
            if VARIADIC_IN_REGISTERS && self.gp < 8 {
                self.gp += 1;
                *self.regs.add(self.gp - 1)
            } else {
                *self.next_stack()
            }
        }
    }

    /// The next floating-point argument (a `double`; a `float` is
    /// promoted).
    ///
    /// # Safety
    /// As for [`VaArgs::int`].
    pub unsafe fn double(&mut self) -> f64 {
        // SAFETY: as for `int`; vector registers are saved after the eight
        // integer ones.
        unsafe {
            if VARIADIC_IN_REGISTERS && self.fp < 8 {
                self.fp += 1;
                f64::from_bits(*self.regs.add(8 + self.fp - 1))
            } else {
                f64::from_bits(*self.next_stack())
            }
        }
    }
}

impl VaArgs {
    /// Calls `f` with the arguments not read yet as the C library's
    /// `va_list`, for passing on to `vprintf` and its kin.
    ///
    /// AAPCS64's `va_list` is `{__stack, __gr_top, __vr_top, __gr_offs,
    /// __vr_offs}`: the next stack argument, the ends of a save area of the
    /// eight integer registers and of one of the eight vector registers in
    /// 16-byte slots, and the (negative) offsets from those ends of the
    /// next register argument of each class. Being larger than 16 bytes, it
    /// is passed as a pointer to a copy the callee may change, so `f` gets
    /// a pointer to ours. The stub saved the vector registers' low halves
    /// only, which is all a `double` uses. Apple's `va_list` is a plain
    /// pointer to the next stack argument.
    ///
    /// # Safety
    /// As for [`VaArgs::int`]: the arguments `f`'s callee reads must have
    /// been passed.
    pub unsafe fn with_va_list<R>(&self, f: impl FnOnce(*mut c_void) -> R) -> R {
        // SAFETY: within (or one past) the caller's stack arguments.
        let next_stack = unsafe { self.stack.add(self.spill) };
        if !VARIADIC_IN_REGISTERS {
            return f(next_stack as *mut c_void);
        }
        #[repr(C)]
        struct VaList {
            stack: *const u64,
            gr_top: *const u64,
            vr_top: *const u64,
            gr_offs: i32,
            vr_offs: i32,
        }
        let mut save = [0u64; 8 + 8 * 2];
        // SAFETY: the stub saved eight integer and eight vector registers.
        unsafe {
            std::ptr::copy_nonoverlapping(self.regs, save.as_mut_ptr(), 8);
            for i in 0..8 {
                save[8 + 2 * i] = *self.regs.add(8 + i);
            }
        }
        let mut list = VaList {
            stack: next_stack,
            gr_top: save[8..].as_ptr(),
            vr_top: save.as_ptr_range().end,
            gr_offs: -8 * (8 - self.gp.min(8) as i32),
            vr_offs: -16 * (8 - self.fp.min(8) as i32),
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
                "stp x29, x30, [sp, #-144]!",
                "mov x29, sp",
                "stp x0, x1, [sp, #16]",
                "stp x2, x3, [sp, #32]",
                "stp x4, x5, [sp, #48]",
                "stp x6, x7, [sp, #64]",
                "stp d0, d1, [sp, #80]",
                "stp d2, d3, [sp, #96]",
                "stp d4, d5, [sp, #112]",
                "stp d6, d7, [sp, #128]",
                "add x0, sp, #16",
                "add x1, sp, #144",
                "bl {saved}",
                "ldp x29, x30, [sp], #144",
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
        let word = unsafe { (at as *const u32).read() };
        assert_eq!(word, 0, "udf #0");
    }

    #[test]
    fn the_lazy_stub_loads_the_word_it_branches_through() {
        let s = lazy_stub(64, 0x1000, 0x10_0000);
        let word = |i: usize| u32::from_le_bytes(s[i..i + 4].try_into().unwrap());
        // adr x16, #0: immlo = immhi = 0, Rd = 16.
        assert_eq!(word(0), 0x1000_0000 | 16);
        // ldr x17, #12 (literal, from at+4 to at+16): imm19 = 3 words.
        assert_eq!(word(4), 0x5800_0000 | (3 << 5) | 17);
        assert_eq!(word(8), 0xd61f_0000 | (17 << 5), "br x17");
        assert_eq!(u64::from_le_bytes(s[LAZY_STUB_PATCH_AT..][..8].try_into().unwrap()), 0x10_1000);
        let lazy = lazy_stub(64, 0, 0x10_0000);
        assert_eq!(&lazy[..16], &s[..16], "only the data word changes");
        assert_eq!(
            u64::from_le_bytes(lazy[LAZY_STUB_PATCH_AT..][..8].try_into().unwrap()),
            lazy_trampoline as *const () as u64
        );
    }
}
