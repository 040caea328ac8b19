//! Calls from any thread: a store moves between threads between calls, and
//! nothing thread-local (stack limits, the signal stack, the trap landing
//! pad) is left behind; a store claimed by one thread refuses another
//! (what the C layer relies on, since C callers have no `&mut`).

use std::sync::{mpsc, Arc, Barrier};

use cranewasm::*;

const MODULE: &str = r#"(module
    (import "host" "check" (func $check (param i32) (result i32)))
    (memory 1)
    (func $deep (export "deep") (param i32) (result i32)
        (if (result i32) (i32.eqz (local.get 0)) (then (i32.const 0))
            (else (i32.add (i32.const 1) (call $deep (i32.sub (local.get 0) (i32.const 1)))))))
    (func (export "run") (param i32) (result i32) (call $check (local.get 0)))
    (func (export "oob") (result i32) (i32.load (i32.const 65536)))
    (func (export "unreachable") (unreachable)))"#;

/// The host function: returns its argument, or traps for -1.
fn store_with_instance(engine: &Engine) -> (Store<u32>, Instance) {
    let module = Module::new(engine, MODULE).unwrap();
    let mut store = Store::new(engine, 0u32);
    let check = Func::wrap(&mut store, |mut caller: Caller<'_, u32>, x: i32| -> std::result::Result<i32, TrapError> {
        *caller.data_mut() += 1;
        if x == -1 {
            return Err(TrapError::new("host said no"));
        }
        Ok(x)
    });
    let instance = Instance::new(&mut store, &module, &[check.into()]).unwrap();
    (store, instance)
}

/// Every kind of call and trap, on whichever thread runs it.
fn exercise(store: &mut Store<u32>, instance: Instance) {
    let run = instance.get_func(&*store, "run").unwrap().typed::<i32, i32>(&*store).unwrap();
    assert_eq!(run.call(&mut *store, 7).unwrap(), 7);
    assert_eq!(run.call(&mut *store, -1).unwrap_err().message(), "host said no");
    let oob = instance.get_func(&*store, "oob").unwrap().typed::<(), i32>(&*store).unwrap();
    assert_eq!(oob.call(&mut *store, ()).unwrap_err().code(), Some(Trap::MemoryOutOfBounds));
    let unreachable = instance.get_func(&*store, "unreachable").unwrap().typed::<(), ()>(&*store).unwrap();
    assert_eq!(unreachable.call(&mut *store, ()).unwrap_err().code(), Some(Trap::UnreachableCodeReached));
    let deep = instance.get_func(&*store, "deep").unwrap().typed::<i32, i32>(&*store).unwrap();
    assert_eq!(deep.call(&mut *store, 1000).unwrap(), 1000);
    // The limit comes from the thread running the call, not from the one
    // where the store was made or last used.
    assert_eq!(deep.call(&mut *store, 10_000_000).unwrap_err().code(), Some(Trap::StackOverflow));
    assert_eq!(deep.call(&mut *store, 1000).unwrap(), 1000, "usable after exhausting the stack");
}

#[test]
fn a_store_moves_between_threads_between_calls() {
    let engine = Engine::default();
    let (mut store, instance) = store_with_instance(&engine);
    exercise(&mut store, instance);
    // Hand the store along a chain of threads, each with its own stack
    // size (so a limit remembered from another thread would be wrong),
    // while another store runs on other threads at the same time.
    let busy = std::thread::spawn({
        let engine = engine.clone();
        move || {
            let (mut other, instance) = store_with_instance(&engine);
            for _ in 0..20 {
                exercise(&mut other, instance);
            }
        }
    });
    for stack in [256 << 10, 8 << 20, 1 << 20, 4 << 20] {
        store = std::thread::Builder::new()
            .stack_size(stack)
            .spawn(move || {
                exercise(&mut store, instance);
                store
            })
            .unwrap()
            .join()
            .unwrap();
    }
    exercise(&mut store, instance);
    busy.join().unwrap();
    assert_eq!(*store.data(), 12, "every host call counted, on whichever thread");
}

#[test]
fn a_claimed_store_refuses_other_threads() {
    let engine = Engine::default();
    let (mut store, instance) = store_with_instance(&engine);
    let claim = store.claim();
    assert!(!claim.is_claimed());

    // The owner may claim again (a host callback re-entering).
    let outer = claim.enter().unwrap();
    let inner = claim.enter().unwrap();
    assert!(claim.is_claimed());

    // Another thread can neither claim it nor run wasm on it: the store is
    // handed to that thread while the claim stays here.
    let (tx, rx) = mpsc::channel();
    let other = std::thread::spawn({
        let claim = claim.clone();
        move || {
            assert!(matches!(claim.enter(), Err(Error::StoreBusy)));
            let run = instance.get_func(&store, "run").unwrap().typed::<i32, i32>(&store).unwrap();
            let trap = run.call(&mut store, 5).unwrap_err();
            assert_eq!(trap.message(), "store is in use by another thread");
            tx.send(()).unwrap();
            store
        }
    });
    rx.recv().unwrap();
    let mut store = other.join().unwrap();
    assert_eq!(*store.data(), 0, "the refused call never ran");

    drop(inner);
    assert!(claim.is_claimed(), "still held once");
    drop(outer);
    assert!(!claim.is_claimed());

    // Free again: any thread may claim it, one at a time.
    let start = Arc::new(Barrier::new(2));
    let winners: Vec<_> = (0..2)
        .map(|_| {
            let (claim, start) = (claim.clone(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                let got = claim.enter();
                let won = got.is_ok();
                // Hold it until both have tried.
                std::thread::sleep(std::time::Duration::from_millis(50));
                drop(got);
                won
            })
        })
        .collect();
    let won: Vec<bool> = winners.into_iter().map(|t| t.join().unwrap()).collect();
    assert_eq!(won.iter().filter(|w| **w).count(), 1, "exactly one thread got the store: {won:?}");

    // Claimed by this thread, calls work as usual.
    let _guard = claim.enter().unwrap();
    exercise(&mut store, instance);
}
