//! Where wasm frames may grow down to on the current thread.
//!
//! The end of a thread's stack, from its top down: the stack wasm frames
//! may use (at most `max_wasm_stack` below the call's entry), then
//! [`HOST_MARGIN`] for the host functions wasm calls at its deepest
//! point, then [`GUARD_ZONE`], which nothing of ours uses, then the C
//! library's guard page. The guard zone is where WAMR, on x86-64, puts the
//! 3 guard pages it protects below its stack checks, so that a host
//! written for WAMR finds what it keeps there (a marker its stack checks
//! rely on, say) intact.

use super::thread::ThreadState;

/// WAMR's 3 guard pages at the end of a thread's stack
/// (`STACK_OVERFLOW_CHECK_GUARD_PAGE_COUNT`): unused here (not protected:
/// compiled code checks its limit explicitly).
const GUARD_ZONE: usize = 3 * 4096;

/// Stack kept free below the wasm limit for the host functions wasm calls
/// at its deepest point, measured (a stack painted before the call, the
/// lowest byte written after it; x86-64, release build; the C API's
/// `wasm_runtime_call_wasm` of a function calling the host once, minus the
/// same call of a function calling nothing): a native's dispatch 392
/// bytes, a native reporting a trap 919, `memory.grow` 527, WASI
/// `fd_write` 775, `poll_oneoff` 1143, `path_open` 2247, `fd_readdir`
/// 2487, the builtin libc's `printf` 3279; and a native's own frames get
/// WAMR's guard size, 3072 bytes, on top of its dispatch: 3464, the most.
/// (`tests/c/export_native_stack.c` checks that calls from the deepest
/// point leave the guard zone alone.) AArch64's frames are larger: the
/// same test under qemu wrote 3616 bytes below the limit, so 4096 there.
const HOST_MARGIN: usize = if cfg!(target_arch = "aarch64") { 4096 } else { 3584 };

/// What stack limits are rounded to.
const LIMIT_GRANULE: usize = 4096;

/// Lowest address of the calling thread's stack, as the C library knows it.
#[inline]
fn stack_low(thread: &ThreadState) -> usize {
    match thread.stack_low.get() {
        0 => {
            let low = query_stack_low().unwrap_or(1);
            thread.stack_low.set(low);
            low
        }
        low => low,
    }
}

#[cold]
fn query_stack_low() -> Option<usize> {
    super::os::thread_stack().map(|s| s.low + s.guard)
}

/// The stack limit for a call entering wasm here: `max_wasm_stack` below
/// the current stack pointer, but never closer than a margin to the end of
/// the thread's stack.
///
/// Under valgrind, where the C library places the end of the stack at or
/// above the margin below here, its view is wrong and only
/// `max_wasm_stack` counts: in a child forked under valgrind, glibc
/// derives the main thread's stack from `/proc/self/maps`, where valgrind
/// shows only the part of the stack used so far (it grows the rest on
/// demand), so the "end" lies a few pages below the stack pointer and every
/// call would trap at once. Natively such a thread is out of stack, and the
/// limit makes the call trap at once.
#[inline(never)]
pub fn limit_from_here(thread: &ThreadState, max_wasm_stack: usize) -> usize {
    // The address of a local, i.e. of this frame. (Not `&0u8`: that is
    // promoted to a constant in static memory, far from the stack, which
    // made every limit fall back to the end of the thread's stack.)
    let marker = 0u8;
    let here = std::hint::black_box(&marker) as *const u8 as usize;
    let floor = floor(thread);
    // Rounded down to a page, so that entries from nearby depths give the
    // same limit and the store need not rewrite its instances' copies (see
    // `StoreOpaque::publish_stack_limit`); wasm gets at most a page more.
    let wanted = here.saturating_sub(max_wasm_stack) & !(LIMIT_GRANULE - 1);
    if floor < here || !super::arch::running_on_valgrind() {
        wanted.max(floor)
    } else {
        wanted
    }
}

/// The limit for a call re-entering a store whose call runs further up
/// the stack, if the shared `current` limit leaves it less than
/// [`HOST_MARGIN`] of room (the host used it up before calling back in):
/// then the limit an outermost call from here would get, which is lower.
/// `None` in the usual case, at the cost of one compare.
#[inline]
pub fn nested_limit(thread: &ThreadState, current: usize, max_wasm_stack: usize) -> Option<usize> {
    let marker = 0u8;
    let here = std::hint::black_box(&marker) as *const u8 as usize;
    if here >= current.saturating_add(HOST_MARGIN) {
        return None;
    }
    // Out of the thread's stack: the shared limit, above here, makes the
    // call trap at once (whatever valgrind shows of the stack, unlike an
    // outermost call's limit).
    let floor = floor(thread);
    if here <= floor {
        return None;
    }
    let wanted = here.saturating_sub(max_wasm_stack) & !(LIMIT_GRANULE - 1);
    Some(wanted.max(floor)).filter(|l| *l < current)
}

/// The lowest address wasm frames may use on the thread ([`HOST_MARGIN`]
/// and [`GUARD_ZONE`] above the stack's end).
fn floor(thread: &ThreadState) -> usize {
    stack_low(thread).saturating_add(GUARD_ZONE + HOST_MARGIN)
}

/// The lowest address compiled code may use on the calling thread,
/// whatever the engine's `max_wasm_stack`: an embedder tells a call that
/// ran out of the thread's stack from one that used up `max_wasm_stack`
/// (WAMR's "native stack overflow" and "wasm operand stack overflow").
pub fn native_stack_floor() -> usize {
    floor(super::thread::state())
}

/// Bytes of stack left below the caller on the current thread (as the C
/// library knows the stack's end).
#[inline(never)]
pub fn remaining_here() -> usize {
    let marker = 0u8;
    let here = std::hint::black_box(&marker) as *const u8 as usize;
    here.saturating_sub(stack_low(super::thread::state()))
}

/// Bytes of stack left below the caller above [`GUARD_ZONE`], the part
/// of the thread's stack no frame may touch.
#[inline(never)]
pub fn room_above_guard_zone() -> usize {
    remaining_here().saturating_sub(GUARD_ZONE)
}
