//! Where wasm frames may grow down to on the current thread.

use std::cell::Cell;

/// Stack kept free below the wasm limit for host functions called at the
/// deepest point.
const HOST_MARGIN: usize = 128 * 1024;

thread_local! {
    /// Lowest usable address of this thread's stack (0 until queried).
    static STACK_LOW: Cell<usize> = const { Cell::new(0) };
}

/// Lowest address of the calling thread's stack, as the C library knows it.
fn stack_low() -> usize {
    STACK_LOW.with(|low| {
        if low.get() == 0 {
            low.set(query_stack_low().unwrap_or(1));
        }
        low.get()
    })
}

fn query_stack_low() -> Option<usize> {
    // SAFETY: plain libc queries on the current thread with owned storage.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
            return None;
        }
        let mut addr = std::ptr::null_mut();
        let mut size = 0;
        let ok = libc::pthread_attr_getstack(&attr, &mut addr, &mut size) == 0;
        let mut guard = 0;
        libc::pthread_attr_getguardsize(&attr, &mut guard);
        libc::pthread_attr_destroy(&mut attr);
        ok.then_some(addr as usize + guard)
    }
}

/// The stack limit for a call entering wasm here: `max_wasm_stack` below
/// the current stack pointer, but never closer than a margin to the end of
/// the thread's stack.
#[inline(never)]
pub fn limit_from_here(max_wasm_stack: usize) -> usize {
    let here = &0u8 as *const u8 as usize;
    let floor = stack_low().saturating_add(HOST_MARGIN);
    here.saturating_sub(max_wasm_stack).max(floor)
}
