//! Tiered lazy compilation ([`Config::tiering`](crate::Config::tiering)):
//! a lazily compiled function is first compiled with the cheap settings
//! (the baseline tier) and, once called often, compiled optimised on a
//! background thread and swapped in at its next call.
//!
//! How a baseline function counts its calls: its stub (`lazy_stub`) does
//! not jump to its code but to a small counting thunk placed right after
//! it in the module's region ([`thunk`]), which decrements the function's
//! counter (an `i32` in [`Tier`], at an address baked into the thunk) and
//! jumps to the baseline code, or, when the counter goes below zero, to
//! the lazy trampoline as the stub would. The runtime, finding the
//! function compiled and its counter spent ([`Tier::request`]), queues it
//! for the background thread ([`enqueue`]) and sends the call on to the
//! baseline code. The thread compiles the function optimised, places it
//! like any lazily compiled function (trap sites, source locations and
//! exception handlers recorded; the profiler told) and publishes it by
//! patching the stub once more, the same atomic store as the first
//! publication; the thunk and the baseline code stay where they are, since
//! a thread may be in either. So no compiled code needs a counter of its
//! own (the translator is untouched), and once a function is optimised its
//! calls cost what they cost without tiers.
//!
//! Direct calls in functions compiled later bind to a callee's optimised
//! code, never to its baseline code: a call to a baseline or uncompiled
//! function goes through its stub, so it counts and, later, reaches the
//! optimised code.
//!
//! The counter is decremented by a plain read-modify-write: two threads
//! racing may lose a count, which only delays a tier-up; a request is
//! taken once per function (its state goes from baseline to queued with a
//! compare-and-swap) and the counter is then set high so the thunk stops
//! calling the runtime.
//!
//! What it does not do: count loop back edges. A baseline function
//! entered once that loops for long (a `main` with the whole workload in
//! one loop) runs at baseline speed to the end; there the cost is
//! Cranelift's unoptimised code, a few times slower than optimised.
//!
//! Only x86-64 has the thunk; elsewhere ([`SUPPORTED`] false) tiering is
//! off and lazy functions are compiled optimised at their first call.

use std::sync::atomic::{AtomicI32, AtomicU32, AtomicU8, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, OnceLock};

use cranelift_entity::EntityRef;

use super::module_code::ModuleCode;
use crate::environ::index::DefinedFuncIndex;

/// Whether this host has the counting thunk.
pub const SUPPORTED: bool = cfg!(target_arch = "x86_64");

/// Bytes of a counting thunk, a multiple of 16.
pub const THUNK_SIZE: usize = 48;

const BASELINE: u8 = 0;
const QUEUED: u8 = 1;
const OPTIMISED: u8 = 2;

/// The tier state of a lazy module's functions.
pub struct Tier {
    threshold: u32,
    /// Calls left before a tier-up, decremented by the thunks.
    counters: Box<[AtomicI32]>,
    state: Box<[AtomicU8]>,
    /// Offset of each function's optimised code in the region; 0 until
    /// then.
    optimised: Box<[AtomicU32]>,
}

impl Tier {
    /// The state of `n` functions, tiering up after `threshold` calls.
    pub fn new(n: usize, threshold: u32) -> Tier {
        // The first call compiles the function; the thunk counts the rest.
        let left = threshold.saturating_sub(1).min(i32::MAX as u32) as i32;
        Tier {
            threshold,
            counters: (0..n).map(|_| AtomicI32::new(left)).collect(),
            state: (0..n).map(|_| AtomicU8::new(BASELINE)).collect(),
            optimised: (0..n).map(|_| AtomicU32::new(0)).collect(),
        }
    }

    /// The address of `d`'s counter, for its thunk.
    pub fn counter(&self, d: DefinedFuncIndex) -> usize {
        self.counters[d.index()].as_ptr() as usize
    }

    /// Whether a function just compiled at baseline tiers up at once.
    pub fn at_once(&self) -> bool {
        self.threshold <= 1
    }

    /// The offset of `d`'s optimised code, once placed.
    pub fn optimised(&self, d: DefinedFuncIndex) -> Option<u32> {
        match self.optimised[d.index()].load(Ordering::Acquire) {
            0 => None,
            offset => Some(offset),
        }
    }

    pub fn set_optimised(&self, d: DefinedFuncIndex, offset: u32) {
        self.optimised[d.index()].store(offset, Ordering::Release);
        self.state[d.index()].store(OPTIMISED, Ordering::Release);
    }

    /// Whether `d`'s thunk spent its counter (or `force`), and `d` was not
    /// queued before: then it is queued now and the caller enqueues it.
    pub fn request(&self, d: DefinedFuncIndex, force: bool) -> bool {
        let counter = &self.counters[d.index()];
        if !force && counter.load(Ordering::Relaxed) >= 0 {
            // A thread that was inside the stub when it was patched.
            return false;
        }
        counter.store(i32::MAX, Ordering::Relaxed);
        self.state[d.index()].compare_exchange(BASELINE, QUEUED, Ordering::AcqRel, Ordering::Relaxed).is_ok()
    }

    /// How many functions run optimised code.
    pub fn optimised_count(&self) -> usize {
        self.state.iter().filter(|s| s.load(Ordering::Acquire) == OPTIMISED).count()
    }
}

/// The counting thunk of a baseline function, placed at offset `at` of
/// its region, with its counter at address `counter`, its baseline code at
/// offset `code` and its stub at offset `stub` (the lazy trampoline's
/// address is at offset 0 of the region):
///
/// ```text
/// at+0:  49 bb <imm64>      mov r11, counter
/// at+10: 41 83 2b 01        sub dword [r11], 1
/// at+14: 78 05              js at+21
/// at+16: e9 <rel32>         jmp code
/// at+21: 4c 8d 1d <rel32>   lea r11, [stub]   ; as the stub enters the trampoline
/// at+28: ff 25 <rel32>      jmp [region + 0]  ; the lazy trampoline
/// at+34: cc...
/// ```
///
/// r11 is free at a function's entry in Cranelift's `tail` convention (the
/// stub uses it the same way) and flags are not preserved across calls.
#[cfg(target_arch = "x86_64")]
pub fn thunk(at: usize, counter: usize, code: usize, stub: usize) -> [u8; THUNK_SIZE] {
    let rel = |to: usize, next: usize| ((to as i64) - (next as i64)) as i32;
    let mut t = [0xcc; THUNK_SIZE];
    t[0..2].copy_from_slice(&[0x49, 0xbb]);
    t[2..10].copy_from_slice(&(counter as u64).to_le_bytes());
    t[10..16].copy_from_slice(&[0x41, 0x83, 0x2b, 0x01, 0x78, 0x05]);
    t[16] = 0xe9;
    t[17..21].copy_from_slice(&rel(code, at + 21).to_le_bytes());
    t[21..24].copy_from_slice(&[0x4c, 0x8d, 0x1d]);
    t[24..28].copy_from_slice(&rel(stub, at + 28).to_le_bytes());
    t[28..30].copy_from_slice(&[0xff, 0x25]);
    t[30..34].copy_from_slice(&rel(0, at + 34).to_le_bytes());
    t
}

#[cfg(not(target_arch = "x86_64"))]
pub fn thunk(_at: usize, _counter: usize, _code: usize, _stub: usize) -> [u8; THUNK_SIZE] {
    unreachable!("tiering is off where there is no thunk (tier::SUPPORTED)")
}

type Job = Box<dyn FnOnce() + Send>;

/// Stack of the background thread: as the lazy compiler's helper.
const WORKER_STACK: usize = 8 << 20;

/// Compiles `d` of `module` optimised on the background thread (one per
/// process, started by the first request). The job holds the module, so
/// its code lives until the job is done.
pub fn enqueue(module: Arc<ModuleCode>, d: DefinedFuncIndex) {
    static QUEUE: OnceLock<Option<Mutex<Sender<Job>>>> = OnceLock::new();
    let queue = QUEUE.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Job>();
        let worker = std::thread::Builder::new().name("cranewasm-tier".into()).stack_size(WORKER_STACK);
        worker.spawn(move || rx.into_iter().for_each(|job| job())).ok().map(|_| Mutex::new(tx))
    });
    // Without a thread (none could be made) the function stays baseline.
    let Some(queue) = queue else { return };
    let job: Job = Box::new(move || {
        let Some(lazy) = module.compiled.lazy.as_ref() else { return };
        // A failure (the region full, Cranelift refusing) leaves the
        // baseline code running, which is correct.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| lazy.tier_up(d, &module)));
    });
    let _ = queue.lock().unwrap_or_else(|e| e.into_inner()).send(job);
}
