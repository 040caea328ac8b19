//! Tiered lazy compilation (`Config::tiering`): functions called often
//! tier up and keep their results; traps and backtraces are the same in
//! both tiers; exceptions cross frames of both tiers; an interrupt stops a
//! baseline loop; threads keep calling a function while it is swapped.
//! Tiering exists on x86-64 only; elsewhere these tests check that lazy
//! compilation without it behaves the same (and that nothing tiers).

use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use cranewasm::*;

const SUPPORTED: bool = cfg!(target_arch = "x86_64");

fn typed<P: WasmList, R: WasmList>(instance: &Instance, store: impl AsContext, name: &str) -> TypedFunc<P, R> {
    let f = instance.get_func(&store, name).unwrap_or_else(|| panic!("no export {name}"));
    f.typed(&store).unwrap()
}

/// Lazy with tiers after `threshold` calls, or eager when `None`.
fn engine(threshold: Option<u32>) -> Engine {
    let mut config = Config::new();
    config.lazy_compilation(threshold.is_some()).tiering(true).tier_threshold(threshold.unwrap_or(1));
    Engine::new(&config).unwrap()
}

/// Waits (up to a minute: the background thread shares two loaded cores)
/// until `n` functions of `module` run optimised code.
fn wait_tiered(module: &Module, n: usize) {
    if n == 0 {
        return;
    }
    if !SUPPORTED {
        assert_eq!(module.tiered_functions(), None);
        return;
    }
    let start = Instant::now();
    while module.tiered_functions().unwrap() < n {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{:?} of {n} functions tiered up",
            module.tiered_functions()
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

const FIB: &str = r#"(module
    (func $fib (export "fib") (param i32) (result i32)
        (if (result i32) (i32.lt_u (local.get 0) (i32.const 2))
            (then (local.get 0))
            (else (i32.add (call $fib (i32.sub (local.get 0) (i32.const 1)))
                           (call $fib (i32.sub (local.get 0) (i32.const 2)))))))
    (func (export "sum") (param $n i32) (result i64) (local $acc i64)
        (loop $l
            (local.set $acc (i64.add (local.get $acc) (i64.extend_i32_u (call $fib (i32.rem_u (local.get $n) (i32.const 15))))))
            (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))
        (local.get $acc)))"#;

/// What `sum(n)` of [`FIB`] returns.
fn expected_sum(n: usize) -> i64 {
    let fib = [0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377];
    (1..=n).map(|i| fib[i % 15]).sum()
}

#[test]
fn a_hot_function_tiers_up_and_keeps_its_results() {
    let engine = engine(Some(50));
    let module = Module::new(&engine, FIB).unwrap();
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let fib = typed::<i32, i32>(&instance, &store, "fib");
    let sum = typed::<i32, i64>(&instance, &store, "sum");
    // A few calls: below the threshold, nothing tiers.
    assert_eq!(fib.call(&mut store, 5).unwrap(), 5);
    assert_eq!(module.tiered_functions(), SUPPORTED.then_some(0));
    // fib(20) makes 21,891 calls: fib tiers up; sum, called once, does not.
    assert_eq!(fib.call(&mut store, 20).unwrap(), 6765);
    wait_tiered(&module, 1);
    assert_eq!(module.lazily_compiled_functions(), Some(1));
    for (n, want) in [(0, 0), (1, 1), (2, 1), (10, 55), (24, 46368)] {
        assert_eq!(fib.call(&mut store, n).unwrap(), want);
    }
    // sum, compiled after fib tiered up, calls it directly: same results.
    assert_eq!(sum.call(&mut store, 1000).unwrap(), expected_sum(1000));
    if SUPPORTED {
        assert_eq!(module.tiered_functions(), Some(1), "sum was called once");
    }
}

#[test]
fn traps_and_backtraces_are_the_same_in_both_tiers() {
    let wat = r#"(module
        (memory 1)
        (func $inner (param i32) (result i32) (i32.div_s (i32.const 1) (local.get 0)))
        (func $middle (param i32) (result i32) (call $inner (local.get 0)))
        (func (export "div") (param i32) (result i32) (call $middle (local.get 0)))
        (func (export "oob") (param i32) (result i32) (i32.load (local.get 0)))
        (func (export "warm") (param i32) (result i32) (call $middle (local.get 0))))"#;
    let mut seen = Vec::new();
    // Eager; lazy at baseline (a threshold never reached); lazy with every
    // function called tiered up at once; lazy with `middle` and `inner`
    // optimised (made hot through `warm`) under a baseline `div`.
    for (threshold, warm, tiered) in [(None, 0, 0), (Some(i32::MAX as u32), 0, 0), (Some(1), 1, 5), (Some(60), 100, 3)]
    {
        let engine = engine(threshold);
        let module = Module::new(&engine, wat).unwrap();
        let mut store = Store::new(&engine, ());
        let instance = Instance::new(&mut store, &module, &[]).unwrap();
        let div = typed::<i32, i32>(&instance, &store, "div");
        let oob = typed::<i32, i32>(&instance, &store, "oob");
        let warm_up = typed::<i32, i32>(&instance, &store, "warm");
        for _ in 0..warm {
            assert_eq!(warm_up.call(&mut store, 1).unwrap(), 1);
        }
        if threshold == Some(1) {
            assert_eq!(div.call(&mut store, 1).unwrap(), 1);
            assert_eq!(oob.call(&mut store, 0).unwrap(), 0);
        }
        wait_tiered(&module, tiered);
        let mut traps = Vec::new();
        for (f, arg) in [(&div, 0), (&oob, 70000)] {
            let err = f.call(&mut store, arg).unwrap_err();
            let frames: Vec<(u32, usize)> = err.frames().iter().map(|f| (f.func_index, f.module_offset)).collect();
            traps.push((err.code(), frames));
        }
        assert_eq!(traps[0].0, Some(Trap::IntegerDivisionByZero));
        assert_eq!(traps[0].1.iter().map(|f| f.0).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(traps[1].0, Some(Trap::MemoryOutOfBounds));
        if SUPPORTED && threshold == Some(60) {
            assert_eq!(module.tiered_functions(), Some(3), "div and oob stayed baseline");
        }
        seen.push(traps);
    }
    for s in &seen[1..] {
        assert_eq!(&seen[0], s, "the same traps and frames as eager code");
    }
}

/// `run(k)` catches what `through` throws; `k` 0 throws from `hot`
/// (called every time, so it tiers up), `k` 1 from `cold` (called only at
/// the end, baseline). `catch_cold` is a baseline catcher of `hot`.
const EXCEPTIONS: &str = r#"(module
    (tag $e (param i32))
    (func $hot (param i32) (if (local.get 0) (then (throw $e (local.get 0)))))
    (func $cold (param i32) (throw $e (i32.mul (local.get 0) (i32.const 10))))
    (func $through (param $k i32) (param $x i32)
        (call $hot (i32.const 0))
        (if (i32.eqz (local.get $k)) (then (call $hot (local.get $x))) (else (call $cold (local.get $x)))))
    (func (export "run") (param $k i32) (param $x i32) (result i32)
        (block $caught (result i32)
            (try_table (catch $e $caught) (call $through (local.get $k) (local.get $x)))
            (i32.const -1) (return))
        (i32.add (i32.const 1)))
    (func (export "catch_cold") (param $x i32) (result i32)
        (block $caught (result i32)
            (try_table (catch $e $caught) (call $hot (local.get $x)))
            (i32.const -1) (return))
        (i32.add (i32.const 2))))"#;

#[test]
fn exceptions_cross_frames_of_both_tiers() {
    let engine = engine(Some(20));
    let module = Module::new(&engine, EXCEPTIONS).unwrap();
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let run = typed::<(i32, i32), i32>(&instance, &store, "run");
    let catch_cold = typed::<i32, i32>(&instance, &store, "catch_cold");
    // Baseline throw, baseline catch.
    assert_eq!(run.call(&mut store, (0, 7)).unwrap(), 8);
    for x in 1..40 {
        assert_eq!(run.call(&mut store, (0, x)).unwrap(), x + 1);
    }
    // hot, through and run tiered up; cold and catch_cold are baseline.
    wait_tiered(&module, 3);
    // Optimised throw, optimised catch; baseline throw through optimised
    // frames; optimised throw into a baseline catcher.
    assert_eq!(run.call(&mut store, (0, 5)).unwrap(), 6);
    assert_eq!(run.call(&mut store, (1, 5)).unwrap(), 51);
    assert_eq!(catch_cold.call(&mut store, 9).unwrap(), 11);
    assert_eq!(catch_cold.call(&mut store, 0).unwrap(), -1);
    if SUPPORTED {
        assert_eq!(module.tiered_functions(), Some(3));
    }
}

#[test]
fn an_interrupt_stops_a_baseline_loop() {
    let engine = engine(Some(1000));
    let wat = r#"(module (func (export "spin") (param i32) (result i32)
        (loop $l (local.set 0 (i32.add (local.get 0) (i32.const 1))) (br $l)) (local.get 0)))"#;
    let module = Module::new(&engine, wat).unwrap();
    let mut store = Store::new(&engine, ());
    let handle = store.interrupt_handle();
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let spin = typed::<i32, i32>(&instance, &store, "spin");
    for _ in 0..2 {
        let handle = handle.clone();
        let stopper = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            handle.interrupt();
        });
        let trap = spin.call(&mut store, 0).unwrap_err();
        stopper.join().unwrap();
        assert_eq!(trap.code(), Some(Trap::Interrupt));
        let frames = trap.frames();
        assert_eq!(frames.first().map(|f| f.func_index), Some(0), "the trap names the baseline function");
    }
    assert_eq!(module.tiered_functions(), SUPPORTED.then_some(0));
}

#[test]
fn threads_keep_calling_a_function_while_it_is_swapped() {
    let engine = engine(Some(200));
    let module = Module::new(&engine, FIB).unwrap();
    let threads = 6;
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let (engine, module, barrier) = (engine.clone(), module.clone(), barrier.clone());
            std::thread::spawn(move || {
                let mut store = Store::new(&engine, ());
                let instance = Instance::new(&mut store, &module, &[]).unwrap();
                let fib = typed::<i32, i32>(&instance, &store, "fib");
                let sum = typed::<i32, i64>(&instance, &store, "sum");
                barrier.wait();
                let start = Instant::now();
                // Calls before, during and after the swap.
                let mut calls = 0;
                while calls < 200
                    || (module.tiered_functions().is_some_and(|n| n < 2) && start.elapsed() < Duration::from_secs(60))
                {
                    assert_eq!(fib.call(&mut store, 12 + t as i32 % 3).unwrap(), [144, 233, 377][t % 3]);
                    assert_eq!(sum.call(&mut store, 30).unwrap(), expected_sum(30));
                    calls += 1;
                }
                calls
            })
        })
        .collect();
    for h in handles {
        assert!(h.join().unwrap() >= 200);
    }
    wait_tiered(&module, 2);
}

#[test]
fn bad_settings_in_the_environment_are_refused() {
    // Run in a child so the variables do not leak into the other tests.
    if std::env::var_os("TIER_TEST_CHILD").is_some() {
        let err = Engine::new(&Config::new()).unwrap_err();
        println!("refused: {err}");
        return;
    }
    for (var, value) in [(TIER_ENV, "maybe"), (TIER_THRESHOLD_ENV, "0"), (TIER_THRESHOLD_ENV, "many")] {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "bad_settings_in_the_environment_are_refused", "--nocapture"])
            .env("TIER_TEST_CHILD", "1")
            .env(var, value)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && text.contains("refused:") && text.contains(var), "{var}={value}: {text}");
    }
}
