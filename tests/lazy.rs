//! Lazy compilation (`Config::lazy_compilation`): the same results as
//! eager compilation, only called functions compiled, calls through every
//! kind of reference reaching the stubs, traps and backtraces from lazily
//! compiled code, many threads compiling one function at once, compiling
//! deep in a recursion, invalid modules refused at load, and serialising.

use std::sync::{Arc, Barrier};

use cranewasm::*;

fn typed<P: WasmList, R: WasmList>(instance: &Instance, store: impl AsContext, name: &str) -> TypedFunc<P, R> {
    let f = instance.get_func(&store, name).unwrap_or_else(|| panic!("no export {name}"));
    f.typed(&store).unwrap()
}

fn engine(lazy: bool) -> Engine {
    let mut config = Config::new();
    config.lazy_compilation(lazy);
    Engine::new(&config).unwrap()
}

/// Arguments in every register the calling convention uses and on the
/// stack (more than six integers, more than eight floats), results in
/// several registers, recursion, loops over memory, a `br_table`, indirect
/// and tail calls.
const KERNELS: &str = r#"(module
    (type $bin (func (param i32 i32) (result i32)))
    (memory 1)
    (table funcref (elem $add $sub $mul))
    (func $fib (export "fib") (param i32) (result i32)
        (if (result i32) (i32.lt_u (local.get 0) (i32.const 2))
            (then (local.get 0))
            (else (i32.add (call $fib (i32.sub (local.get 0) (i32.const 1)))
                           (call $fib (i32.sub (local.get 0) (i32.const 2)))))))
    (func $add (type $bin) (i32.add (local.get 0) (local.get 1)))
    (func $sub (type $bin) (i32.sub (local.get 0) (local.get 1)))
    (func $mul (type $bin) (i32.mul (local.get 0) (local.get 1)))
    (func (export "dispatch") (param $n i32) (result i32) (local $acc i32)
        (loop $l
            (local.set $acc (call_indirect (type $bin) (local.get $acc) (local.get $n)
                (i32.rem_u (local.get $n) (i32.const 3))))
            (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))
        (local.get $acc))
    (func $many (export "many")
        (param i32 i64 i32 i64 i32 i64 i32 i64 f32 f64 f32 f64 f32 f64 f32 f64 f32 f64 v128)
        (result i64 f64 i32)
        (i64.add (i64.add (i64.extend_i32_s (local.get 0)) (local.get 1))
                 (i64.add (local.get 7) (i64.extend_i32_s (local.get 6))))
        (f64.add (f64.promote_f32 (local.get 16)) (f64.add (local.get 17) (local.get 9)))
        (i32.add (i32x4.extract_lane 3 (local.get 18)) (local.get 4)))
    (func (export "call_many") (result i64 f64 i32)
        (return_call $many (i32.const 1) (i64.const 2) (i32.const 3) (i64.const 4) (i32.const 5) (i64.const 6)
            (i32.const 7) (i64.const 8) (f32.const 1.5) (f64.const 2.5) (f32.const 3.5) (f64.const 4.5)
            (f32.const 5.5) (f64.const 6.5) (f32.const 7.5) (f64.const 8.5) (f32.const 9.5) (f64.const 10.5)
            (v128.const i32x4 1 2 3 40)))
    (func (export "checksum") (param $n i32) (result i32) (local $i i32) (local $h i32)
        (loop $fill
            (i32.store8 (local.get $i) (i32.mul (local.get $i) (i32.const 31)))
            (br_if $fill (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
        (local.set $i (i32.const 0))
        (loop $sum
            (local.set $h (i32.xor (i32.mul (local.get $h) (i32.const 16777619)) (i32.load8_u (local.get $i))))
            (br_if $sum (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
        (local.get $h))
    (func (export "classify") (param i32) (result i32)
        (block $c (block $b (block $a
            (br_table $a $b $c (local.get 0)))
            (return (i32.const 10)))
            (return (i32.const 20)))
        (i32.const 30)))"#;

/// Every export of [`KERNELS`] called with a few arguments, as text.
fn run_kernels(engine: &Engine) -> Vec<String> {
    let module = Module::new(engine, KERNELS).unwrap();
    let mut store = Store::new(engine, ());
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let mut out = Vec::new();
    for (name, arg) in [("fib", 20), ("dispatch", 1000), ("checksum", 60000), ("classify", 0), ("classify", 2)] {
        let f = typed::<i32, i32>(&instance, &store, name);
        out.push(format!("{name}({arg}) = {}", f.call(&mut store, arg).unwrap()));
    }
    let many = typed::<(), (i64, f64, i32)>(&instance, &store, "call_many");
    out.push(format!("call_many = {:?}", many.call(&mut store, ()).unwrap()));
    out
}

#[test]
fn results_match_eager_compilation() {
    let eager = run_kernels(&engine(false));
    let lazy = run_kernels(&engine(true));
    assert_eq!(lazy, eager);
    assert!(eager.contains(&"fib(20) = 6765".to_string()), "{eager:?}");
    assert!(eager.contains(&"call_many = (18, 22.5, 45)".to_string()), "{eager:?}");
}

#[test]
fn only_called_functions_are_compiled() {
    let engine = engine(true);
    let module = Module::new(&engine, KERNELS).unwrap();
    assert_eq!(module.lazily_compiled_functions(), Some(0));
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    assert_eq!(module.lazily_compiled_functions(), Some(0));
    let fib = typed::<i32, i32>(&instance, &store, "fib");
    assert_eq!(fib.call(&mut store, 10).unwrap(), 55);
    assert_eq!(module.lazily_compiled_functions(), Some(1));
    // `dispatch` reaches add, sub and mul through the table.
    let dispatch = typed::<i32, i32>(&instance, &store, "dispatch");
    dispatch.call(&mut store, 5).unwrap();
    assert_eq!(module.lazily_compiled_functions(), Some(5));
    // A second instance of the module shares the compiled code.
    let mut store2 = Store::new(&engine, ());
    let instance2 = Instance::new(&mut store2, &module, &[]).unwrap();
    let fib2 = typed::<i32, i32>(&instance2, &store2, "fib");
    assert_eq!(fib2.call(&mut store2, 15).unwrap(), 610);
    assert_eq!(module.lazily_compiled_functions(), Some(5));
    assert_eq!(Module::new(&self::engine(false), KERNELS).unwrap().lazily_compiled_functions(), None);
}

#[test]
fn calls_through_imports_tables_and_funcrefs_reach_the_stubs() {
    let engine = engine(true);
    let mut store = Store::new(&engine, ());
    let a = Module::new(
        &engine,
        r#"(module
            (table (export "t") 2 funcref)
            (elem (i32.const 0) $seven $double)
            (func $seven (export "seven") (result i32) (i32.const 7))
            (func $double (param i32) (result i32) (i32.mul (local.get 0) (i32.const 2)))
            (func (export "ref") (result funcref) (ref.func $double)))"#,
    )
    .unwrap();
    let a_inst = Instance::new(&mut store, &a, &[]).unwrap();
    let b = Module::new(
        &engine,
        r#"(module
            (import "a" "seven" (func $seven (result i32)))
            (import "a" "t" (table 2 funcref))
            (type $un (func (param i32) (result i32)))
            (func (export "run") (result i32)
                (call_indirect (type $un) (call $seven) (i32.const 1))))"#,
    )
    .unwrap();
    let seven = a_inst.get_export(&store, "seven").unwrap();
    let table = a_inst.get_export(&store, "t").unwrap();
    let b_inst = Instance::new(&mut store, &b, &[seven, table]).unwrap();
    assert_eq!(a.lazily_compiled_functions(), Some(0));
    let run = typed::<(), i32>(&b_inst, &store, "run");
    assert_eq!(run.call(&mut store, ()).unwrap(), 14);
    // `run` compiled in b; `seven` (an import of an export) and `double`
    // (through the table) in a.
    assert_eq!((a.lazily_compiled_functions(), b.lazily_compiled_functions()), (Some(2), Some(1)));
    // A funcref returned to the host and called from there.
    let r = a_inst.get_func(&store, "ref").unwrap();
    let mut out = [Val::I32(0)];
    r.call(&mut store, &[], &mut out).unwrap();
    let double = out[0].funcref().unwrap().unwrap();
    assert_eq!(double.typed::<i32, i32>(&store).unwrap().call(&mut store, 21).unwrap(), 42);
    assert_eq!(a.lazily_compiled_functions(), Some(3));
}

#[test]
fn traps_in_lazily_compiled_code_have_their_code_and_backtrace() {
    let wat = r#"(module
        (memory 1)
        (func $inner (param i32) (result i32) (i32.div_s (i32.const 1) (local.get 0)))
        (func $middle (param i32) (result i32) (call $inner (local.get 0)))
        (func (export "div") (param i32) (result i32) (call $middle (local.get 0)))
        (func (export "oob") (result i32) (i32.load (i32.const 70000)))
        (func (export "unreachable") (call $middle (i32.const 1)) drop unreachable))"#;
    let mut traps = Vec::new();
    for lazy in [false, true] {
        let engine = engine(lazy);
        let module = Module::new(&engine, wat).unwrap();
        let mut store = Store::new(&engine, ());
        let instance = Instance::new(&mut store, &module, &[]).unwrap();
        let div = typed::<i32, i32>(&instance, &store, "div");
        assert_eq!(div.call(&mut store, 1).unwrap(), 1);
        let mut seen = Vec::new();
        for (name, arg) in [("div", Some(0)), ("oob", None), ("unreachable", None)] {
            let f = instance.get_func(&store, name).unwrap();
            let args: Vec<Val> = arg.into_iter().map(Val::I32).collect();
            let mut results = vec![Val::I32(0); f.ty(&store).results().len()];
            let err = f.call(&mut store, &args, &mut results).unwrap_err();
            let Error::Trap(trap) = err else { panic!("{name}: not a trap: {err}") };
            let frames: Vec<(u32, usize)> = trap.frames().iter().map(|f| (f.func_index, f.module_offset)).collect();
            seen.push((trap.code(), frames));
        }
        assert_eq!(seen[0].0, Some(Trap::IntegerDivisionByZero));
        assert_eq!(seen[0].1.iter().map(|f| f.0).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(seen[1].0, Some(Trap::MemoryOutOfBounds));
        assert_eq!(seen[2].0, Some(Trap::UnreachableCodeReached));
        traps.push(seen);
    }
    // The same frames, down to the wasm offsets, as eager code.
    assert_eq!(traps[0], traps[1]);
}

#[test]
fn many_threads_compile_one_function_once() {
    let engine = engine(true);
    let module = Module::new(&engine, KERNELS).unwrap();
    let threads = 8;
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let (engine, module, barrier) = (engine.clone(), module.clone(), barrier.clone());
            std::thread::spawn(move || {
                let mut store = Store::new(&engine, ());
                let instance = Instance::new(&mut store, &module, &[]).unwrap();
                let fib = typed::<i32, i32>(&instance, &store, "fib");
                let dispatch = typed::<i32, i32>(&instance, &store, "dispatch");
                barrier.wait();
                (fib.call(&mut store, 22).unwrap(), dispatch.call(&mut store, 300).unwrap())
            })
        })
        .collect();
    let eager = {
        let engine = self::engine(false);
        let module = Module::new(&engine, KERNELS).unwrap();
        let mut store = Store::new(&engine, ());
        let instance = Instance::new(&mut store, &module, &[]).unwrap();
        let dispatch = typed::<i32, i32>(&instance, &store, "dispatch");
        dispatch.call(&mut store, 300).unwrap()
    };
    for h in handles {
        assert_eq!(h.join().unwrap(), (17711, eager));
    }
    assert_eq!(module.lazily_compiled_functions(), Some(5));
}

/// A recursion that calls a function not compiled yet at its deepest
/// point, on a thread whose stack (1 MiB) leaves too little room to
/// compile anywhere, so every function is compiled on a helper thread; and
/// one that never ends, which overflows as in eager mode.
#[test]
fn compiling_deep_in_a_recursion_and_overflowing() {
    let wat = r#"(module
        (func $leaf (param i32) (result i32) (i32.mul (local.get 0) (i32.const 3)))
        (func $down (export "down") (param i32) (result i32)
            (if (result i32) (local.get 0)
                (then (i32.add (i32.const 1) (call $down (i32.sub (local.get 0) (i32.const 1)))))
                (else (call $leaf (i32.const 5)))))
        (func $forever (export "forever") (param i32) (result i32)
            (i32.add (i32.const 1) (call $forever (local.get 0)))))"#;
    let engine = engine(true);
    let module = Module::new(&engine, wat).unwrap();
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            let mut store = Store::new(&engine, ());
            let instance = Instance::new(&mut store, &module, &[]).unwrap();
            let down = typed::<i32, i32>(&instance, &store, "down");
            assert_eq!(down.call(&mut store, 15000).unwrap(), 15015);
            let forever = typed::<i32, i32>(&instance, &store, "forever");
            let trap = forever.call(&mut store, 0).unwrap_err();
            assert_eq!(trap.code(), Some(Trap::StackOverflow));
            assert_eq!(down.call(&mut store, 10).unwrap(), 25);
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn invalid_modules_are_refused_at_load() {
    // The second function's body is invalid; nothing ever calls it.
    let wat = r#"(module
        (func (export "ok") (result i32) (i32.const 1))
        (func (result i32) (i64.const 1)))"#;
    for lazy in [false, true] {
        let err = Module::new(&engine(lazy), wat).unwrap_err();
        assert!(matches!(err, Error::Invalid { .. }), "lazy {lazy}: {err}");
    }
}

#[test]
fn serialising_a_lazy_module_compiles_it_in_full() {
    let engine = engine(true);
    let module = Module::new(&engine, KERNELS).unwrap();
    let bytes = module.serialize().unwrap();
    assert_eq!(module.lazily_compiled_functions(), Some(0));
    // SAFETY: bytes just made by `serialize` in this process.
    let loaded = unsafe { Module::deserialize(&engine, &bytes) }.unwrap();
    assert_eq!(loaded.lazily_compiled_functions(), None);
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &loaded, &[]).unwrap();
    let fib = typed::<i32, i32>(&instance, &store, "fib");
    assert_eq!(fib.call(&mut store, 20).unwrap(), 6765);
}

#[test]
fn an_interrupt_stops_lazily_compiled_code() {
    let engine = engine(true);
    let module = Module::new(&engine, r#"(module (func (export "spin") (loop br 0)))"#).unwrap();
    let mut store = Store::new(&engine, ());
    let handle = store.interrupt_handle();
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let spin = typed::<(), ()>(&instance, &store, "spin");
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(100));
        handle.interrupt();
    });
    let trap = spin.call(&mut store, ()).unwrap_err();
    stopper.join().unwrap();
    assert_eq!(trap.code(), Some(Trap::Interrupt));
}
