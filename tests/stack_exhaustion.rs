//! Stack exhaustion: recursion traps with "call stack exhausted" — never a
//! crash — whatever the configured limit, frame size, call form, how deep
//! the host already is when it calls in, and on many threads at once,
//! including threads with small stacks.

use std::sync::Arc;

use cranewasm::*;

/// `down(n)` recurses forever, recording how deep it got in `$depth`;
/// `fat` does the same with a large frame; `tail(n)` counts down with tail
/// calls, which need no stack; `via_table` recurses through a table.
const RECURSIVE: &str = r#"(module
    (type $r (func (param i32) (result i32)))
    (global $depth (export "depth") (mut i32) (i32.const 0))
    (table 1 funcref)
    (elem (i32.const 0) $via_table)
    (func $down (export "down") (param i32) (result i32)
        (global.set $depth (local.get 0))
        (call $down (i32.add (local.get 0) (i32.const 1))))
    (func $fat (export "fat") (param i32) (result i32)
        (local v128 v128 v128 v128 v128 v128 v128 v128 v128 v128 v128 v128 v128 v128 v128 v128)
        (local i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64)
        (local.set 1 (i32x4.splat (local.get 0)))
        (local.set 17 (i64.extend_i32_u (local.get 0)))
        (global.set $depth (local.get 0))
        (drop (call $fat (i32.add (local.get 0) (i32.const 1))))
        (i32.add (i32x4.extract_lane 0 (local.get 1)) (i32.wrap_i64 (local.get 17))))
    (func $tail (export "tail") (param i32) (result i32)
        (if (result i32) (i32.eqz (local.get 0))
            (then (i32.const 7))
            (else (return_call $tail (i32.sub (local.get 0) (i32.const 1))))))
    (func $via_table (export "via_table") (param i32) (result i32)
        (global.set $depth (local.get 0))
        (call_indirect (type $r) (i32.add (local.get 0) (i32.const 1)) (i32.const 0)))
    (func (export "ok") (result i32) (i32.const 42)))"#;

struct Recursive {
    store: Store<()>,
    instance: Instance,
}

impl Recursive {
    fn new(engine: &Engine) -> Recursive {
        let module = Module::new(engine, RECURSIVE).unwrap();
        let mut store = Store::new(engine, ());
        let instance = Instance::new(&mut store, &module, &[]).unwrap();
        Recursive { store, instance }
    }

    /// Runs export `name` until it exhausts the stack; returns the depth
    /// it reached.
    fn exhaust(&mut self, name: &str) -> i32 {
        let f = self.instance.get_func(&self.store, name).unwrap().typed::<i32, i32>(&self.store).unwrap();
        let trap = f.call(&mut self.store, 0).expect_err("infinite recursion must trap");
        assert_eq!(trap.code(), Some(Trap::StackOverflow), "{name}: {trap}");
        assert_eq!(trap.message(), "call stack exhausted");
        let depth = self.instance.get_global(&self.store, "depth").unwrap().get(&self.store).i32().unwrap();
        // The store is fine afterwards.
        let ok = self.instance.get_func(&self.store, "ok").unwrap().typed::<(), i32>(&self.store).unwrap();
        assert_eq!(ok.call(&mut self.store, ()).unwrap(), 42);
        depth
    }
}

fn engine_with_stack(bytes: usize) -> Engine {
    let mut config = Config::new();
    config.max_wasm_stack(bytes);
    Engine::new(&config).unwrap()
}

/// Runs `f` on a thread with a `size`-byte stack.
fn on_thread<R: Send + 'static>(size: usize, f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::Builder::new().stack_size(size).spawn(f).unwrap().join().unwrap()
}

#[test]
fn depth_follows_the_configured_limit() {
    on_thread(32 << 20, || {
        let mut depths = Vec::new();
        for limit in [64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20] {
            let mut r = Recursive::new(&engine_with_stack(limit));
            let d = r.exhaust("down");
            // The limit is exact: the same depth every time.
            assert_eq!(r.exhaust("down"), d, "limit {limit}");
            let fat = r.exhaust("fat");
            let table = r.exhaust("via_table");
            assert!(fat < d && table > 0, "limit {limit}: down {d}, fat {fat}, via_table {table}");
            depths.push((limit, d));
        }
        for pair in depths.windows(2) {
            let ((l0, d0), (l1, d1)) = (pair[0], pair[1]);
            // Depth grows in proportion to the limit (frame size is fixed).
            let ratio = d1 as f64 / d0 as f64;
            let expected = l1 as f64 / l0 as f64;
            assert!(ratio > expected * 0.8 && ratio < expected * 1.25, "{depths:?}");
        }
    });
}

#[test]
fn tail_calls_need_no_stack() {
    on_thread(2 << 20, || {
        let mut r = Recursive::new(&engine_with_stack(64 << 10));
        let tail = r.instance.get_func(&r.store, "tail").unwrap().typed::<i32, i32>(&r.store).unwrap();
        // Far deeper than 64 KiB of frames could hold.
        assert_eq!(tail.call(&mut r.store, 1_000_000).unwrap(), 7);
    });
}

/// Consumes about `bytes` of native stack, then runs `f` there.
#[inline(never)]
fn at_native_depth<R>(bytes: usize, f: &mut dyn FnMut() -> R) -> R {
    if bytes < 4096 {
        return f();
    }
    let pad = [0u8; 4000];
    let r = at_native_depth(bytes - 4096, f);
    std::hint::black_box(&pad);
    r
}

#[test]
fn a_host_already_deep_in_its_stack_still_gets_a_trap() {
    // The limit (8 MiB) exceeds the whole thread stack (1 MiB): the
    // runtime must cap it at what is left, wherever the host calls from.
    on_thread(1 << 20, || {
        let mut r = Recursive::new(&engine_with_stack(8 << 20));
        let mut last = i32::MAX;
        for used in [0, 128 << 10, 384 << 10, 640 << 10, 860 << 10] {
            let depth = at_native_depth(used, &mut || r.exhaust("down"));
            assert!(depth <= last, "deeper host, less room: {used} bytes used gave depth {depth} after {last}");
            last = depth;
        }
    });
}

#[test]
fn many_threads_exhaust_their_stacks_at_once() {
    let engine = engine_with_stack(1 << 20);
    let module = Arc::new(Module::new(&engine, RECURSIVE).unwrap());
    // Recursion that passes through the host on every level too.
    let through_host = Module::new(
        &engine,
        r#"(module (import "host" "back" (func $back (param i32) (result i32)))
            (func (export "down") (param i32) (result i32) (call $back (i32.add (local.get 0) (i32.const 1)))))"#,
    )
    .unwrap();
    let threads: Vec<_> = (0..8)
        .map(|i| {
            let (engine, module, through_host) = (engine.clone(), module.clone(), through_host.clone());
            // Small stacks (256 KiB, as a host's worker pool might use),
            // Rust's default, and a large one.
            let size = [256 << 10, 256 << 10, 2 << 20, 8 << 20][i % 4];
            std::thread::Builder::new()
                .stack_size(size)
                .spawn(move || {
                    let mut store = Store::new(&engine, ());
                    let instance = Instance::new(&mut store, &module, &[]).unwrap();
                    let mut r = Recursive { store, instance };
                    let slot: Arc<std::sync::OnceLock<Func>> = Arc::default();
                    let s = slot.clone();
                    let mut store2 = Store::new(&engine, ());
                    let back =
                        Func::wrap(&mut store2, move |mut caller: Caller<'_, ()>, n: i32| -> Result<i32, TrapError> {
                            s.get().unwrap().typed::<i32, i32>(&caller).unwrap().call(&mut caller, n)
                        });
                    let host = Instance::new(&mut store2, &through_host, &[back.into()]).unwrap();
                    let down = host.get_func(&store2, "down").unwrap();
                    slot.set(down).unwrap();
                    let down = down.typed::<i32, i32>(&store2).unwrap();
                    let mut depths = Vec::new();
                    for _ in 0..20 {
                        depths.push(r.exhaust(["down", "fat", "via_table"][depths.len() % 3]));
                        let trap = down.call(&mut store2, 0).unwrap_err();
                        assert_eq!(trap.code(), Some(Trap::StackOverflow), "through the host, {size}-byte stack");
                    }
                    (size, depths)
                })
                .unwrap()
        })
        .collect();
    // With tiered lazy compilation (`Config::tiering`, on with
    // CRANEWASM_LAZY=1 on x86-64) a function's frame may change size once,
    // when its optimised code replaces the baseline code.
    let lazy = std::env::var("CRANEWASM_LAZY").is_ok_and(|v| v == "1");
    let tiers = lazy && cfg!(target_arch = "x86_64") && std::env::var("CRANEWASM_TIER").map_or(true, |v| v != "0");
    for t in threads {
        let (size, depths) = t.join().expect("no thread crashed");
        assert!(depths.iter().all(|d| *d > 0), "{size}: {depths:?}");
        // Each call form reaches the same depth every time on a thread
        // (after its tier-up, with tiers).
        for form in 0..3 {
            let of_form: Vec<_> = depths.iter().skip(form).step_by(3).collect();
            let changes = of_form.windows(2).filter(|w| w[0] != w[1]).count();
            assert!(changes <= usize::from(tiers), "{size}: {depths:?}");
        }
    }
}

/// The limit compiled code reads is a copy in each instance's VMContext,
/// set on entry. An instance made by a host function during a call must
/// get that call's limit (not none, not the "no call running" value), and
/// every instance of the store a new limit when the store moves to
/// another thread's stack.
#[test]
fn instances_made_during_a_call_and_stores_moved_between_threads_get_the_current_limit() {
    let engine = engine_with_stack(256 << 10);
    let module = Module::new(&engine, RECURSIVE).unwrap();
    let outer = Module::new(
        &engine,
        r#"(module (import "host" "make" (func $make (result i32)))
            (func (export "run") (result i32) (call $make)))"#,
    )
    .unwrap();
    let mut store = Store::new(&engine, ());
    let m = module.clone();
    let make = Func::wrap(&mut store, move |mut caller: Caller<'_, ()>| -> Result<i32, TrapError> {
        let inner = Instance::new(&mut caller, &m, &[]).unwrap();
        let ok = inner.get_func(&caller, "ok").unwrap().typed::<(), i32>(&caller).unwrap();
        assert_eq!(ok.call(&mut caller, ())?, 42, "a shallow call in the new instance runs");
        let down = inner.get_func(&caller, "down").unwrap().typed::<i32, i32>(&caller).unwrap();
        let trap = down.call(&mut caller, 0).expect_err("infinite recursion must trap");
        assert_eq!(trap.code(), Some(Trap::StackOverflow));
        let depth = inner.get_global(&caller, "depth").unwrap().get(&caller).i32().unwrap();
        assert!(depth > 100, "the new instance has the call's limit, not a stale one: depth {depth}");
        Ok(depth)
    });
    let run = Instance::new(&mut store, &outer, &[make.into()]).unwrap();
    let run = run.get_func(&store, "run").unwrap().typed::<(), i32>(&store).unwrap();
    let here = run.call(&mut store, ()).unwrap();

    // The same store (with its instances) on threads with other stacks.
    let mut r = Recursive { instance: Instance::new(&mut store, &module, &[]).unwrap(), store };
    let first = r.exhaust("down");
    for size in [512 << 10, 8 << 20, 300 << 10] {
        let (back, depth) = on_thread(size, move || {
            let d = r.exhaust("down");
            (r, d)
        });
        r = back;
        // 256 KiB of wasm stack fits every one of these threads' stacks.
        assert!(depth * 10 > first * 9 && depth * 9 < first * 10, "{size}: {depth} against {first}");
    }
    assert!(here > 0);
}
