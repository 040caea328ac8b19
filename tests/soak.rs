//! Soak tests: long runs must not grow memory. A million calls through host
//! callbacks (some trapping), 4 threads × 10,000 instantiate / call /
//! release rounds (releasing instances in a long-lived store, or a fresh
//! store per round), and one module shared by threads that instantiate,
//! trap, and compile other modules meanwhile.
//!
//! Growth is measured after a warm-up: heap bytes exactly (a counting
//! allocator, per thread), resident memory and memory mappings coarsely.

mod support;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::Instant;

use cranewasm::*;
use support::{alloc_counter, mappings, rss_bytes};

/// Held by each test for its whole run: resident memory is per process,
/// so tests measuring it must not overlap.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn alone() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// Resident memory may move a little (allocator caches, page tables);
/// a leak of even a few bytes per round over these counts is far more.
const RSS_SLACK: u64 = 4 << 20;

/// The count of mappings moves with how the four threads happen to
/// overlap: glibc's per-thread arenas and cached thread stacks, and the
/// kernel merging neighbouring mappings of equal protection or not. On a
/// loaded 2-core machine it moved by up to 12 between identical runs (and
/// did so before any change of ours), so a bound of 8 failed at random. A
/// leak would grow with the 40,000 rounds: even one mapping per thousand
/// rounds is 40, past this bound.
const MAPPINGS_SLACK: i64 = 32;

const CALLER: &str = r#"(module
    (import "host" "add" (func $add (param i32 i32) (result i32)))
    (import "host" "maybe_fail" (func $maybe_fail (param i32)))
    (memory (export "mem") 1)
    (func (export "run") (param i32) (result i32)
        (call $maybe_fail (local.get 0))
        (i32.store (i32.const 16) (local.get 0))
        (call $add (i32.load (i32.const 16)) (i32.const 1))))"#;

#[test]
fn a_million_calls_through_host_callbacks() {
    let _alone = alone();
    let engine = Engine::default();
    let module = Module::new(&engine, CALLER).unwrap();
    let mut store = Store::new(&engine, 0u64);
    let add = Func::wrap(&mut store, |mut caller: Caller<'_, u64>, a: i32, b: i32| {
        *caller.data_mut() += 1;
        a.wrapping_add(b)
    });
    // Every 1000th call traps in the host, so the trap path runs too.
    let maybe_fail = Func::wrap(&mut store, |x: i32| -> Result<(), TrapError> {
        if x % 1000 == 999 {
            Err(TrapError::new("every thousandth call fails"))
        } else {
            Ok(())
        }
    });
    let instance = Instance::new(&mut store, &module, &[add.into(), maybe_fail.into()]).unwrap();
    let run_func = instance.get_func(&store, "run").unwrap();
    let run = run_func.typed::<i32, i32>(&store).unwrap();
    let call = |store: &mut Store<u64>, i: i32| {
        // Most calls typed; every tenth through the `Val` interface.
        let result = if i % 10 == 0 {
            let mut out = [Val::I32(0)];
            run_func
                .call(&mut *store, &[Val::I32(i)], &mut out)
                .map(|()| out[0].i32().unwrap())
                .map_err(|e| e.to_string())
        } else {
            run.call(&mut *store, i).map_err(|t| t.to_string())
        };
        match result {
            Ok(v) => assert_eq!(v, i.wrapping_add(1)),
            Err(e) => {
                assert_eq!(i % 1000, 999, "unexpected trap at {i}: {e}");
                assert_eq!(e, "every thousandth call fails");
            }
        }
    };
    for i in 0..20_000 {
        call(&mut store, i);
    }
    let (rss, heap) = (rss_bytes(), alloc_counter::live_bytes());
    let start = Instant::now();
    alloc_counter::counting(|| {
        for i in 0..1_000_000 {
            call(&mut store, i);
        }
    });
    let elapsed = start.elapsed();
    let heap_growth = alloc_counter::live_bytes() - heap;
    let rss_growth = rss_bytes() as i64 - rss as i64;
    eprintln!(
        "soak: 1,000,000 calls in {elapsed:.2?} ({:.0} ns/call), heap {heap_growth:+} bytes, RSS {rss_growth:+} bytes",
        elapsed.as_nanos() as f64 / 1e6
    );
    assert_eq!(*store.data(), 20_000 - 20 + 1_000_000 - 1000, "host calls counted");
    assert_eq!(heap_growth, 0, "heap grew over a million calls");
    assert!(rss_growth < RSS_SLACK as i64, "RSS grew by {rss_growth} bytes");
}

const INSTANCE: &str = r#"(module
    (memory (export "mem") 1 2)
    (table 4 funcref)
    (global $g (mut i64) (i64.const 0))
    (func $f (export "f") (param i32) (result i32)
        (i32.store (i32.const 0) (local.get 0))
        (global.set $g (i64.extend_i32_u (local.get 0)))
        (drop (memory.grow (i32.const 1)))
        (i32.add (i32.load (i32.const 0)) (memory.size)))
    (elem (i32.const 0) $f))"#;

/// INSTANCE with 16 KiB of data from address 1024 on: memory 0 starts from
/// a copy-on-write image of it (the page `f` writes to is in the image), which
/// each round maps and each release unmaps.
fn instance_with_image() -> String {
    let data: String = (0..16 * 1024).map(|i| format!("\\{:02x}", i % 251 + 1)).collect();
    INSTANCE.replace("(elem", &format!("(data (i32.const 1024) \"{data}\") (elem"))
}

/// Open file descriptors of this process (a memory image is one).
fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").expect("/proc/self/fd").count()
}

/// `warm_up + rounds` rounds of instantiate, call, release (or drop the
/// store); returns how much the heap held on this thread grew over the
/// last `rounds`, measured while the long-lived store is still alive.
/// With `with_data`, the module is `instance_with_image()`, whose data
/// each round checks.
fn rounds(module: &Module, engine: &Engine, warm_up: u32, rounds: u32, fresh_store: bool, with_data: bool) -> i64 {
    let mut long_lived = Store::new(engine, ());
    let mut before = 0;
    for round in 0..warm_up + rounds {
        if round == warm_up {
            before = alloc_counter::thread_live_bytes();
        }
        let mut fresh = Store::new(engine, ());
        let store = if fresh_store { &mut fresh } else { &mut long_lived };
        let instance = Instance::new(&mut *store, module, &[]).unwrap();
        let f = instance.get_func(&*store, "f").unwrap().typed::<i32, i32>(&*store).unwrap();
        assert_eq!(f.call(&mut *store, round as i32).unwrap(), round as i32 + 2);
        if with_data {
            // The image's bytes, in every instance.
            let data = instance.get_memory(&*store, "mem").unwrap().data(&*store);
            assert_eq!((data[1024], data[1024 + 300], data[1024 + 16 * 1024]), (1, (300 % 251 + 1) as u8, 0));
        }
        if !fresh_store {
            // SAFETY: nothing taken from `instance` is used after this.
            unsafe { instance.release(&mut *store) };
            assert_eq!(store.instance_count(), 0);
        }
    }
    alloc_counter::thread_live_bytes() - before
}

/// 4 threads × `n` rounds of instantiate, call, release; returns the
/// growth of heap, RSS and mappings over the rounds after a warm-up.
fn threads_of_rounds(wat: &str, n: u32, fresh_store: bool) -> (i64, i64, i64) {
    let engine = Engine::default();
    let module = Module::new(&engine, wat).unwrap();
    let with_data = wat.contains("(data");
    let on_4_threads = |warm_up: u32, n: u32| -> i64 {
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let (engine, module) = (engine.clone(), module.clone());
                std::thread::spawn(move || {
                    alloc_counter::counting(|| rounds(&module, &engine, warm_up, n, fresh_store, with_data))
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).sum()
    };
    // A first run on 4 threads, so the C library's per-thread malloc
    // arenas exist before resident memory and mappings are measured.
    on_4_threads(0, 200);
    let (rss, maps) = (rss_bytes(), mappings());
    let start = Instant::now();
    let heap_growth = on_4_threads(200, n);
    let growth = (heap_growth, rss_bytes() as i64 - rss as i64, mappings() as i64 - maps as i64);
    eprintln!(
        "soak: 4 threads x {n} rounds ({}) in {:.2?}, heap {:+} bytes, RSS {:+} bytes, mappings {:+}",
        if fresh_store { "a fresh store each" } else { "released in one store" },
        start.elapsed(),
        growth.0,
        growth.1,
        growth.2
    );
    growth
}

#[test]
fn instantiate_call_release_in_long_lived_stores() {
    let _alone = alone();
    let (heap, rss, maps) = threads_of_rounds(INSTANCE, 10_000, false);
    // Each thread's store lives across its rounds: what it keeps must not
    // grow with their number (it once kept a slot per instance ever made).
    assert_eq!(heap, 0, "heap held by the long-lived stores grew");
    assert!(rss < RSS_SLACK as i64, "RSS grew by {rss} bytes");
    assert!(maps <= MAPPINGS_SLACK, "{maps} more mappings");
}

#[test]
fn instantiate_call_drop_with_a_fresh_store_each_round() {
    let _alone = alone();
    let (heap, rss, maps) = threads_of_rounds(INSTANCE, 10_000, true);
    assert_eq!(heap, 0, "heap grew");
    assert!(rss < RSS_SLACK as i64, "RSS grew by {rss} bytes");
    assert!(maps <= MAPPINGS_SLACK, "{maps} more mappings");
}

#[test]
fn instantiate_call_drop_with_a_memory_image() {
    let _alone = alone();
    let fds = open_fds();
    let (heap, rss, maps) = threads_of_rounds(&instance_with_image(), 10_000, true);
    assert_eq!(heap, 0, "heap grew");
    assert!(rss < RSS_SLACK as i64, "RSS grew by {rss} bytes");
    assert!(maps <= MAPPINGS_SLACK, "{maps} more mappings");
    // The module's image (one memfd) is gone with the module.
    assert_eq!(open_fds(), fds, "file descriptors leaked");
}

#[test]
fn one_module_shared_by_threads_that_trap_and_compile_meanwhile() {
    let _alone = alone();
    let engine = Engine::default();
    let shared = Module::new(
        &engine,
        r#"(module (memory 1)
            (func (export "sum") (param i32) (result i32) (local i32)
                (block (loop
                    (br_if 1 (i32.eqz (local.get 0)))
                    (local.set 1 (i32.add (local.get 1) (local.get 0)))
                    (local.set 0 (i32.sub (local.get 0) (i32.const 1)))
                    (br 0)))
                (local.get 1))
            (func (export "oob") (param i32) (result i32) (i32.load (local.get 0))))"#,
    )
    .unwrap();
    let barrier = Arc::new(Barrier::new(5));
    let traps = Arc::new(AtomicU64::new(0));
    let mut threads: Vec<_> = (0..4)
        .map(|t| {
            let (engine, module, barrier, traps) = (engine.clone(), shared.clone(), barrier.clone(), traps.clone());
            std::thread::spawn(move || {
                barrier.wait();
                for round in 0..2000u32 {
                    let mut store = Store::new(&engine, ());
                    let instance = Instance::new(&mut store, &module, &[]).unwrap();
                    let sum = instance.get_func(&store, "sum").unwrap().typed::<i32, i32>(&store).unwrap();
                    let n = (round % 100 + t) as i32;
                    assert_eq!(sum.call(&mut store, n).unwrap(), n * (n + 1) / 2);
                    let oob = instance.get_func(&store, "oob").unwrap().typed::<i32, i32>(&store).unwrap();
                    assert_eq!(oob.call(&mut store, 65536).unwrap_err().code(), Some(Trap::MemoryOutOfBounds));
                    traps.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    // Meanwhile, modules come and go: the code registry the fault handler
    // consults changes under the trapping threads.
    let compiler = {
        let (engine, barrier) = (engine.clone(), barrier.clone());
        std::thread::spawn(move || {
            barrier.wait();
            for i in 0..300 {
                let m =
                    Module::new(&engine, format!("(module (func (export \"f\") (result i32) i32.const {i}))")).unwrap();
                let mut store = Store::new(&engine, ());
                let instance = Instance::new(&mut store, &m, &[]).unwrap();
                let f = instance.get_func(&store, "f").unwrap().typed::<(), i32>(&store).unwrap();
                assert_eq!(f.call(&mut store, ()).unwrap(), i);
            }
        })
    };
    threads.push(compiler);
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(traps.load(Ordering::Relaxed), 8000);
    // The shared module is still whole once every thread has dropped its
    // clone.
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &shared, &[]).unwrap();
    let sum = instance.get_func(&store, "sum").unwrap().typed::<i32, i32>(&store).unwrap();
    assert_eq!(sum.call(&mut store, 10).unwrap(), 55);
}
