//! Resource limits really bound what a guest or the host can make the
//! store allocate: memory growth per memory, per instance and per store,
//! table growth, and the number of instances, memories and tables; a
//! failed growth is reported to the store's callback; and the per-instance
//! `InstanceLimits::max_memory_pages` (WAMR's) lowers memory maximums.
//! The bombs check the process's resident memory and mappings too.

use std::sync::{Arc, Mutex};

use cranewasm::*;

const MIB: usize = 1 << 20;
const PAGE: usize = 65536;

/// Pages grown one at a time, every 4 KiB of each written to (so each
/// becomes resident), until `memory.grow` fails; returns how many grows
/// succeeded.
const GROWER: &str = r#"(module
    (memory (export "mem") 1)
    (func (export "grow_all") (result i32)
        (local $n i32) (local $old i32) (local $at i32)
        (block $done (loop $next
            (local.set $old (memory.grow (i32.const 1)))
            (br_if $done (i32.eq (local.get $old) (i32.const -1)))
            (local.set $at (i32.mul (local.get $old) (i32.const 65536)))
            (loop $touch
                (i32.store8 (local.get $at) (i32.const 1))
                (local.set $at (i32.add (local.get $at) (i32.const 4096)))
                (br_if $touch (i32.and (local.get $at) (i32.const 65535))))
            (local.set $n (i32.add (local.get $n) (i32.const 1)))
            (br $next)))
        (local.get $n)))"#;

/// Held by every test here: the bombs measure the whole process's
/// resident memory, which tests running alongside would disturb.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Resident bytes and mappings of this process.
fn rss_and_maps() -> (usize, usize) {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let resident: usize = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap().lines().count();
    (resident * 4096, maps)
}

fn grow_all(store: &mut Store<()>, module: &Module) -> Result<i32> {
    let instance = Instance::new(&mut *store, module, &[])?;
    let f = instance.get_func(&*store, "grow_all").unwrap().typed::<(), i32>(&*store)?;
    Ok(f.call(&mut *store, ())?)
}

#[test]
fn a_guest_growing_in_a_loop_stops_at_the_limit_and_the_host_stays_within_it() {
    let _serial = serial();
    let engine = Engine::default();
    let module = Module::new(&engine, GROWER).unwrap();
    let (rss_before, maps_before) = rss_and_maps();
    let mut store = Store::new(&engine, ());
    store.set_limiter(StoreLimits::builder().memory_size(64 * MIB).build());
    let failures = Arc::new(Mutex::new(Vec::new()));
    let log = failures.clone();
    store.on_memory_grow_failure(move |f| log.lock().unwrap().push(f.clone()));
    // Without the limit this guest would take the whole 4 GiB.
    assert_eq!(grow_all(&mut store, &module).unwrap(), (64 * MIB / PAGE - 1) as i32);
    assert_eq!(store.memory_bytes(), 64 * MIB);
    let (rss_after, maps_after) = rss_and_maps();
    // 63 MiB written; without the limit the guest would write 4 GiB.
    println!("RSS grew by {} MiB", (rss_after - rss_before) / MIB);
    assert!(rss_after < rss_before + 64 * MIB + 16 * MIB, "RSS grew by {} MiB", (rss_after - rss_before) / MIB);
    assert!(maps_after <= maps_before + 8, "{maps_before} -> {maps_after} mappings");
    let failures = failures.lock().unwrap();
    assert_eq!(failures.len(), 1);
    let f = &failures[0];
    assert_eq!(f.reason, GrowFailureReason::LimitReached);
    assert_eq!((f.delta_pages, f.current_bytes, f.memory_index), (1, 64 * MIB, Some(0)));
    assert!(f.instance.is_some());
}

#[test]
fn the_declared_maximum_is_reported_as_such() {
    let _serial = serial();
    let engine = Engine::default();
    let module =
        Module::new(&engine, GROWER.replace("(memory (export \"mem\") 1)", "(memory (export \"mem\") 1 3)")).unwrap();
    let mut store = Store::new(&engine, ());
    let reasons = Arc::new(Mutex::new(Vec::new()));
    let log = reasons.clone();
    store.on_memory_grow_failure(move |f| log.lock().unwrap().push((f.reason, f.current_bytes)));
    assert_eq!(grow_all(&mut store, &module).unwrap(), 2);
    assert_eq!(*reasons.lock().unwrap(), [(GrowFailureReason::MaximumReached, 3 * PAGE)]);
}

#[test]
fn many_instances_stop_at_the_store_total_and_the_instance_count() {
    let _serial = serial();
    let engine = Engine::default();
    let module = Module::new(&engine, "(module (memory 2) (table 1 funcref))").unwrap();
    let mut store = Store::new(&engine, ());
    store.set_limiter(StoreLimits::builder().total_memory(20 * PAGE).build());
    let (_, maps_before) = rss_and_maps();
    let mut made = Vec::new();
    let err = loop {
        match Instance::new(&mut store, &module, &[]) {
            Ok(i) => made.push(i),
            Err(e) => break e,
        }
        assert!(made.len() <= 10, "the limit did not hold");
    };
    assert_eq!(made.len(), 10);
    assert!(matches!(err, Error::Resource(_)), "{err}");
    // The refused instance left nothing behind.
    assert_eq!(store.instance_count(), 10);
    assert_eq!(store.memory_bytes(), 20 * PAGE);
    let (_, maps_after) = rss_and_maps();
    assert!(maps_after <= maps_before + 2 * 10 + 8, "{maps_before} -> {maps_after} mappings");
    // Giving instances back makes room again.
    for i in made.drain(..5) {
        // SAFETY: neither the handle nor anything from it is used again.
        unsafe { i.release(&mut store) };
    }
    assert_eq!(store.instance_count(), 5);
    assert_eq!(store.memory_bytes(), 10 * PAGE);
    for _ in 0..5 {
        Instance::new(&mut store, &module, &[]).unwrap();
    }
    assert!(Instance::new(&mut store, &module, &[]).is_err());

    // The instance, memory and table counts.
    let counted = |limits: StoreLimits| {
        let mut store = Store::new(&engine, ());
        store.set_limiter(limits);
        let mut n = 0;
        while Instance::new(&mut store, &module, &[]).is_ok() {
            n += 1;
        }
        n
    };
    assert_eq!(counted(StoreLimits::builder().instances(7).build()), 7);
    assert_eq!(counted(StoreLimits::builder().memories(5).build()), 5);
    assert_eq!(counted(StoreLimits::builder().tables(3).build()), 3);
}

#[test]
fn a_limit_per_instance_counts_all_its_memories() {
    let _serial = serial();
    let engine = Engine::default();
    let module = Module::new(
        &engine,
        r#"(module (memory $a 1) (memory $b 1)
            (func (export "grow") (param i32) (result i32) (memory.grow $b (local.get 0))))"#,
    )
    .unwrap();
    let mut store = Store::new(&engine, ());
    store.set_limiter(StoreLimits::builder().instance_memory(5 * PAGE).build());
    for _ in 0..2 {
        // Each instance has 2 pages and may grow by 3 more in all.
        let instance = Instance::new(&mut store, &module, &[]).unwrap();
        let grow = instance.get_func(&store, "grow").unwrap().typed::<i32, i32>(&store).unwrap();
        assert_eq!(grow.call(&mut store, 2).unwrap(), 1);
        assert_eq!(grow.call(&mut store, 2).unwrap(), -1);
        assert_eq!(grow.call(&mut store, 1).unwrap(), 3);
        assert_eq!(grow.call(&mut store, 1).unwrap(), -1);
    }
    assert_eq!(store.memory_bytes(), 10 * PAGE);
}

#[test]
fn a_table_grow_bomb_is_refused() {
    let _serial = serial();
    let engine = Engine::default();
    let module = Module::new(
        &engine,
        r#"(module (table $t 0 funcref)
            (func (export "bomb") (result i32)
                (local $n i32)
                (block $done (loop $next
                    (br_if $done (i32.eq (table.grow $t (ref.null func) (i32.const 1000000)) (i32.const -1)))
                    (local.set $n (i32.add (local.get $n) (i32.const 1)))
                    (br $next)))
                (local.get $n)))"#,
    )
    .unwrap();
    let (rss_before, _) = rss_and_maps();
    let mut store = Store::new(&engine, ());
    store.set_limiter(StoreLimits::builder().table_elements(2_000_000).build());
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let bomb = instance.get_func(&store, "bomb").unwrap().typed::<(), i32>(&store).unwrap();
    assert_eq!(bomb.call(&mut store, ()).unwrap(), 2);
    let table = instance.get_table(&store, "t");
    assert!(table.is_none(), "not exported");
    let (rss_after, _) = rss_and_maps();
    // Two million 8-byte elements, and room for the test's own noise.
    assert!(rss_after < rss_before + 16 * MIB + 16 * MIB, "RSS grew by {} MiB", (rss_after - rss_before) / MIB);

    // The host API is limited the same way.
    let t = Table::new(&mut store, TableType::new(RefType::FUNCREF, 10, None), Val::FuncRef(None)).unwrap();
    assert!(matches!(t.grow(&mut store, 3_000_000, Val::FuncRef(None)), Err(Error::TableGrow { .. })));
    assert_eq!(t.grow(&mut store, 5, Val::FuncRef(None)).unwrap(), 10);
    let too_big = TableType::new(RefType::FUNCREF, 3_000_000, None);
    assert!(matches!(Table::new(&mut store, too_big, Val::FuncRef(None)), Err(Error::Resource(_))));
}

#[test]
fn host_memories_are_limited_and_counted() {
    let _serial = serial();
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    store.set_limiter(StoreLimits::builder().memories(2).total_memory(8 * PAGE).build());
    let failures = Arc::new(Mutex::new(0));
    let count = failures.clone();
    store.on_memory_grow_failure(move |f| {
        assert_eq!(f.instance, None);
        *count.lock().unwrap() += 1;
    });
    let a = Memory::new(&mut store, MemoryType::new(2, None)).unwrap();
    assert!(matches!(Memory::new(&mut store, MemoryType::new(7, None)), Err(Error::Resource(_))));
    let _b = Memory::new(&mut store, MemoryType::new(5, None)).unwrap();
    assert!(matches!(Memory::new(&mut store, MemoryType::new(0, None)), Err(Error::Resource(_))), "memory count");
    assert!(matches!(a.grow(&mut store, 2), Err(Error::MemoryGrow { delta: 2 })));
    assert_eq!(a.grow(&mut store, 1).unwrap(), 2);
    assert_eq!(store.memory_bytes(), 8 * PAGE);
    assert_eq!(*failures.lock().unwrap(), 1);
}

#[test]
fn instance_limits_lower_memory_maximums_as_wamr_does() {
    let _serial = serial();
    let engine = Engine::default();
    let module =
        Module::new(&engine, GROWER.replace("(memory (export \"mem\") 1)", "(memory (export \"mem\") 2 100)")).unwrap();
    let max_after = |limits: InstanceLimits| {
        let mut store = Store::new(&engine, ());
        let instance = Instance::new_with_limits(&mut store, &module, &[], &limits).unwrap();
        let mem = instance.get_memory(&store, "mem").unwrap();
        let grow = instance.get_func(&store, "grow_all").unwrap().typed::<(), i32>(&store).unwrap();
        let grown = grow.call(&mut store, ()).unwrap();
        (mem.ty(&store).maximum(), grown)
    };
    assert_eq!(max_after(InstanceLimits::max_memory_pages(4)), (Some(4), 2));
    // 0 keeps the declared maximum; below the minimum gives the minimum;
    // above the declared maximum keeps it.
    assert_eq!(max_after(InstanceLimits::max_memory_pages(0)), (Some(100), 98));
    assert_eq!(max_after(InstanceLimits::max_memory_pages(1)), (Some(2), 0));
    assert_eq!(max_after(InstanceLimits::max_memory_pages(1000)), (Some(100), 98));
    assert_eq!(max_after(InstanceLimits::default()), (Some(100), 98));
}

/// A limiter of the embedder's own, which also sees the store totals.
#[test]
fn a_custom_limiter_sees_the_store_totals() {
    let _serial = serial();
    struct Budget {
        seen: Arc<Mutex<Vec<MemoryGrowth>>>,
    }
    impl ResourceLimiter for Budget {
        fn memory_growing(&mut self, g: &MemoryGrowth) -> bool {
            self.seen.lock().unwrap().push(g.clone());
            g.store_total + (g.desired - g.current) <= 4 * PAGE
        }
        fn table_growing(&mut self, _: u32, _: u32, _: Option<u32>) -> bool {
            true
        }
    }
    let engine = Engine::default();
    let module = Module::new(&engine, GROWER).unwrap();
    let mut store = Store::new(&engine, ());
    let seen = Arc::new(Mutex::new(Vec::new()));
    store.set_limiter(Budget { seen: seen.clone() });
    assert_eq!(grow_all(&mut store, &module).unwrap(), 3);
    assert!(grow_all(&mut store, &module).unwrap_err().to_string().contains("limiter"));
    let seen = seen.lock().unwrap();
    assert_eq!((seen[0].current, seen[0].desired, seen[0].store_total), (0, PAGE, 0));
    assert_eq!(
        (seen[1].current, seen[1].desired, seen[1].instance_total, seen[1].store_total),
        (PAGE, 2 * PAGE, PAGE, PAGE)
    );
}
