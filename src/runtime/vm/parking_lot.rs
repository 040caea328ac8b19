//! The parking lot behind `memory.atomic.wait32`/`wait64` and
//! `memory.atomic.notify`: threads waiting on an address of a shared
//! memory, process-wide.
//!
//! Waiters are keyed by the host address of the awaited cell. Shared
//! memories never move and every store of the process maps a given shared
//! memory at the same address, so the host address names the cell for all
//! threads, whichever store (or instance) they wait through.
//!
//! No wakeup is lost: a waiter compares the cell with the expected value
//! while holding its bucket's lock and is queued before the lock is
//! released; a notifier takes the same lock, so it either runs before the
//! comparison (which then sees the new value, written before `notify`) or
//! finds the waiter queued. Waiters are woken in the order they came (the
//! spec's fairness), each through its own thread handle.
//!
//! A wasm thread's wait also ends when its store is interrupted (see
//! [`wait_or_stop`]): a program whose thread traps or exits stops its
//! other threads with interrupts, and those parked here (joining, mostly)
//! must wake to unwind rather than sleep forever. The interrupt signal
//! cannot do it (it stops only compiled code), so a request calls
//! [`interrupted`], which unparks the store's waiter; a waiter looks at its
//! store's request each time it wakes.

use std::sync::atomic::{fence, AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::Thread;
use std::time::{Duration, Instant};

use super::interrupt::InterruptState;
use crate::environ::trap::TrapCode;

/// How a wait ended; the discriminant is the value wasm gets.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WaitResult {
    /// Woken by a notify.
    Ok = 0,
    /// The cell did not hold the expected value: no wait.
    Mismatch = 1,
    /// The timeout passed first.
    TimedOut = 2,
}

/// One waiting thread.
struct Waiter {
    addr: usize,
    thread: Thread,
    /// Set (under the bucket lock) when a notify takes the waiter off its
    /// queue.
    notified: AtomicBool,
    /// The interruption state of the store waiting (as an address, only
    /// compared), 0 for a host wait: what [`interrupted`] looks for.
    stop: usize,
}

/// Waiters an interrupt may wake, in all buckets: while there are none, an
/// interrupt request looks at no bucket.
static STOPPABLE: AtomicUsize = AtomicUsize::new(0);

/// Buckets of waiters; addresses hash to buckets, so waits on unrelated
/// addresses rarely contend for a lock.
const BUCKETS: usize = 64;

#[allow(clippy::declare_interior_mutable_const, reason = "only used to initialise the static array")]
const EMPTY: Mutex<Vec<Arc<Waiter>>> = Mutex::new(Vec::new());
static LOT: [Mutex<Vec<Arc<Waiter>>>; BUCKETS] = [EMPTY; BUCKETS];

fn bucket(addr: usize) -> MutexGuard<'static, Vec<Arc<Waiter>>> {
    // Cells are at least 4-byte aligned; mix the bits above that.
    let h = (addr >> 2).wrapping_mul(0x9E37_79B9_7F4A_7C15_u64 as usize) >> (usize::BITS - 6);
    LOT[h % BUCKETS].lock().unwrap_or_else(|e| e.into_inner())
}

/// A value a wait compares against: a 32- or 64-bit cell.
pub trait Cell: Copy + PartialEq {
    /// Loads the cell at `addr` (aligned to the value's size).
    ///
    /// # Safety
    /// `addr` must point at live memory for the whole wait, aligned.
    unsafe fn load(addr: usize) -> Self;
}

impl Cell for u32 {
    unsafe fn load(addr: usize) -> u32 {
        // SAFETY: `addr` is an aligned cell of live memory (caller); shared
        // memory is only ever accessed atomically by waiters and notifiers.
        unsafe { (*(addr as *const AtomicU32)).load(Ordering::SeqCst) }
    }
}

impl Cell for u64 {
    unsafe fn load(addr: usize) -> u64 {
        // SAFETY: `addr` is an aligned cell of live memory (caller); shared
        // memory is only ever accessed atomically by waiters and notifiers.
        unsafe { (*(addr as *const AtomicU64)).load(Ordering::SeqCst) }
    }
}

/// Waits on the cell at `addr` while it holds `expected`, until notified
/// or `timeout` (none: forever) passes. For the host, which no interrupt
/// stops.
///
/// # Safety
/// `addr` must be an aligned cell of a shared memory that stays mapped for
/// the whole wait.
pub unsafe fn wait<T: Cell>(addr: usize, expected: T, timeout: Option<Duration>) -> WaitResult {
    // SAFETY: `addr` is an aligned cell of a shared memory mapped for the
    // whole wait (caller).
    unsafe {
        match wait_or_stop(addr, expected, timeout, None) {
            Ok(r) => r,
            Err(_) => unreachable!("a wait without a store has no stop request"),
        }
    }
}

/// [`wait`] for wasm code of a store with interruption state `stop` (if
/// any): a stop requested before or during the wait ends it with the
/// request's trap code instead.
///
/// # Safety
/// As for [`wait`].
pub unsafe fn wait_or_stop<T: Cell>(
    addr: usize,
    expected: T,
    timeout: Option<Duration>,
    stop: Option<&InterruptState>,
) -> Result<WaitResult, TrapCode> {
    // SAFETY: as for `wait` (caller).
    unsafe {
        let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
        let stop_id = stop.map_or(0, |s| s as *const InterruptState as usize);
        if stop_id != 0 {
            // Counted before the waiter is queued and before it looks at the
            // request: a requester that sees no count (it set the request
            // first, then fenced) is seen by the look below.
            STOPPABLE.fetch_add(1, Ordering::SeqCst);
            fence(Ordering::SeqCst);
        }
        let me = {
            let mut queue = bucket(addr);
            if T::load(addr) != expected {
                drop(queue);
                uncount(stop_id);
                return Ok(WaitResult::Mismatch);
            }
            let me = Arc::new(Waiter {
                addr,
                thread: std::thread::current(),
                notified: AtomicBool::new(false),
                stop: stop_id,
            });
            queue.push(me.clone());
            me
        };
        let ended = loop {
            if me.notified.load(Ordering::Acquire) {
                break Ok(WaitResult::Ok);
            }
            if let Some(code) = stop.and_then(InterruptState::pending) {
                break Err(code);
            }
            match deadline {
                // No timeout, or one too large for the clock: as good as forever.
                None => std::thread::park(),
                Some(deadline) => {
                    let now = Instant::now();
                    if now >= deadline {
                        break Ok(WaitResult::TimedOut);
                    }
                    std::thread::park_timeout(deadline - now);
                }
            }
        };
        // Off the queue, unless a notify took us off meanwhile (then we were
        // woken, whatever else happened).
        let mut queue = bucket(addr);
        let result = if me.notified.load(Ordering::Acquire) {
            Ok(WaitResult::Ok)
        } else {
            queue.retain(|w| !Arc::ptr_eq(w, &me));
            ended
        };
        drop(queue);
        uncount(stop_id);
        result
    }
}

fn uncount(stop_id: usize) {
    if stop_id != 0 {
        STOPPABLE.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A stop was requested for the store with interruption state `state`
/// (called by [`InterruptState::request`] after it set the request and
/// fenced): wakes the store's thread if it waits here, so that it sees the
/// request.
pub fn interrupted(state: &InterruptState) {
    if STOPPABLE.load(Ordering::SeqCst) == 0 {
        return;
    }
    let id = state as *const InterruptState as usize;
    for b in &LOT {
        let queue = b.lock().unwrap_or_else(|e| e.into_inner());
        // Unparked under the lock: the waiter cannot have returned (and
        // its thread handle still names it) while it is queued.
        for w in queue.iter().filter(|w| w.stop == id) {
            w.thread.unpark();
        }
    }
}

/// Wakes up to `count` threads waiting on `addr`, oldest first; how many
/// were woken.
pub fn notify(addr: usize, count: u32) -> u32 {
    let mut woken = Vec::new();
    {
        let mut queue = bucket(addr);
        let mut i = 0;
        while i < queue.len() && (woken.len() as u32) < count {
            if queue[i].addr == addr {
                let w = queue.remove(i);
                w.notified.store(true, Ordering::Release);
                woken.push(w);
            } else {
                i += 1;
            }
        }
    }
    // Unparked outside the lock, so a woken thread does not wait for it.
    for w in &woken {
        w.thread.unpark();
    }
    woken.len() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mismatch_timeout_and_notify() {
        let cell = Box::new(AtomicU32::new(5));
        let addr = &*cell as *const AtomicU32 as usize;
        // SAFETY (all waits): `cell` outlives them and is aligned.
        assert_eq!(unsafe { wait(addr, 4u32, None) }, WaitResult::Mismatch);
        let t = Instant::now();
        assert_eq!(unsafe { wait(addr, 5u32, Some(Duration::from_millis(20))) }, WaitResult::TimedOut);
        assert!(t.elapsed() >= Duration::from_millis(20));
        assert_eq!(notify(addr, 1), 0, "nobody waits");
        let waiter = std::thread::spawn(move || unsafe { wait(addr, 5u32, None) });
        // Notify until the waiter was there to be woken.
        while notify(addr, 1) == 0 {
            std::thread::yield_now();
        }
        assert_eq!(waiter.join().unwrap(), WaitResult::Ok);
        drop(cell);
    }

    #[test]
    fn an_interrupt_ends_a_wait() {
        let cell = Box::new(AtomicU32::new(0));
        let addr = &*cell as *const AtomicU32 as usize;
        let state = Arc::new(InterruptState::default());
        let waiting = state.clone();
        // SAFETY: `cell` outlives the wait (joined below) and is aligned.
        let waiter = std::thread::spawn(move || unsafe { wait_or_stop(addr, 0u32, None, Some(&waiting)) });
        // Once the waiter is queued, nothing but the interrupt wakes it.
        while STOPPABLE.load(Ordering::SeqCst) == 0 || bucket(addr).is_empty() {
            std::thread::yield_now();
        }
        state.request(TrapCode::Interrupt);
        assert_eq!(waiter.join().unwrap(), Err(TrapCode::Interrupt));
        assert_eq!(notify(addr, 1), 0, "the stopped waiter left the queue");
        // A stop already pending ends the wait before it parks.
        // SAFETY: as above.
        assert_eq!(unsafe { wait_or_stop(addr, 0u32, None, Some(&state)) }, Err(TrapCode::Interrupt));
        drop(cell);
    }
}
