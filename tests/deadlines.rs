//! Deadlines: epochs (`Config::epoch_interruption`, `Engine::increment_epoch`,
//! `Store::set_epoch_deadline`, delivered like interrupts) and fuel
//! (`Config::consume_fuel`, `Store::set_fuel`/`get_fuel`, counted by
//! compiled code): they stop loops, recursion and tail-call cycles with a
//! trap naming the cause, count exactly, see the host's changes made during
//! a call, and do nothing when not configured.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use cranewasm::*;

const GUEST: &str = r#"(module
    (import "host" "tick" (func $tick))
    (func (export "spin") (loop br 0))
    (func $cycle (return_call $cycle))
    (func (export "cycle") (return_call $cycle))
    (func $rec (param i32) (result i32)
        (if (result i32) (local.get 0)
            (then (i32.add (i32.const 1) (call $rec (i32.sub (local.get 0) (i32.const 1)))))
            (else (i32.const 0))))
    (func (export "rec") (param i32) (result i32) (call $rec (local.get 0)))
    (func (export "three") (result i32) i32.const 1 i32.const 2 i32.add)
    (func (export "count") (param i32) (result i32)
        (local i32)
        (block (loop
            (br_if 1 (i32.ge_u (local.get 1) (local.get 0)))
            (local.set 1 (i32.add (local.get 1) (i32.const 1)))
            (br 0)))
        (local.get 1))
    (func (export "ticks") (param i32)
        (loop (call $tick)
              (local.set 0 (i32.sub (local.get 0) (i32.const 1)))
              (br_if 0 (local.get 0)))))"#;

fn engine(epochs: bool, fuel: bool) -> Engine {
    let mut config = Config::new();
    config.epoch_interruption(epochs).consume_fuel(fuel);
    Engine::new(&config).unwrap()
}

/// The guest, with `tick` running `on_tick` on the store.
fn instantiate(
    engine: &Engine,
    on_tick: impl Fn(&mut Caller<'_, ()>) + Send + Sync + 'static,
) -> (Store<()>, Instance) {
    let mut store = Store::new(engine, ());
    let module = Module::new(engine, GUEST).unwrap();
    let tick = Func::new(&mut store, FuncType::new([], []), move |mut caller, _, _| {
        on_tick(&mut caller);
        Ok(())
    });
    let instance = Instance::new(&mut store, &module, &[tick.into()]).unwrap();
    (store, instance)
}

fn call(store: &mut Store<()>, instance: &Instance, name: &str, args: &[Val]) -> Result<Option<Val>> {
    let f = instance.get_func(&*store, name).unwrap();
    let mut results: Vec<Val> = f.ty(&*store).results().iter().map(|t| Val::default_for(*t)).collect();
    f.call(&mut *store, args, &mut results)?;
    Ok(results.pop())
}

fn trap_code(r: Result<Option<Val>>) -> Option<Trap> {
    match r {
        Err(Error::Trap(t)) => t.code(),
        other => panic!("expected a trap, got {other:?}"),
    }
}

/// Increments `engine`'s epoch every millisecond until the result is dropped.
fn ticker(engine: &Engine) -> impl Drop {
    struct Stop(Arc<AtomicBool>);
    impl Drop for Stop {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }
    let stop = Arc::new(AtomicBool::new(false));
    let (engine, flag) = (engine.clone(), stop.clone());
    std::thread::spawn(move || {
        while !flag.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(1));
            engine.increment_epoch();
        }
    });
    Stop(stop)
}

#[test]
fn an_epoch_deadline_stops_loops_and_tail_call_cycles() {
    let engine = engine(true, false);
    let (mut store, instance) = instantiate(&engine, |_| {});
    let _ticker = ticker(&engine);
    for name in ["spin", "cycle"] {
        store.set_epoch_deadline(5);
        let err = call(&mut store, &instance, name, &[]).unwrap_err();
        let trap = err.as_trap().expect("a trap");
        assert_eq!(trap.code(), Some(Trap::EpochDeadline), "{name}");
        assert_eq!(trap.message(), "epoch deadline reached");
    }
    // A store has no deadline until it sets one; the deadline is absolute,
    // so a passed one stops the next call at its first check.
    let mut fresh = Store::new(&engine, ());
    let module = Module::new(&engine, GUEST).unwrap();
    let tick = Func::new(&mut fresh, FuncType::new([], []), |_, _, _| Ok(()));
    let other = Instance::new(&mut fresh, &module, &[tick.into()]).unwrap();
    assert_eq!(call(&mut fresh, &other, "count", &[Val::I32(5_000_000)]).unwrap().unwrap().i32(), Some(5_000_000));
    fresh.set_epoch_deadline(0);
    assert_eq!(trap_code(call(&mut fresh, &other, "three", &[])), Some(Trap::EpochDeadline));
}

#[test]
fn a_host_function_can_move_the_deadline_during_the_call() {
    let engine = engine(true, false);
    // Each tick advances the epoch and pushes the deadline beyond it: the
    // loop finishes although the epoch passes its first deadline 200,000
    // times over.
    let (mut store, instance) = instantiate(&engine, |caller| {
        caller.engine().increment_epoch();
        caller.as_context_mut().set_epoch_deadline(2);
    });
    store.set_epoch_deadline(2);
    call(&mut store, &instance, "ticks", &[Val::I32(200_000)]).unwrap();
    assert!(engine.current_epoch() >= 200_000);
    // A host function that lets the deadline pass stops the call when it
    // returns.
    let (mut store, instance) = instantiate(&engine, |caller| {
        caller.engine().increment_epoch();
        caller.as_context_mut().set_epoch_deadline(0);
    });
    store.set_epoch_deadline(1_000_000);
    let err = call(&mut store, &instance, "ticks", &[Val::I32(200_000)]).unwrap_err();
    let trap = err.as_trap().unwrap();
    assert_eq!(trap.code(), Some(Trap::EpochDeadline));
    assert!(!trap.frames().is_empty(), "stopped in the loop, after the host call");
}

#[test]
fn without_epoch_interruption_the_epoch_is_not_checked() {
    let engine = engine(false, false);
    let (mut store, instance) = instantiate(&engine, |_| {});
    store.set_epoch_deadline(0);
    engine.increment_epoch();
    assert_eq!(call(&mut store, &instance, "count", &[Val::I32(1000)]).unwrap().unwrap().i32(), Some(1000));
}

#[test]
fn fuel_counts_operators_exactly() {
    let engine = engine(false, true);
    let (mut store, instance) = instantiate(&engine, |_| {});
    store.set_fuel(1000).unwrap();
    assert_eq!(store.get_fuel().unwrap(), 1000);
    // i32.const, i32.const, i32.add: 3 (`end` is free).
    call(&mut store, &instance, "three", &[]).unwrap();
    assert_eq!(store.get_fuel().unwrap(), 997);
    // A loop costs the same per iteration.
    let used = |store: &mut Store<()>, n: i32| {
        store.set_fuel(1_000_000).unwrap();
        call(store, &instance, "count", &[Val::I32(n)]).unwrap();
        1_000_000 - store.get_fuel().unwrap()
    };
    let (zero, one, ten) = (used(&mut store, 0), used(&mut store, 1), used(&mut store, 10));
    assert!(one > zero);
    assert_eq!(ten - zero, 10 * (one - zero), "{zero} {one} {ten}");
    // Calls count too: the callee's operators and the call itself.
    let (r0, r1, r5) = (
        {
            store.set_fuel(1_000_000).unwrap();
            call(&mut store, &instance, "rec", &[Val::I32(0)]).unwrap();
            1_000_000 - store.get_fuel().unwrap()
        },
        {
            store.set_fuel(1_000_000).unwrap();
            call(&mut store, &instance, "rec", &[Val::I32(1)]).unwrap();
            1_000_000 - store.get_fuel().unwrap()
        },
        {
            store.set_fuel(1_000_000).unwrap();
            call(&mut store, &instance, "rec", &[Val::I32(5)]).unwrap();
            1_000_000 - store.get_fuel().unwrap()
        },
    );
    assert!(r1 > r0);
    assert_eq!(r5 - r0, 5 * (r1 - r0));
}

#[test]
fn running_out_of_fuel_traps_and_refuelling_resumes() {
    let engine = engine(false, true);
    let (mut store, instance) = instantiate(&engine, |_| {});
    for name in ["spin", "cycle"] {
        store.set_fuel(100_000).unwrap();
        let err = call(&mut store, &instance, name, &[]).unwrap_err();
        let trap = err.as_trap().unwrap();
        assert_eq!(trap.code(), Some(Trap::OutOfFuel), "{name}");
        assert_eq!(trap.message(), "instruction limit exceeded");
        assert_eq!(store.get_fuel().unwrap(), 0);
    }
    // A new store starts with none.
    let (mut empty, other) = instantiate(&engine, |_| {});
    assert_eq!(trap_code(call(&mut empty, &other, "three", &[])), Some(Trap::OutOfFuel));
    // Enough for one loop and not the other.
    store.set_fuel(1_000).unwrap();
    assert_eq!(call(&mut store, &instance, "count", &[Val::I32(10)]).unwrap().unwrap().i32(), Some(10));
    store.set_fuel(1_000).unwrap();
    assert_eq!(trap_code(call(&mut store, &instance, "count", &[Val::I32(10_000)])), Some(Trap::OutOfFuel));
    // Deep recursion runs out too.
    store.set_fuel(1_000).unwrap();
    assert_eq!(trap_code(call(&mut store, &instance, "rec", &[Val::I32(10_000)])), Some(Trap::OutOfFuel));
    store.set_fuel(u64::MAX).unwrap();
    assert_eq!(call(&mut store, &instance, "rec", &[Val::I32(10_000)]).unwrap().unwrap().i32(), Some(10_000));
}

#[test]
fn host_functions_see_and_change_the_fuel() {
    let engine = engine(false, true);
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    // The host sees what the loop used so far, and refills it: the loop
    // never runs out although each call of `ticks` needs more than 1000.
    let (mut store, instance) = instantiate(&engine, move |caller| {
        let mut cx = caller.as_context_mut();
        log.lock().unwrap().push(cx.get_fuel().unwrap());
        cx.set_fuel(1000).unwrap();
    });
    store.set_fuel(1000).unwrap();
    call(&mut store, &instance, "ticks", &[Val::I32(500)]).unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 500);
    assert!(seen[0] < 1000);
    // Between two ticks the loop uses the same amount.
    assert!(seen[1..].iter().all(|f| *f == seen[1]), "{:?}", &seen[..5]);
}

#[test]
fn fuel_needs_the_switch() {
    let engine = engine(false, false);
    let mut store = Store::new(&engine, ());
    assert!(matches!(store.set_fuel(10), Err(Error::Usage(_))));
    assert!(matches!(store.get_fuel(), Err(Error::Usage(_))));
}

#[test]
fn epochs_and_fuel_together() {
    let engine = engine(true, true);
    let (mut store, instance) = instantiate(&engine, |_| {});
    let _ticker = ticker(&engine);
    store.set_fuel(u64::MAX).unwrap();
    store.set_epoch_deadline(3);
    assert_eq!(trap_code(call(&mut store, &instance, "spin", &[])), Some(Trap::EpochDeadline));
    store.set_fuel(50_000).unwrap();
    store.set_epoch_deadline(u64::MAX / 2);
    assert_eq!(trap_code(call(&mut store, &instance, "spin", &[])), Some(Trap::OutOfFuel));
    store.set_fuel(1000).unwrap();
    assert_eq!(call(&mut store, &instance, "three", &[]).unwrap().unwrap().i32(), Some(3));
}

/// Inlining (on by default) changes no count: inlined callees bring their
/// fuel code with them, yet every call uses the fuel it uses without
/// inlining, and with less fuel runs out at the same points.
#[test]
fn fuel_is_the_same_with_and_without_inlining() {
    let used = |inlining: bool| {
        let mut config = Config::new();
        config.consume_fuel(true).cranelift_inlining(inlining);
        let engine = Engine::new(&config).unwrap();
        let (mut store, instance) = instantiate(&engine, |_| {});
        let mut out = Vec::new();
        for (name, arg) in [("three", None), ("count", Some(10)), ("rec", Some(0)), ("rec", Some(1)), ("rec", Some(7))]
        {
            let args: Vec<Val> = arg.into_iter().map(Val::I32).collect();
            store.set_fuel(1_000_000).unwrap();
            call(&mut store, &instance, name, &args).unwrap();
            let used = 1_000_000 - store.get_fuel().unwrap();
            // With each smaller amount: whether it runs out.
            let runs_out: Vec<bool> = (0..used)
                .map(|fuel| {
                    store.set_fuel(fuel).unwrap();
                    match call(&mut store, &instance, name, &args) {
                        Ok(_) => false,
                        Err(Error::Trap(t)) if t.code() == Some(Trap::OutOfFuel) => true,
                        Err(e) => panic!("{name}: {e}"),
                    }
                })
                .collect();
            assert!(runs_out[0], "{name} runs out without fuel");
            out.push((name, used, runs_out));
        }
        out
    };
    assert_eq!(used(true), used(false));
}
