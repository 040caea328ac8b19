//! The threads proposal across real threads: shared memories used by one
//! store per thread, atomic read-modify-writes that must not lose an
//! update, `memory.atomic.wait`/`notify` with and without timeouts, growth
//! racing with accesses, and the [`SharedMemory`] API. Every test runs in
//! both bounds-check modes where the mode changes the generated code.

use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use cranewasm::*;

/// A module over an imported shared memory of 1..=4 pages.
const WORKER: &str = r#"(module
    (import "env" "memory" (memory 1 4 shared))
    ;; n atomic increments of the i32 at addr; returns the last old value.
    (func (export "add") (param $addr i32) (param $n i32) (result i32) (local $old i32)
        (block $done (loop $again
            (br_if $done (i32.eqz (local.get $n)))
            (local.set $old (i32.atomic.rmw.add (local.get $addr) (i32.const 1)))
            (local.set $n (i32.sub (local.get $n) (i32.const 1)))
            (br $again)))
        (local.get $old))
    ;; The same with a compare-exchange loop on an i64.
    (func (export "cas_add64") (param $addr i32) (param $n i32) (local $seen i64)
        (block $done (loop $again
            (br_if $done (i32.eqz (local.get $n)))
            (local.set $seen (i64.atomic.load (local.get $addr)))
            (br_if $again (i64.ne (local.get $seen)
                (i64.atomic.rmw.cmpxchg (local.get $addr) (local.get $seen)
                    (i64.add (local.get $seen) (i64.const 1)))))
            (local.set $n (i32.sub (local.get $n) (i32.const 1)))
            (br $again))))
    (func (export "load") (param i32) (result i32) (i32.atomic.load (local.get 0)))
    (func (export "load8") (param i32) (result i32) (i32.atomic.load8_u offset=1 (local.get 0)))
    (func (export "store") (param i32 i32) (i32.atomic.store (local.get 0) (local.get 1)))
    (func (export "store16") (param i32 i64) (i64.atomic.store16 (local.get 0) (local.get 1)))
    (func (export "xchg8") (param i32 i32) (result i32) (i32.atomic.rmw8.xchg_u (local.get 0) (local.get 1)))
    (func (export "cmpxchg8") (param i32 i32 i32) (result i32)
        (i32.atomic.rmw8.cmpxchg_u (local.get 0) (local.get 1) (local.get 2)))
    (func (export "wait32") (param i32 i32 i64) (result i32)
        (memory.atomic.wait32 (local.get 0) (local.get 1) (local.get 2)))
    (func (export "wait64") (param i32 i64 i64) (result i32)
        (memory.atomic.wait64 (local.get 0) (local.get 1) (local.get 2)))
    (func (export "notify") (param i32 i32) (result i32)
        (memory.atomic.notify (local.get 0) (local.get 1)))
    (func (export "size") (result i32) (memory.size))
    (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0)))
    (func (export "fence") (atomic.fence)))"#;

fn engine(mode: BoundsChecks) -> Engine {
    let mut config = Config::new();
    config.bounds_checks(mode);
    Engine::new(&config).unwrap()
}

const MODES: [BoundsChecks; 2] = [BoundsChecks::GuardPages, BoundsChecks::Explicit];

/// One thread's view: its own store and instance over `memory`.
struct Worker {
    store: Store<()>,
    instance: Instance,
}

impl Worker {
    fn new(module: &Module, memory: &SharedMemory) -> Worker {
        let mut store = Store::new(module.engine(), ());
        let m = memory.to_memory(&mut store).unwrap();
        let instance = Instance::new(&mut store, module, &[m.into()]).unwrap();
        Worker { store, instance }
    }

    fn call<P: WasmList, R: WasmList>(&mut self, name: &str, params: P) -> std::result::Result<R, TrapError> {
        let f = self.instance.get_func(&self.store, name).unwrap().typed::<P, R>(&self.store).unwrap();
        f.call(&mut self.store, params)
    }
}

#[test]
fn eight_threads_a_million_increments_each() {
    for mode in MODES {
        let engine = engine(mode);
        let module = Module::new(&engine, WORKER).unwrap();
        let memory = SharedMemory::new(&engine, MemoryType::shared(1, 4)).unwrap();
        let start = Arc::new(Barrier::new(8));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let (module, memory, start) = (module.clone(), memory.clone(), start.clone());
                std::thread::spawn(move || {
                    let mut w = Worker::new(&module, &memory);
                    start.wait();
                    w.call::<(i32, i32), i32>("add", (64, 1_000_000)).unwrap();
                    w.call::<(i32, i32), ()>("cas_add64", (128, 100_000)).unwrap();
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let mut w = Worker::new(&module, &memory);
        assert_eq!(w.call::<i32, i32>("load", 64).unwrap(), 8_000_000, "{mode:?}: an increment was lost");
        let bytes: Vec<u8> = memory.data()[128..136].iter().map(|c| unsafe { *c.get() }).collect();
        assert_eq!(u64::from_le_bytes(bytes.try_into().unwrap()), 800_000, "{mode:?}: a cmpxchg update was lost");
    }
}

#[test]
fn narrow_accesses_work_on_their_own_bytes() {
    for mode in MODES {
        let engine = engine(mode);
        let module = Module::new(&engine, WORKER).unwrap();
        let memory = SharedMemory::new(&engine, MemoryType::shared(1, 4)).unwrap();
        let mut w = Worker::new(&module, &memory);
        w.call::<(i32, i32), ()>("store", (0, 0x1122_3344)).unwrap();
        assert_eq!(w.call::<i32, i32>("load8", 0).unwrap(), 0x33, "offset=1 reads byte 1");
        assert_eq!(w.call::<(i32, i32), i32>("xchg8", (0, 0x1ff)).unwrap(), 0x44);
        assert_eq!(w.call::<i32, i32>("load", 0).unwrap(), 0x1122_33ff);
        // The expected value is compared at the access's width.
        assert_eq!(w.call::<(i32, i32, i32), i32>("cmpxchg8", (0, 0x1ff, 0x55)).unwrap(), 0xff);
        assert_eq!(w.call::<i32, i32>("load", 0).unwrap(), 0x1122_3355);
        w.call::<(i32, i64), ()>("store16", (2, -1)).unwrap();
        assert_eq!(w.call::<i32, i32>("load", 0).unwrap(), 0xffff_3355_u32 as i32);
        w.call::<(), ()>("fence", ()).unwrap();
    }
}

/// The trap message of a call that must trap.
fn trap_of<R: std::fmt::Debug>(r: std::result::Result<R, TrapError>) -> String {
    match r {
        Err(t) => t.message().to_string(),
        other => panic!("expected a trap, got {other:?}"),
    }
}

#[test]
fn misaligned_then_out_of_bounds_traps() {
    for mode in MODES {
        let engine = engine(mode);
        let module = Module::new(&engine, WORKER).unwrap();
        let memory = SharedMemory::new(&engine, MemoryType::shared(1, 4)).unwrap();
        let mut w = Worker::new(&module, &memory);
        assert_eq!(trap_of(w.call::<i32, i32>("load", 2)), "unaligned atomic");
        assert_eq!(trap_of(w.call::<(i32, i32, i64), i32>("wait32", (2, 0, 0))), "unaligned atomic", "{mode:?}");
        assert_eq!(trap_of(w.call::<(i32, i32), i32>("notify", (1, 1))), "unaligned atomic");
        // Misaligned and out of bounds: alignment is checked first.
        assert_eq!(trap_of(w.call::<i32, i32>("load", 65537)), "unaligned atomic");
        assert_eq!(trap_of(w.call::<i32, i32>("load", 65536)), "out of bounds memory access", "{mode:?}");
        assert_eq!(trap_of(w.call::<(i32, i32), ()>("store", (-4, 0))), "out of bounds memory access");
        assert_eq!(trap_of(w.call::<(i32, i32), i32>("add", (65536, 1))), "out of bounds memory access");
        assert_eq!(trap_of(w.call::<(i32, i32), i32>("notify", (65536, 1))), "out of bounds memory access");
        assert_eq!(trap_of(w.call::<(i32, i64, i64), i32>("wait64", (65536, 0, 0))), "out of bounds memory access");
        assert_eq!(w.call::<i32, i32>("load", 65532).unwrap(), 0, "the last cell is in bounds");
        // The store still works after its traps.
        assert_eq!(w.call::<(i32, i32), i32>("add", (8, 5)).unwrap(), 4);
    }
}

#[test]
fn wait_on_an_unshared_memory_traps_and_notify_finds_nobody() {
    let engine = Engine::default();
    let module = Module::new(
        &engine,
        r#"(module (memory 1 1)
            (func (export "wait") (param i32) (result i32)
                (memory.atomic.wait32 (local.get 0) (i32.const 0) (i64.const 0)))
            (func (export "notify") (result i32) (memory.atomic.notify (i32.const 0) (i32.const 5)))
            (func (export "add") (result i32) (i32.atomic.rmw.add (i32.const 0) (i32.const 3))))"#,
    )
    .unwrap();
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let wait = instance.get_func(&store, "wait").unwrap().typed::<i32, i32>(&store).unwrap();
    assert_eq!(trap_of(wait.call(&mut store, 0)), "expected shared memory");
    // The address is checked first.
    assert_eq!(trap_of(wait.call(&mut store, 65536)), "out of bounds memory access");
    let notify = instance.get_func(&store, "notify").unwrap().typed::<(), i32>(&store).unwrap();
    assert_eq!(notify.call(&mut store, ()).unwrap(), 0);
    let add = instance.get_func(&store, "add").unwrap().typed::<(), i32>(&store).unwrap();
    add.call(&mut store, ()).unwrap();
    assert_eq!(add.call(&mut store, ()).unwrap(), 3, "atomics work on unshared memories too");
}

#[test]
fn wait_and_notify_with_timeouts() {
    for mode in MODES {
        let engine = engine(mode);
        let module = Module::new(&engine, WORKER).unwrap();
        let memory = SharedMemory::new(&engine, MemoryType::shared(1, 4)).unwrap();
        let mut w = Worker::new(&module, &memory);
        // Not the expected value: no wait at all.
        assert_eq!(w.call::<(i32, i32, i64), i32>("wait32", (0, 1, -1)).unwrap(), 1);
        assert_eq!(w.call::<(i32, i64, i64), i32>("wait64", (0, 1, -1)).unwrap(), 1);
        // A timeout.
        let t = Instant::now();
        assert_eq!(w.call::<(i32, i32, i64), i32>("wait32", (0, 0, 20_000_000)).unwrap(), 2);
        assert!(t.elapsed() >= Duration::from_millis(20), "waited {:?}", t.elapsed());
        assert_eq!(w.call::<(i32, i64, i64), i32>("wait64", (0, 0, 0)).unwrap(), 2);
        assert_eq!(w.call::<(i32, i32), i32>("notify", (0, 10)).unwrap(), 0, "nobody waits");

        // Three waiters without a timeout, on two addresses; notify wakes
        // exactly as many as it is asked to, on its own address only.
        let waiters: Vec<_> = [(16, 0), (16, 0), (24, 0)]
            .into_iter()
            .map(|(addr, expected)| {
                let (module, memory) = (module.clone(), memory.clone());
                std::thread::spawn(move || {
                    let mut w = Worker::new(&module, &memory);
                    w.call::<(i32, i32, i64), i32>("wait32", (addr, expected, -1)).unwrap()
                })
            })
            .collect();
        let mut woken = 0;
        let deadline = Instant::now() + Duration::from_secs(20);
        while woken < 2 {
            woken += w.call::<(i32, i32), i32>("notify", (16, 1)).unwrap();
            assert!(Instant::now() < deadline, "the waiters never arrived");
            std::thread::yield_now();
        }
        while w.call::<(i32, i32), i32>("notify", (24, 5)).unwrap() == 0 {
            assert!(Instant::now() < deadline, "the third waiter never arrived");
            std::thread::yield_now();
        }
        for t in waiters {
            assert_eq!(t.join().unwrap(), 0, "woken by notify");
        }
        // From the host, on the same cells.
        let host = memory.clone();
        let waiter = std::thread::spawn(move || host.atomic_wait64(32, 0, Some(Duration::from_secs(20))).unwrap());
        while memory.atomic_notify(32, 1).unwrap() == 0 {
            std::thread::yield_now();
        }
        assert_eq!(waiter.join().unwrap(), WaitResult::Ok);
        assert_eq!(memory.atomic_wait32(0, 7, None).unwrap(), WaitResult::Mismatch);
        assert!(memory.atomic_wait32(2, 0, None).is_err(), "misaligned");
        assert!(memory.atomic_notify(65536, 1).is_err(), "out of bounds");
    }
}

#[test]
fn growth_races_with_accesses() {
    for mode in MODES {
        let engine = engine(mode);
        let module = Module::new(&engine, WORKER).unwrap();
        let memory = SharedMemory::new(&engine, MemoryType::shared(1, 4)).unwrap();
        let base = memory.data_ptr();
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let (module, memory, stop) = (module.clone(), memory.clone(), stop.clone());
                std::thread::spawn(move || {
                    let mut w = Worker::new(&module, &memory);
                    let mut seen = 0;
                    // On until the main thread is done growing and this
                    // thread has seen the final size (however late a loaded
                    // machine schedules it), or a deadline that only a bug
                    // reaches.
                    let deadline = std::time::Instant::now() + Duration::from_secs(60);
                    while !(stop.load(std::sync::atomic::Ordering::Acquire) && seen == 4)
                        && std::time::Instant::now() < deadline
                    {
                        // Whatever size a thread sees, all of it is usable.
                        let pages = w.call::<(), i32>("size", ()).unwrap();
                        assert!((1..=4).contains(&pages) && pages >= seen, "size went from {seen} to {pages}");
                        seen = pages;
                        let last = pages * 65536 - 4;
                        w.call::<(i32, i32), i32>("add", (last, 1)).unwrap();
                    }
                    seen
                })
            })
            .collect();
        let mut w = Worker::new(&module, &memory);
        for expected_old in 1..4 {
            std::thread::sleep(Duration::from_millis(20));
            // Growth by the wasm of one store and by the host alternate.
            let old = if expected_old % 2 == 0 { memory.grow(1).unwrap() as i32 } else { w.call("grow", 1).unwrap() };
            assert_eq!(old, expected_old);
        }
        assert_eq!(w.call::<i32, i32>("grow", 1).unwrap(), -1, "past the maximum");
        assert!(memory.grow(1).is_err());
        stop.store(true, std::sync::atomic::Ordering::Release);
        for r in readers {
            assert_eq!(r.join().unwrap(), 4, "{mode:?}: every reader saw the final size");
        }
        assert_eq!(memory.data_ptr(), base, "a shared memory never moves");
        assert_eq!(memory.size(), 4);
        assert_eq!(memory.ty(), MemoryType::shared(4, 4));
    }
}

#[test]
fn shared_memories_through_stores_imports_and_exports() {
    let engine = engine(BoundsChecks::GuardPages);
    let memory = SharedMemory::new(&engine, MemoryType::shared(1, 4)).unwrap();
    assert!(SharedMemory::new(&engine, MemoryType::new(1, Some(4))).is_err(), "needs a shared type");

    let mut store = Store::new(&engine, ());
    let m = memory.to_memory(&mut store).unwrap();
    assert!(m.ty(&store).is_shared());
    assert_eq!(m.ty(&store), MemoryType::shared(1, 4));
    assert_eq!(m.data_ptr(&store), memory.data_ptr());
    assert_eq!(m.to_shared(&store).unwrap().data_ptr(), memory.data_ptr());
    let unshared = Memory::new(&mut store, MemoryType::new(1, Some(4))).unwrap();
    assert!(unshared.to_shared(&store).is_none());

    // Sharedness must match on import, both ways.
    let wants_unshared = Module::new(&engine, r#"(module (import "" "m" (memory 1 4)))"#).unwrap();
    assert!(matches!(Instance::new(&mut store, &wants_unshared, &[m.into()]), Err(Error::Link(_))));
    let wants_shared = Module::new(&engine, r#"(module (import "" "m" (memory 1 4 shared)))"#).unwrap();
    assert!(matches!(Instance::new(&mut store, &wants_shared, &[unshared.into()]), Err(Error::Link(_))));
    let import = wants_shared.imports().next().unwrap();
    assert!(matches!(import.ty, ExternType::Memory(t) if t.is_shared()));

    // A module defining a shared memory exports it; another store uses it.
    let definer = Module::new(
        &engine,
        r#"(module (memory (export "m") 1 2 shared) (data (i32.const 8) "\2a")
            (func (export "get") (result i32) (i32.atomic.load8_u (i32.const 8))))"#,
    )
    .unwrap();
    assert!(matches!(definer.exports().next().unwrap().ty, ExternType::Memory(t) if t.is_shared()));
    let instance = Instance::new(&mut store, &definer, &[]).unwrap();
    let exported = instance.get_memory(&store, "m").unwrap().to_shared(&store).unwrap();
    let (engine2, module2) = (engine.clone(), Module::new(&engine, WORKER).unwrap());
    let other = std::thread::spawn(move || {
        // Its maximum (2) is within what WORKER imports (1..=4).
        let mut store = Store::new(&engine2, ());
        let m = exported.to_memory(&mut store).unwrap();
        let instance = Instance::new(&mut store, &module2, &[m.into()]).unwrap();
        let add = instance.get_func(&store, "add").unwrap().typed::<(i32, i32), i32>(&store).unwrap();
        add.call(&mut store, (8, 3)).unwrap()
    });
    assert_eq!(other.join().unwrap(), 0x2a + 2, "the other store saw the data segment");
    let get = instance.get_func(&store, "get").unwrap().typed::<(), i32>(&store).unwrap();
    assert_eq!(get.call(&mut store, ()).unwrap(), 0x2a + 3, "and this one its increments");

    // Memories of an engine with explicit checks have no guard pages: an
    // engine that relies on them must refuse one.
    let explicit = self::engine(BoundsChecks::Explicit);
    let small = SharedMemory::new(&explicit, MemoryType::shared(1, 1)).unwrap();
    assert!(small.to_memory(&mut store).is_err());
    let mut explicit_store = Store::new(&explicit, ());
    memory.to_memory(&mut explicit_store).expect("guard pages suit explicit checks too");
}
