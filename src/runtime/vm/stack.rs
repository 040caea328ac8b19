//! Where wasm frames may grow down to on the current thread.

use super::thread::ThreadState;

/// Stack kept free below the wasm limit for host functions called at the
/// deepest point.
const HOST_MARGIN: usize = 128 * 1024;

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
    let floor = stack_low(thread).saturating_add(HOST_MARGIN);
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

/// Bytes of stack left below the caller on the current thread (as the C
/// library knows the stack's end).
#[inline(never)]
pub fn remaining_here() -> usize {
    let marker = 0u8;
    let here = std::hint::black_box(&marker) as *const u8 as usize;
    here.saturating_sub(stack_low(super::thread::state()))
}
