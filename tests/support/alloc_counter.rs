//! A global allocator that counts the heap bytes live on threads that ask
//! to be counted, to tell a leak from ordinary allocation.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicI64, Ordering};

struct Counting;

static LIVE: AtomicI64 = AtomicI64::new(0);

thread_local! {
    static COUNTED: Cell<bool> = const { Cell::new(false) };
    static THREAD_LIVE: Cell<i64> = const { Cell::new(0) };
}

fn counted() -> bool {
    // During thread teardown the flag may be gone: count nothing then.
    COUNTED.try_with(|c| c.get()).unwrap_or(false)
}

fn add(bytes: i64) {
    LIVE.fetch_add(bytes, Ordering::Relaxed);
    let _ = THREAD_LIVE.try_with(|t| t.set(t.get() + bytes));
}

// SAFETY: every call is forwarded to the system allocator unchanged; the
// counting beside it neither allocates nor unwinds.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if counted() {
            add(layout.size() as i64);
        }
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if counted() {
            add(-(layout.size() as i64));
        }
        // SAFETY: as for `alloc`.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if counted() {
            add(new_size as i64 - layout.size() as i64);
        }
        // SAFETY: as for `alloc`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f` with its allocations and frees on this thread counted.
pub fn counting<R>(f: impl FnOnce() -> R) -> R {
    COUNTED.with(|c| c.set(true));
    let r = f();
    COUNTED.with(|c| c.set(false));
    r
}

/// Bytes allocated minus bytes freed by counted code so far.
pub fn live_bytes() -> i64 {
    LIVE.load(Ordering::Relaxed)
}

/// Like [`live_bytes`], for counted code of the calling thread only.
pub fn thread_live_bytes() -> i64 {
    THREAD_LIVE.with(|t| t.get())
}
