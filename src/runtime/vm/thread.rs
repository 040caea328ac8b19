//! Per-thread runtime state, in one thread-local so that entering wasm
//! looks thread-local storage up once (it is a function call, not a plain
//! load, when the runtime is a dynamically loaded library).

use std::cell::Cell;

use super::unwind::CallThreadState;

/// What the runtime remembers about the current thread.
pub struct ThreadState {
    /// The innermost activation running wasm on this thread (see `unwind`).
    pub current: Cell<*const CallThreadState>,
    /// Whether this thread has an alternate signal stack (see `signals`).
    pub alt_stack_ready: Cell<bool>,
    /// Lowest usable stack address, 0 until queried (see `stack`).
    pub stack_low: Cell<usize>,
    /// The kernel's id of this thread, 0 until queried (see `interrupt`).
    tid: Cell<i32>,
}

impl ThreadState {
    /// The kernel's id of this thread (`gettid`), asked once.
    #[inline]
    pub fn tid(&self) -> i32 {
        match self.tid.get() {
            0 => {
                let tid = super::os::thread_id();
                self.tid.set(tid);
                tid
            }
            tid => tid,
        }
    }
}

thread_local! {
    static STATE: ThreadState = const {
        ThreadState {
            current: Cell::new(std::ptr::null()),
            alt_stack_ready: Cell::new(false),
            stack_low: Cell::new(0),
            tid: Cell::new(0),
        }
    };
}

/// This thread's state. The reference must not leave the thread; it stays
/// valid for as long as the thread runs.
pub fn state() -> &'static ThreadState {
    // SAFETY: the thread-local lives until the thread exits, and the
    // reference is only used on this thread (ThreadState is !Sync).
    STATE.with(|s| unsafe { &*(s as *const ThreadState) })
}

/// A number naming the calling thread among the threads alive (never 0):
/// the address of its state.
#[inline]
pub fn token() -> usize {
    token_of(state())
}

/// [`token`] of the thread whose state `thread` is.
#[inline]
pub fn token_of(thread: &ThreadState) -> usize {
    thread as *const ThreadState as usize
}
