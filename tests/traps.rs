//! Every trap kind at every boundary: raised directly in the called
//! function, in a callee reached by `call`, `call_indirect`, `return_call`
//! and `return_call_indirect`, in wasm re-entered from a host function of
//! the same store, in another instance of the same store, in another store
//! entered from a host function, and in a start function. Each trap must
//! arrive with its own code (or a host trap's message), and every store
//! involved must stay usable afterwards.

use std::sync::{Arc, Mutex};

use cranewasm::*;

/// A way to trap, as the body of a function `$k` of type `[] -> []`.
struct Kind {
    name: &'static str,
    body: &'static str,
    /// The code the trap must carry; `None` for a host trap.
    code: Option<Trap>,
}

const KINDS: &[Kind] = &[
    Kind { name: "unreachable", body: "unreachable", code: Some(Trap::UnreachableCodeReached) },
    Kind {
        name: "memory out of bounds",
        body: "(drop (i32.load (i32.sub (global.get $pages_bytes) (i32.const 3))))",
        code: Some(Trap::MemoryOutOfBounds),
    },
    Kind {
        name: "table out of bounds",
        body: "(drop (table.get $t (i32.add (global.get $one) (i32.const 9))))",
        code: Some(Trap::TableOutOfBounds),
    },
    Kind {
        name: "undefined element",
        body: "(call_indirect $t (type $v) (i32.add (global.get $one) (i32.const 9)))",
        code: Some(Trap::UndefinedElement),
    },
    Kind {
        name: "uninitialized element",
        body: "(call_indirect $t (type $v) (global.get $one))",
        code: Some(Trap::IndirectCallToNull),
    },
    Kind {
        name: "indirect call type mismatch",
        body: "(call_indirect $t (type $v) (global.get $zero))",
        code: Some(Trap::BadSignature),
    },
    Kind {
        name: "integer overflow",
        body: "(drop (i64.div_s (i64.const 0x8000000000000000) (i64.extend_i32_s (i32.sub (global.get $zero) (global.get $one)))))",
        code: Some(Trap::IntegerOverflow),
    },
    Kind {
        name: "float to integer overflow",
        body: "(drop (i32.trunc_f64_u (f64.convert_i32_s (i32.sub (global.get $zero) (global.get $one)))))",
        code: Some(Trap::IntegerOverflow),
    },
    Kind {
        name: "integer divide by zero",
        body: "(drop (i32.rem_u (global.get $one) (global.get $zero)))",
        code: Some(Trap::IntegerDivisionByZero),
    },
    Kind {
        name: "invalid conversion to integer",
        body: "(drop (i64.trunc_f32_s (f32.div (f32.convert_i32_s (global.get $zero)) (f32.convert_i32_s (global.get $zero)))))",
        code: Some(Trap::BadConversionToInteger),
    },
    Kind { name: "call stack exhausted", body: "(call $recurse)", code: Some(Trap::StackOverflow) },
    Kind { name: "unlinked import", body: "(call $unlinked)", code: Some(Trap::UnlinkedFunction) },
    Kind { name: "host trap", body: "(call $fail)", code: None },
];

const HOST_MESSAGE: &str = "the host says no";

/// The module around a trapping body: `$k` and one export per boundary.
fn module_text(body: &str, start: bool) -> String {
    format!(
        r#"(module
            (type $v (func))
            (import "host" "fail" (func $fail))
            (import "host" "unlinked" (func $unlinked))
            (import "host" "reenter" (func $reenter))
            (memory 2)
            (table $t 3 funcref)
            (global $zero (mut i32) (i32.const 0))
            (global $one (mut i32) (i32.const 1))
            (global $pages_bytes (mut i32) (i32.const 131072))
            (elem (table $t) (i32.const 0) func $takes_i32)
            (elem (table $t) (i32.const 2) func $k)
            (func $takes_i32 (param i32))
            (func $recurse (call $recurse))
            (func $k (export "k") {body})
            (func (export "via_call") (call $k))
            (func (export "via_indirect") (call_indirect $t (type $v) (i32.const 2)))
            (func (export "via_tail") (return_call $k))
            (func (export "via_tail_indirect") (return_call_indirect $t (type $v) (i32.const 2)))
            (func (export "via_host") (call $reenter))
            (func (export "ok") (result i32) (i32.const 42))
            {})"#,
        if start { "(start $k)" } else { "" }
    )
}

/// Imports for the module: `reenter` calls the caller's own export `k`.
fn imports(store: &mut Store<()>) -> Vec<Extern> {
    let fail = Func::wrap(&mut *store, || -> Result<(), TrapError> { Err(TrapError::new(HOST_MESSAGE)) });
    let unlinked = Func::unlinked(&mut *store, FuncType::new([], []));
    let reenter = Func::wrap(&mut *store, |mut caller: Caller<'_, ()>| -> Result<(), TrapError> {
        let k = caller.get_export("k").and_then(Extern::into_func).expect("k is exported");
        k.typed::<(), ()>(&caller).expect("k is [] -> []").call(&mut caller, ())
    });
    vec![fail.into(), unlinked.into(), reenter.into()]
}

fn instantiate(store: &mut Store<()>, module: &Module) -> Instance {
    let imports = imports(store);
    Instance::new(store, module, &imports).expect("instantiates")
}

fn assert_trap(kind: &Kind, boundary: &str, trap: &TrapError) {
    let context = format!("{} via {boundary}", kind.name);
    assert_eq!(trap.code(), kind.code, "{context}: {trap}");
    match kind.code {
        Some(code) => assert_eq!(trap.message(), code.message(), "{context}"),
        None => assert_eq!(trap.message(), HOST_MESSAGE, "{context}"),
    }
}

fn call(store: &mut Store<()>, instance: Instance, name: &str) -> Result<(), TrapError> {
    let f = instance.get_func(&*store, name).unwrap_or_else(|| panic!("export {name}"));
    f.typed::<(), ()>(&*store).unwrap().call(store, ())
}

fn assert_usable(store: &mut Store<()>, instance: Instance) {
    let ok = instance.get_func(&*store, "ok").unwrap().typed::<(), i32>(&*store).unwrap();
    assert_eq!(ok.call(store, ()).unwrap(), 42, "the store runs code after the trap");
}

fn engines() -> Vec<Engine> {
    let mut explicit = Config::new();
    explicit.bounds_checks(BoundsChecks::Explicit);
    vec![Engine::default(), Engine::new(&explicit).unwrap()]
}

#[test]
fn every_kind_within_one_instance() {
    for engine in engines() {
        for kind in KINDS {
            let module = Module::new(&engine, module_text(kind.body, false)).unwrap();
            let mut store = Store::new(&engine, ());
            let instance = instantiate(&mut store, &module);
            for boundary in ["k", "via_call", "via_indirect", "via_tail", "via_tail_indirect", "via_host"] {
                let trap = call(&mut store, instance, boundary).expect_err(boundary);
                assert_trap(kind, boundary, &trap);
                // A wasm trap's backtrace starts in `$k` (function 5).
                if kind.code.is_some_and(|c| c != Trap::StackOverflow && c != Trap::UnlinkedFunction) {
                    assert_eq!(trap.frames().first().map(|f| f.func_index), Some(5), "{} via {boundary}", kind.name);
                }
                assert_usable(&mut store, instance);
            }
        }
    }
}

#[test]
fn every_kind_from_another_instance_of_the_store() {
    for engine in engines() {
        let caller = Module::new(
            &engine,
            r#"(module (import "callee" "k" (func $k)) (import "callee" "ok" (func $ok (result i32)))
                (func (export "run") (call $k)) (func (export "ok") (result i32) (call $ok)))"#,
        )
        .unwrap();
        for kind in KINDS {
            let module = Module::new(&engine, module_text(kind.body, false)).unwrap();
            let mut store = Store::new(&engine, ());
            let callee = instantiate(&mut store, &module);
            let k = callee.get_export(&store, "k").unwrap();
            let ok = callee.get_export(&store, "ok").unwrap();
            let outer = Instance::new(&mut store, &caller, &[k, ok]).unwrap();
            assert_trap(kind, "another instance", &call(&mut store, outer, "run").unwrap_err());
            assert_usable(&mut store, outer);
            assert_usable(&mut store, callee);
        }
    }
}

#[test]
fn every_kind_from_another_store_entered_by_a_host_function() {
    for engine in engines() {
        let outer_module = Module::new(
            &engine,
            r#"(module (import "other" "run" (func $run))
                (func (export "run") (call $run)) (func (export "ok") (result i32) (i32.const 42)))"#,
        )
        .unwrap();
        for kind in KINDS {
            let module = Module::new(&engine, module_text(kind.body, false)).unwrap();
            let mut inner_store = Store::new(&engine, ());
            let inner = instantiate(&mut inner_store, &module);
            let inner_store = Arc::new(Mutex::new(inner_store));
            let shared = inner_store.clone();
            let mut store = Store::new(&engine, ());
            // A host function of store A calls into store B, whose code
            // traps, and passes B's trap on as its own.
            let run = Func::wrap(&mut store, move || -> Result<(), TrapError> {
                let mut b = shared.lock().unwrap();
                call(&mut b, inner, "via_call")
            });
            let outer = Instance::new(&mut store, &outer_module, &[run.into()]).unwrap();
            assert_trap(kind, "another store", &call(&mut store, outer, "run").unwrap_err());
            assert_usable(&mut store, outer);
            assert_usable(&mut inner_store.lock().unwrap(), inner);
        }
    }
}

#[test]
fn every_kind_in_a_start_function() {
    for engine in engines() {
        for kind in KINDS {
            let module = Module::new(&engine, module_text(kind.body, true)).unwrap();
            let mut store = Store::new(&engine, ());
            let imports = imports(&mut store);
            let err = Instance::new(&mut store, &module, &imports).unwrap_err();
            assert_trap(kind, "a start function", err.as_trap().expect("a trap"));
            // The same store still instantiates and runs.
            let fine = Module::new(&engine, module_text("nop", false)).unwrap();
            let instance = instantiate(&mut store, &fine);
            assert_usable(&mut store, instance);
        }
    }
}

#[test]
fn a_host_that_handles_the_trap_lets_the_caller_continue() {
    let engine = Engine::default();
    let module = Module::new(
        &engine,
        r#"(module (import "host" "try" (func $try (result i32)))
            (func (export "k") unreachable)
            (func (export "run") (result i32) (i32.add (call $try) (i32.const 1))))"#,
    )
    .unwrap();
    let mut store = Store::new(&engine, ());
    // `try` re-enters wasm, sees the trap, and returns normally.
    let try_ = Func::wrap(&mut store, |mut caller: Caller<'_, ()>| -> i32 {
        let k = caller.get_export("k").and_then(Extern::into_func).unwrap();
        let trap = k.typed::<(), ()>(&caller).unwrap().call(&mut caller, ()).unwrap_err();
        assert_eq!(trap.code(), Some(Trap::UnreachableCodeReached));
        41
    });
    let instance = Instance::new(&mut store, &module, &[try_.into()]).unwrap();
    let run = instance.get_func(&store, "run").unwrap().typed::<(), i32>(&store).unwrap();
    for _ in 0..100 {
        assert_eq!(run.call(&mut store, ()).unwrap(), 42);
    }
}

#[test]
fn host_panics_cross_every_boundary_and_leave_stores_usable() {
    let engine = Engine::default();
    let module = Module::new(
        &engine,
        r#"(module (import "host" "panic" (func $panic)) (import "host" "reenter" (func $reenter))
            (func (export "k") (call $panic))
            (func (export "via_host") (call $reenter))
            (func (export "ok") (result i32) (i32.const 42)))"#,
    )
    .unwrap();
    let mut inner_store = Store::new(&engine, ());
    let panic_inner = Func::wrap(&mut inner_store, || -> () { panic!("inner panic") });
    let reenter_inner = Func::wrap(&mut inner_store, |mut caller: Caller<'_, ()>| -> Result<(), TrapError> {
        let k = caller.get_export("k").and_then(Extern::into_func).unwrap();
        k.typed::<(), ()>(&caller).unwrap().call(&mut caller, ())
    });
    let inner = Instance::new(&mut inner_store, &module, &[panic_inner.into(), reenter_inner.into()]).unwrap();
    let inner_store = Arc::new(Mutex::new(inner_store));
    let shared = inner_store.clone();
    let mut store = Store::new(&engine, ());
    // Store A's host function runs store B's wasm, which re-enters B's host,
    // which panics: the panic must come out of A's outermost call.
    let into_b = Func::wrap(&mut store, move || -> Result<(), TrapError> {
        let mut b = shared.lock().unwrap_or_else(|e| e.into_inner());
        call(&mut b, inner, "via_host")
    });
    let reenter = Func::wrap(&mut store, |mut caller: Caller<'_, ()>| -> Result<(), TrapError> {
        let k = caller.get_export("k").and_then(Extern::into_func).unwrap();
        k.typed::<(), ()>(&caller).unwrap().call(&mut caller, ())
    });
    let outer = Instance::new(&mut store, &module, &[into_b.into(), reenter.into()]).unwrap();
    for name in ["k", "via_host"] {
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| call(&mut store, outer, name)));
        let payload = result.expect_err("the panic comes out");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"inner panic"));
        assert_usable(&mut store, outer);
        let mut b = inner_store.lock().unwrap_or_else(|e| e.into_inner());
        assert_usable(&mut b, inner);
    }
}

/// Traps in code inlined into its caller (`Config::cranelift_inlining`,
/// on by default) carry the code and the backtrace they carry without
/// inlining: one frame per inlined call, each with its function and
/// offset, innermost first. Covered: a trap two inlining levels deep, a
/// host trap raised through a call inside inlined code, a trap deep in a
/// self-recursive function, and the first in a caller too large to be a
/// callee itself (the compiler translates such callers last, after their
/// callees are finished: `compile/inline.rs`).
#[test]
fn traps_in_inlined_code_keep_their_frames() {
    let padding = "(local.set 1 (i32.add (local.get 1) (i32.const 3)))".repeat(40);
    let wat = format!(
        r#"(module
        (import "host" "fail" (func $fail))
        (func $div (param i32 i32) (result i32) (i32.div_u (local.get 0) (local.get 1)))
        (func $mid (param i32) (result i32) (i32.add (call $div (i32.const 7) (local.get 0)) (i32.const 1)))
        (func (export "top") (param i32) (result i32) (i32.mul (call $mid (local.get 0)) (i32.const 3)))
        (func $to_host (param i32) (result i32) (call $fail) (local.get 0))
        (func (export "host") (param i32) (result i32) (call $to_host (local.get 0)))
        (func $down (export "down") (param i32) (result i32)
          (if (i32.eqz (local.get 0)) (then unreachable))
          (i32.add (call $down (i32.sub (local.get 0) (i32.const 1))) (i32.const 1)))
        (func (export "big") (param i32) (result i32) (local i32)
          {padding}
          (i32.add (call $mid (local.get 0)) (local.get 1))))"#
    );
    let run = |inlining: bool| {
        let mut config = Config::new();
        config.cranelift_inlining(inlining);
        let engine = Engine::new(&config).unwrap();
        let module = Module::new(&engine, &wat).unwrap();
        let mut store = Store::new(&engine, ());
        let fail = Func::wrap(&mut store, || -> Result<(), TrapError> { Err(TrapError::new(HOST_MESSAGE)) });
        let instance = Instance::new(&mut store, &module, &[fail.into()]).unwrap();
        let mut traps = Vec::new();
        for (name, arg) in [("top", 0), ("top", 2), ("host", 1), ("down", 5), ("big", 0), ("big", 2)] {
            let f = instance.get_func(&store, name).unwrap().typed::<i32, i32>(&store).unwrap();
            match f.call(&mut store, arg) {
                Ok(v) => traps.push((format!("{name}({arg}) = {v}"), Vec::new())),
                Err(trap) => traps.push((format!("{name}({arg}): {:?} {}", trap.code(), trap), trap.frames().to_vec())),
            }
        }
        traps
    };
    let (with, without) = (run(true), run(false));
    assert_eq!(with, without, "inlined code traps as the code it came from");
    let funcs = |i: usize| with[i].1.iter().map(|f| f.func_index).collect::<Vec<_>>();
    assert_eq!(with[0].0, "top(0): Some(IntegerDivisionByZero) integer divide by zero");
    assert_eq!(funcs(0), [1, 2, 3], "the division in $div, called by $mid, called by top");
    assert!(with[0].1.iter().all(|f| f.func_offset > 0 && f.module_offset > f.func_offset));
    assert_eq!(with[1].0, "top(2) = 12");
    assert_eq!(with[2].0, format!("host(1): None {HOST_MESSAGE}"));
    assert_eq!(funcs(2), [4, 5]);
    assert_eq!(funcs(3), [6; 6], "unreachable at depth 5, then the five calls of $down");
    assert_eq!(funcs(4), [1, 2, 7], "the division in $div, called by $mid, called by big");
    assert_eq!(with[5].0, "big(2) = 124");
}
