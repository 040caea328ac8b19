//! Exceptions at every boundary: caught in the throwing function and
//! across frames reached by `call`, `call_indirect`, `call_ref` and tail
//! calls, across instances, through host functions (which may throw their
//! own exceptions or pass on one they received), under lazy compilation;
//! uncaught ones reach the host with their tag and payload; traps are
//! never caught; deep throw chains and throws near stack exhaustion do not
//! crash. Each store stays usable afterwards.

use cranewasm::*;

/// A module whose `run(k, x)` throws tag `$e` with `x` through `k`
/// different paths, and catches it in a `try_table`, returning `x + 1`.
const THROWER: &str = r#"(module
    (tag $e (export "e") (param i32))
    (import "host" "call_back" (func $call_back (param i32)))
    (type $thrower (func (param i32)))
    (table $t funcref (elem $direct))
    (func $direct (param i32) (throw $e (local.get 0)))
    (func $tail (param i32) (return_call $direct (local.get 0)))
    (func $deep (param i32 i32)
        (if (i32.eqz (local.get 1)) (then (throw $e (local.get 0))))
        (call $deep (local.get 0) (i32.sub (local.get 1) (i32.const 1))))
    (elem declare func $direct)
    (func $through (param $k i32) (param $x i32)
        (block $out
            (block $via_host
                (block $ref
                    (block $tail
                        (block $indirect
                            (block $local
                                (br_table $local $indirect $tail $ref $via_host $out (local.get $k)))
                            (throw $e (local.get $x)))
                        (call_indirect $t (type $thrower) (local.get $x) (i32.const 0)) (return))
                    (call $tail (local.get $x)) (return))
                (call_ref $thrower (local.get $x) (ref.func $direct)) (return))
            (call $call_back (local.get $x)) (return))
        (call $deep (local.get $x) (i32.const 10000)))
    (func (export "run") (param $k i32) (param $x i32) (result i32)
        (block $caught (result i32)
            (try_table (catch $e $caught) (call $through (local.get $k) (local.get $x)))
            (i32.const -1) (return))
        (i32.add (i32.const 1)))
    (func (export "throw") (param i32) (throw $e (local.get 0)))
    (func (export "trap_not_caught") (result i32)
        (block $caught
            (try_table (catch_all $caught) unreachable))
        (i32.const 7)))"#;

fn run(store: &mut Store<()>, instance: &Instance, k: i32, x: i32) -> Result<i32> {
    let f = instance.get_func(&*store, "run").unwrap();
    let mut out = [Val::I32(0)];
    f.call(&mut *store, &[Val::I32(k), Val::I32(x)], &mut out)?;
    match out[0] {
        Val::I32(v) => Ok(v),
        _ => unreachable!(),
    }
}

/// An instance of `THROWER` whose host import calls its own `throw`
/// export back (host re-entry).
fn thrower(engine: &Engine, store: &mut Store<()>) -> Instance {
    let module = Module::new(engine, THROWER).unwrap();
    let slot: std::sync::Arc<std::sync::Mutex<Option<Func>>> = Default::default();
    let s2 = slot.clone();
    let call_back = Func::new(&mut *store, FuncType::new([ValType::I32], []), move |mut caller, params, _| {
        let f = s2.lock().unwrap().expect("set");
        // The exception comes back as an error; returning it passes it on.
        match f.call(&mut caller, params, &mut []) {
            Err(Error::Exception(t)) => Err(t),
            other => panic!("expected an exception, got {:?}", other.map(|_| ())),
        }
    });
    let instance = Instance::new(&mut *store, &module, &[call_back.into()]).unwrap();
    *slot.lock().unwrap() = Some(instance.get_func(&*store, "throw").unwrap());
    instance
}

fn every_path(config: &Config) {
    let engine = Engine::new(config).unwrap();
    let mut store = Store::new(&engine, ());
    let instance = thrower(&engine, &mut store);
    for k in 0..=5 {
        assert_eq!(run(&mut store, &instance, k, 41).unwrap(), 42, "path {k}");
    }
    // Traps are not exceptions: catch_all lets them through.
    let f = instance.get_func(&store, "trap_not_caught").unwrap();
    let err = f.call(&mut store, &[], &mut [Val::I32(0)]).unwrap_err();
    assert_eq!(err.as_trap().and_then(|t| t.code()), Some(Trap::UnreachableCodeReached), "{err}");
    // And the store goes on.
    assert_eq!(run(&mut store, &instance, 0, 1).unwrap(), 2);
}

#[test]
fn caught_through_every_kind_of_call() {
    every_path(&Config::new());
}

#[test]
fn caught_through_lazily_compiled_code() {
    let mut config = Config::new();
    config.lazy_compilation(true);
    every_path(&config);
}

#[test]
fn caught_without_inlining() {
    let mut config = Config::new();
    config.cranelift_inlining(false);
    every_path(&config);
}

#[test]
fn uncaught_exceptions_carry_tag_and_payload() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let instance = thrower(&engine, &mut store);
    let f = instance.get_func(&store, "throw").unwrap();
    let err = f.call(&mut store, &[Val::I32(5)], &mut []).unwrap_err();
    assert!(matches!(err, Error::Exception(_)), "{err}");
    assert_eq!(err.to_string(), "uncaught wasm exception");
    let exn = Exn::from_error(&store, &err).expect("an exception of this store");
    let tag = instance.get_export(&store, "e").and_then(Extern::into_tag).expect("the tag");
    assert_eq!(exn.tag(&store), tag);
    match exn.values(&store)[..] {
        [Val::I32(5)] => {}
        ref other => panic!("payload {other:?}"),
    }
}

/// A host function throws an exception of its own making, which wasm
/// catches; one of a tag wasm does not catch goes through to the host.
#[test]
fn host_functions_throw() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let tag_type = TagType::new(FuncType::new([ValType::I64], []));
    let tag = Tag::new(&mut store, &tag_type).unwrap();
    let other = Tag::new(&mut store, &tag_type).unwrap();
    let throws = Func::new(&mut store, FuncType::new([ValType::I32], []), move |mut caller, params, _| {
        let which = if matches!(params[0], Val::I32(0)) { tag } else { other };
        let exn = Exn::new(&mut caller, which, &[Val::I64(99)]).map_err(|e| TrapError::new(e.to_string()))?;
        Err(exn.into_trap())
    });
    let module = Module::new(
        &engine,
        r#"(module
            (import "host" "tag" (tag $t (param i64)))
            (import "host" "throws" (func $throws (param i32)))
            (func (export "f") (param i32) (result i64)
                (block $caught (result i64)
                    (try_table (catch $t $caught) (call $throws (local.get 0)))
                    (i64.const -1))))"#,
    )
    .unwrap();
    let instance = Instance::new(&mut store, &module, &[tag.into(), throws.into()]).unwrap();
    let f = instance.get_func(&store, "f").unwrap();
    let mut out = [Val::I64(0)];
    f.call(&mut store, &[Val::I32(0)], &mut out).unwrap();
    assert!(matches!(out[0], Val::I64(99)), "{:?}", out[0]);
    let err = f.call(&mut store, &[Val::I32(1)], &mut out).unwrap_err();
    let exn = Exn::from_error(&store, &err).expect("uncaught");
    assert_eq!(exn.tag(&store), other);
}

/// An exception thrown in one instance is caught in another that imports
/// the tag; one of a tag it does not know is caught by `catch_all_ref` and
/// thrown again with `throw_ref`.
#[test]
fn across_instances() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let a = Module::new(
        &engine,
        r#"(module
            (tag $e (export "e") (param i32 f64))
            (tag $private (param i32))
            (func (export "throw") (param i32)
                (if (local.get 0) (then (throw $private (i32.const 3))))
                (throw $e (i32.const 7) (f64.const 2.5))))"#,
    )
    .unwrap();
    let a = Instance::new(&mut store, &a, &[]).unwrap();
    let b = Module::new(
        &engine,
        r#"(module
            (import "a" "e" (tag $e (param i32 f64)))
            (import "a" "throw" (func $throw (param i32)))
            (func (export "catch") (param i32) (result i32)
                (block $other (result exnref)
                    (block $caught (result i32 f64)
                        (try_table (catch $e $caught) (catch_all_ref $other) (call $throw (local.get 0)))
                        (return (i32.const -1)))
                    (drop) (return))
                (throw_ref)))"#,
    )
    .unwrap();
    let e = a.get_export(&store, "e").unwrap();
    let throw = a.get_export(&store, "throw").unwrap();
    let b = Instance::new(&mut store, &b, &[e, throw]).unwrap();
    let f = b.get_func(&store, "catch").unwrap();
    let mut out = [Val::I32(0)];
    f.call(&mut store, &[Val::I32(0)], &mut out).unwrap();
    assert!(matches!(out[0], Val::I32(7)));
    let err = f.call(&mut store, &[Val::I32(1)], &mut out).unwrap_err();
    let exn = Exn::from_error(&store, &err).expect("rethrown");
    assert!(matches!(exn.values(&store)[..], [Val::I32(3)]));
}

/// Throwing while the stack is nearly exhausted, and exhaustion inside a
/// `try_table`: a trap, never caught, never a crash.
#[test]
fn near_stack_exhaustion() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let module = Module::new(
        &engine,
        r#"(module
            (tag $e)
            (func $down (param i32)
                (if (i32.eqz (local.get 0)) (then (throw $e)))
                (call $down (i32.sub (local.get 0) (i32.const 1))))
            (func $forever (call $forever))
            (func (export "deep") (param i32) (result i32)
                (block $caught
                    (try_table (catch $e $caught) (call $down (local.get 0)))
                    (return (i32.const 0)))
                (i32.const 1))
            (func (export "exhaust") (result i32)
                (block $caught
                    (try_table (catch_all $caught) (call $forever)))
                (i32.const 1)))"#,
    )
    .unwrap();
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let deep = instance.get_func(&store, "deep").unwrap();
    let mut out = [Val::I32(0)];
    // Deep enough to come close to the limit, and past it.
    for depth in [10_000, 20_000, 1_000_000] {
        match deep.call(&mut store, &[Val::I32(depth)], &mut out) {
            Ok(()) => assert!(matches!(out[0], Val::I32(1))),
            Err(e) => assert_eq!(e.as_trap().and_then(|t| t.code()), Some(Trap::StackOverflow), "{e}"),
        }
    }
    let exhaust = instance.get_func(&store, "exhaust").unwrap();
    let err = exhaust.call(&mut store, &[], &mut out).unwrap_err();
    assert_eq!(err.as_trap().and_then(|t| t.code()), Some(Trap::StackOverflow), "{err}");
    deep.call(&mut store, &[Val::I32(3)], &mut out).unwrap();
    assert!(matches!(out[0], Val::I32(1)));
}

/// Small callees are inlined at calls inside `try_table` (and legacy
/// `try`) too, so their throws run in the handler's own frame: each must
/// still reach the right handler, with inlining on and off alike. The
/// callees throw directly, through `throw_ref`, past a `try_table` of
/// their own that does not match, from a further call, and through a
/// legacy `delegate`; the caller's handler sees each, and nothing else.
#[test]
fn throws_in_callees_inlined_into_try_table() {
    const WAT: &str = r#"(module
        (tag $e (param i32))
        (tag $other)
        (func $maybe_throw (param i32) (result i32)
            (if (i32.gt_s (local.get 0) (i32.const 10)) (then (throw $e (local.get 0))))
            (i32.add (local.get 0) (i32.const 1)))
        (func $rethrow_ref (param i32) (result i32)
            (throw_ref (block $h (result exnref)
                (try_table (catch_all_ref $h) (throw $e (local.get 0)))
                (unreachable))))
        (func $own_handler (param i32) (result i32)
            (block $mine
                (try_table (catch $other $mine) (drop (call $maybe_throw (local.get 0)))))
            (i32.const -2))
        (func $deeper (param i32)
            (loop $l (br_if $l (i32.eqz (local.get 0))))
            (throw $e (i32.mul (local.get 0) (i32.const 3))))
        (func $calls_deeper (param i32) (result i32)
            (call $deeper (local.get 0))
            (i32.const -3))
        (func $legacy (param i32) (result i32)
            try (result i32)
                try (result i32)
                    local.get 0
                    call $maybe_throw
                delegate 0
            catch $other
                i32.const -4
            end)
        (func $run (param $which i32) (param $x i32) (result i32)
            (block $out (result i32)
                (block $caught (result i32)
                    (try_table (result i32) (catch $e $caught)
                        (block $e (block $d (block $c (block $b (block $a
                            (br_table $a $b $c $d $e (local.get $which)))
                            (br $out (call $maybe_throw (local.get $x))))
                            (br $out (call $rethrow_ref (local.get $x))))
                            (br $out (call $own_handler (local.get $x))))
                            (br $out (call $calls_deeper (local.get $x))))
                        (br $out (call $legacy (local.get $x)))))
                (i32.add (i32.const 1000))))
        (func (export "run") (param i32 i32) (result i32)
            (call $run (local.get 0) (local.get 1))))"#;
    // (which, x, result): thrown ones come back as 1000 + payload.
    let cases =
        [(0, 3, 4), (0, 11, 1011), (1, 5, 1005), (2, 3, -2), (2, 12, 1012), (3, 7, 1021), (4, 2, 3), (4, 20, 1020)];
    // A callee that always throws, inlined: the handler then uses values
    // (the VMContext, the builtins table) that the caller keeps in
    // registers across the throw, which the throw must not clobber (the
    // throw is a `try_call` of the runtime; see `func_env::call`).
    const ALWAYS: &str = r#"(module
        (tag $e (param i32 f64))
        (func $deep (param i32) (throw $e (local.get 0) (f64.const 2.5)))
        (func (export "caught") (param i32) (result i32)
            (block $h (result i32 f64)
                (try_table (catch $e $h) (call $deep (local.get 0)))
                (unreachable))
            (drop)))"#;
    for inlining in [true, false] {
        let mut config = Config::new();
        config.cranelift_inlining(inlining);
        let engine = Engine::new(&config).unwrap();
        let mut store = Store::new(&engine, ());
        let always = Instance::new(&mut store, &Module::new(&engine, ALWAYS).unwrap(), &[]).unwrap();
        let caught = always.get_func(&store, "caught").unwrap().typed::<i32, i32>(&store).unwrap();
        for x in [9, -1, 0] {
            assert_eq!(caught.call(&mut store, x).unwrap(), x, "inlining {inlining}");
        }
        let module = Module::new(&engine, WAT).unwrap();
        let instance = Instance::new(&mut store, &module, &[]).unwrap();
        let run = instance.get_func(&store, "run").unwrap().typed::<(i32, i32), i32>(&store).unwrap();
        for (which, x, expected) in cases {
            let got = run.call(&mut store, (which, x)).unwrap();
            assert_eq!(got, expected, "inlining {inlining}, case {which} with {x}");
        }
    }
}

/// The legacy instructions, as clang emits them: `try`/`catch`/
/// `catch_all`/`rethrow`/`delegate`.
#[test]
fn legacy_instructions() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let module = Module::new(
        &engine,
        r#"(module
            (tag $e (param i32))
            (func $throw (param i32) (throw $e (local.get 0)))
            (func (export "catch") (param i32) (result i32)
                try (result i32)
                    local.get 0
                    call $throw
                    i32.const -1
                catch $e
                    i32.const 100
                    i32.add
                end)
            (func (export "rethrow") (param i32) (result i32)
                try (result i32)
                    try
                        local.get 0
                        call $throw
                    catch_all
                        rethrow 0
                    end
                    i32.const -1
                catch $e
                end)
            (func (export "delegate") (param i32) (result i32)
                try $outer (result i32)
                    try
                        local.get 0
                        call $throw
                    delegate $outer
                    i32.const -1
                catch $e
                    i32.const 1
                    i32.add
                end))"#,
    )
    .unwrap();
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    for (name, expected) in [("catch", 105), ("rethrow", 5), ("delegate", 6)] {
        let f = instance.get_func(&store, name).unwrap();
        let mut out = [Val::I32(0)];
        f.call(&mut store, &[Val::I32(5)], &mut out).unwrap();
        assert!(matches!(out[0], Val::I32(v) if v == expected), "{name}: {:?}", out[0]);
    }
    let mut config = Config::new();
    config.wasm_legacy_exceptions(false);
    let strict = Engine::new(&config).unwrap();
    let err = Module::new(&strict, "(module (func try catch_all end))").map(|_| ()).unwrap_err();
    assert!(matches!(err, Error::Invalid { .. }), "{err}");
}

/// Rust programs built with `panic=unwind` (legacy and exnref builds of
/// `tests/rust-unwind`, which `tests/rust-unwind.sh` makes and names in
/// `RUST_UNWIND_WASM`, separated by `:`) run through the Rust API: each
/// panics inside `catch_unwind` twice, recovers, prints, and exits 0.
#[test]
#[ignore = "run by tests/rust-unwind.sh, which builds the programs first"]
fn rust_panic_unwind_programs() {
    let paths = std::env::var("RUST_UNWIND_WASM").expect("RUST_UNWIND_WASM names the programs to run");
    for path in paths.split(':') {
        let wasm = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let engine = Engine::default();
        let module = Module::new(&engine, &wasm).unwrap();
        let out = wasi::WritePipe::new();
        let mut store = Store::new(&engine, wasi::WasiCtx::builder().stdout(out.clone()).build().unwrap());
        let mut linker = Linker::new(store.engine());
        linker.define_wasi(&mut store, |ctx: &mut wasi::WasiCtx| ctx).unwrap();
        // LLVM's legacy exceptions import their tag; nothing else defines it.
        for import in module.imports() {
            if let ExternType::Tag(ty) = &import.ty {
                let tag = Tag::new(&mut store, ty).unwrap();
                linker.define(&store, &import.module, &import.name, tag).unwrap();
            }
        }
        let instance = linker.instantiate(&mut store, &module).unwrap();
        assert_eq!(wasi::start(&mut store, &instance).unwrap(), 0, "{path}");
        let text = String::from_utf8(out.contents()).unwrap();
        assert!(text.contains("recovered from x") && text.ends_with("recovered 2 times\n"), "{path}: {text}");
    }
}

/// An interrupt stops a guest that throws and catches in a loop: the
/// trap is not caught by its `catch_all`, and the store throws and catches
/// normally afterwards.
#[test]
fn interrupts_stop_throwing_loops() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let module = Module::new(
        &engine,
        r#"(module
            (tag $e (param i32))
            (func $throw (param i32) (throw $e (local.get 0)))
            (func (export "spin") (param $n i32) (result i32)
                (local $caught i32)
                (loop $l
                    (block $c (result i32)
                        (try_table (catch $e $c) (catch_all 1) (call $throw (local.get $n)))
                        (i32.const 0))
                    (local.set $caught (i32.add (local.get $caught) (i32.const 1)))
                    (drop)
                    (br_if $l (i32.or (i32.eqz (local.get $n))
                                      (local.tee $n (i32.sub (local.get $n) (i32.const 1))))))
                (local.get $caught)))"#,
    )
    .unwrap();
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let spin = instance.get_func(&store, "spin").unwrap();
    let handle = store.interrupt_handle();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(100));
        handle.interrupt();
    });
    // From 0 the count wraps: some 2^32 throws, far longer than the wait.
    let err = spin.call(&mut store, &[Val::I32(0)], &mut [Val::I32(0)]).unwrap_err();
    stopper.join().unwrap();
    assert_eq!(err.as_trap().and_then(|t| t.code()), Some(Trap::Interrupt), "{err}");
    let mut out = [Val::I32(0)];
    spin.call(&mut store, &[Val::I32(5)], &mut out).unwrap();
    assert!(matches!(out[0], Val::I32(5)), "{:?}", out[0]);
}
