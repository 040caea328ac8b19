//! The Rust embedding API: calls both ways, typed functions, linking,
//! memories, tables, globals, references, traps and threads.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use cranewasm::*;

fn module(engine: &Engine, wat: &str) -> Module {
    Module::new(engine, wat).unwrap()
}

#[test]
fn typed_calls_and_wrapped_host_functions() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, 0u32);
    let m = module(
        &engine,
        r#"(module
            (import "env" "mul" (func $mul (param i64 i64) (result i64)))
            (import "env" "count" (func $count))
            (func (export "fma") (param i64 i64 i64) (result i64)
                call $count
                (i64.add (call $mul (local.get 0) (local.get 1)) (local.get 2)))
            (func (export "swap") (param f32 f64) (result f64 f32) local.get 1 local.get 0))"#,
    );
    let mul = Func::wrap(&mut store, |a: i64, b: i64| a * b);
    let count = Func::wrap(&mut store, |mut caller: Caller<'_, u32>| *caller.data_mut() += 1);
    let instance = Instance::new(&mut store, &m, &[mul.into(), count.into()]).unwrap();
    let fma = instance.get_func(&store, "fma").unwrap().typed::<(i64, i64, i64), i64>(&store).unwrap();
    assert_eq!(fma.call(&mut store, (6, 7, 8)).unwrap(), 50);
    assert_eq!(fma.call(&mut store, (-3, 3, 0)).unwrap(), -9);
    assert_eq!(*store.data(), 2);
    let swap = instance.get_func(&store, "swap").unwrap().typed::<(f32, f64), (f64, f32)>(&store).unwrap();
    assert_eq!(swap.call(&mut store, (1.5, -2.25)).unwrap(), (-2.25, 1.5));
    // A wrong static signature is refused up front.
    assert!(instance.get_func(&store, "swap").unwrap().typed::<(f32, f64), f64>(&store).is_err());
}

#[test]
fn untyped_call_checks_arity_and_types() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let m = module(&engine, r#"(module (func (export "id") (param i32) (result i32) local.get 0))"#);
    let instance = Instance::new(&mut store, &m, &[]).unwrap();
    let id = instance.get_func(&store, "id").unwrap();
    let mut out = [Val::I32(0)];
    assert!(matches!(id.call(&mut store, &[], &mut out), Err(Error::Usage(_))));
    assert!(matches!(id.call(&mut store, &[Val::I64(1)], &mut out), Err(Error::Usage(_))));
    assert!(matches!(id.call(&mut store, &[Val::I32(1)], &mut []), Err(Error::Usage(_))));
    id.call(&mut store, &[Val::I32(7)], &mut out).unwrap();
    assert_eq!(out[0].i32(), Some(7));
}

#[test]
fn host_traps_propagate_through_wasm_with_frames() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let m = module(
        &engine,
        r#"(module
            (import "env" "fail" (func $fail))
            (func $inner (call $fail))
            (func (export "outer") (call $inner))
            (func (export "ok") (result i32) i32.const 1))"#,
    );
    let fail = Func::wrap(&mut store, || -> Result<(), TrapError> { Err(TrapError::new("host says no")) });
    let instance = Instance::new(&mut store, &m, &[fail.into()]).unwrap();
    let outer = instance.get_func(&store, "outer").unwrap();
    let err = outer.call(&mut store, &[], &mut []).unwrap_err();
    let trap = err.as_trap().unwrap();
    assert_eq!(trap.message(), "host says no");
    assert_eq!(trap.code(), None);
    let indices: Vec<u32> = trap.frames().iter().map(|f| f.func_index).collect();
    assert_eq!(indices, [1, 2], "frames innermost first: $inner then outer");
    // The store stays usable after the trap.
    let ok = instance.get_func(&store, "ok").unwrap().typed::<(), i32>(&store).unwrap();
    assert_eq!(ok.call(&mut store, ()).unwrap(), 1);
}

#[test]
fn wasm_traps_carry_the_spec_wording_and_position() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let m = module(
        &engine,
        r#"(module
            (func $boom (export "boom") unreachable)
            (func (export "via") (call $boom))
            (func (export "conv") (param f64) (result i32) (i32.trunc_f64_s (local.get 0)))
            (table 2 funcref)
            (func (export "ci") (param i32) (call_indirect (local.get 0))))"#,
    );
    let instance = Instance::new(&mut store, &m, &[]).unwrap();
    let call = |store: &mut Store<()>, name: &str, args: &[Val]| {
        let f = instance.get_func(&*store, name).unwrap();
        let mut r = vec![Val::I32(0); f.ty(&*store).results().len()];
        f.call(store, args, &mut r).unwrap_err()
    };
    let e = call(&mut store, "via", &[]);
    let t = e.as_trap().unwrap();
    assert_eq!(t.message(), "unreachable");
    assert_eq!(t.frames().iter().map(|f| f.func_index).collect::<Vec<_>>(), [0, 1]);
    assert!(t.frames()[0].module_offset > 0);
    let e = call(&mut store, "conv", &[Val::f64(f64::NAN)]);
    assert_eq!(e.as_trap().unwrap().code(), Some(Trap::BadConversionToInteger));
    let e = call(&mut store, "conv", &[Val::f64(1e300)]);
    assert_eq!(e.as_trap().unwrap().code(), Some(Trap::IntegerOverflow));
    let e = call(&mut store, "ci", &[Val::I32(5)]);
    assert_eq!(e.as_trap().unwrap().message(), "undefined element");
    let e = call(&mut store, "ci", &[Val::I32(1)]);
    assert_eq!(e.as_trap().unwrap().message(), "uninitialized element");
}

#[test]
fn recursion_through_the_host_is_bounded() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let m = module(
        &engine,
        r#"(module
            (import "env" "back" (func $back (param i32) (result i32)))
            (func (export "down") (param i32) (result i32)
                (call $back (i32.add (local.get 0) (i32.const 1)))))"#,
    );
    // The host calls straight back into wasm: wasm → host → wasm → ...
    let slot: Arc<std::sync::OnceLock<Func>> = Arc::default();
    let s = slot.clone();
    let back = Func::wrap(&mut store, move |mut caller: Caller<'_, ()>, n: i32| -> Result<i32, TrapError> {
        let down = s.get().unwrap().typed::<i32, i32>(&caller).unwrap();
        down.call(&mut caller, n)
    });
    let instance = Instance::new(&mut store, &m, &[back.into()]).unwrap();
    let down = instance.get_func(&store, "down").unwrap();
    slot.set(down).unwrap();
    let err = down.typed::<i32, i32>(&store).unwrap().call(&mut store, 0).unwrap_err();
    assert_eq!(err.code(), Some(Trap::StackOverflow), "{err}");
    let again = down.typed::<i32, i32>(&store).unwrap().call(&mut store, 0).unwrap_err();
    assert_eq!(again.code(), Some(Trap::StackOverflow));
}

#[test]
fn memories_grow_and_stay_put() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let m = module(
        &engine,
        r#"(module (memory (export "mem") 1 3)
            (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0)))
            (func (export "peek") (param i32) (result i32) (i32.load8_u (local.get 0))))"#,
    );
    let instance = Instance::new(&mut store, &m, &[]).unwrap();
    let mem = instance.get_memory(&store, "mem").unwrap();
    let base = mem.data_ptr(&store);
    assert_eq!(mem.size(&store), 1);
    mem.write(&mut store, 100, &[42]).unwrap();
    let peek = instance.get_func(&store, "peek").unwrap().typed::<i32, i32>(&store).unwrap();
    assert_eq!(peek.call(&mut store, 100).unwrap(), 42);
    let grow = instance.get_func(&store, "grow").unwrap().typed::<i32, i32>(&store).unwrap();
    assert_eq!(grow.call(&mut store, 1).unwrap(), 1);
    assert_eq!(mem.grow(&mut store, 1).unwrap(), 2);
    assert_eq!(grow.call(&mut store, 1).unwrap(), -1, "past the maximum");
    assert!(matches!(mem.grow(&mut store, 1), Err(Error::MemoryGrow { delta: 1 })));
    assert_eq!(mem.data_size(&store), 3 * 65536);
    let mut buf = [0u8; 2];
    let past_end = mem.read(&store, 3 * 65536 - 1, &mut buf);
    assert!(matches!(past_end, Err(Error::MemoryAccess { offset, len: 2 }) if offset == 3 * 65536 - 1));
    assert!(matches!(mem.write(&mut store, usize::MAX, &buf), Err(Error::MemoryAccess { .. })));
    assert_eq!(mem.data_ptr(&store), base, "memory never moves");
    mem.data_mut(&mut store)[3 * 65536 - 1] = 7;
    assert_eq!(peek.call(&mut store, 3 * 65536 - 1).unwrap(), 7);
    assert_eq!(peek.call(&mut store, 3 * 65536).unwrap_err().code(), Some(Trap::MemoryOutOfBounds));
}

#[test]
fn explicit_bounds_checks_behave_like_guard_pages() {
    let mut config = Config::new();
    config.bounds_checks(BoundsChecks::Explicit);
    let engine = Engine::new(&config).unwrap();
    let mut store = Store::new(&engine, ());
    let m = module(
        &engine,
        r#"(module (memory 1)
            (func (export "load") (param i32) (result i64) (i64.load offset=8 (local.get 0))))"#,
    );
    let instance = Instance::new(&mut store, &m, &[]).unwrap();
    let load = instance.get_func(&store, "load").unwrap().typed::<i32, i64>(&store).unwrap();
    assert_eq!(load.call(&mut store, 65536 - 16).unwrap(), 0);
    assert_eq!(load.call(&mut store, 65536 - 15).unwrap_err().code(), Some(Trap::MemoryOutOfBounds));
    assert_eq!(load.call(&mut store, -1).unwrap_err().code(), Some(Trap::MemoryOutOfBounds));
}

#[test]
fn linker_shares_memories_tables_and_globals_between_instances() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let producer = module(
        &engine,
        r#"(module
            (memory (export "mem") 1)
            (global (export "g") (mut i32) (i32.const 5))
            (table (export "tab") 2 funcref)
            (func $seven (result i32) i32.const 7)
            (elem (i32.const 1) $seven))"#,
    );
    let consumer = module(
        &engine,
        r#"(module
            (import "p" "mem" (memory 1))
            (import "p" "g" (global $g (mut i32)))
            (import "p" "tab" (table 2 funcref))
            (type $t (func (result i32)))
            (func (export "run") (result i32)
                (i32.store (i32.const 0) (i32.const 99))
                (global.set $g (i32.add (global.get $g) (i32.const 1)))
                (call_indirect (type $t) (i32.const 1))))"#,
    );
    let mut linker = Linker::new(store.engine());
    let p = linker.instantiate(&mut store, &producer).unwrap();
    linker.instance(&store, "p", p).unwrap();
    let c = linker.instantiate(&mut store, &consumer).unwrap();
    let run = c.get_func(&store, "run").unwrap().typed::<(), i32>(&store).unwrap();
    assert_eq!(run.call(&mut store, ()).unwrap(), 7);
    assert_eq!(p.get_global(&store, "g").unwrap().get(&store).i32(), Some(6));
    assert_eq!(p.get_memory(&store, "mem").unwrap().data(&store)[0], 99);
}

#[test]
fn link_errors_say_which_import_and_why() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let mut linker = Linker::new(store.engine());
    let g = Global::new(&mut store, GlobalType::new(ValType::I32, Mutability::Var), Val::I32(5)).unwrap();
    linker.define(&store, "p", "g", g).unwrap();

    let missing = module(&engine, r#"(module (import "p" "g" (global (mut i32))) (import "nope" "x" (func)))"#);
    match linker.instantiate(&mut store, &missing) {
        Err(Error::Link(LinkError::Missing { index: 1, import })) => {
            assert_eq!((import.module.as_str(), import.name.as_str()), ("nope", "x"));
            assert_eq!(import.ty, ExternType::Func(FuncType::new([], [])));
        }
        other => panic!("expected a missing import, got {other:?}"),
    }

    let wrong = module(&engine, r#"(module (import "p" "g" (global i64)))"#);
    let e = linker.instantiate(&mut store, &wrong).unwrap_err();
    match &e {
        Error::Link(LinkError::Incompatible { index: 0, import, actual }) => {
            assert_eq!(import.ty, ExternType::Global(GlobalType::new(ValType::I64, Mutability::Const)));
            assert_eq!(*actual, ExternType::Global(GlobalType::new(ValType::I32, Mutability::Var)));
        }
        other => panic!("expected an incompatible import, got {other:?}"),
    }
    assert_eq!(e.to_string(), "link error: import p::g: incompatible import type: expected global, got global");

    let e = Instance::new(&mut store, &wrong, &[]).unwrap_err();
    assert!(matches!(e, Error::Link(LinkError::Count { expected: 1, given: 0 })), "{e}");
    assert_eq!(e.to_string(), "link error: expected 1 imports, got 0");

    // An import of another store, and a module of another engine.
    let mut other = Store::new(&engine, ());
    let foreign = Global::new(&mut other, GlobalType::new(ValType::I64, Mutability::Const), Val::I64(1)).unwrap();
    assert!(matches!(Instance::new(&mut store, &wrong, &[foreign.into()]), Err(Error::WrongStore)));
    let elsewhere = module(&Engine::default(), "(module)");
    assert!(matches!(Instance::new(&mut store, &elsewhere, &[]), Err(Error::WrongEngine)));
}

#[test]
fn handles_are_send_and_sync_and_stores_send() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<Func>();
    send_sync::<Memory>();
    send_sync::<Table>();
    send_sync::<Global>();
    send_sync::<ExternRef>();
    send_sync::<Instance>();
    send_sync::<Extern>();
    send_sync::<TypedFunc<i32, i32>>();
    send::<Store<()>>();
}

#[test]
fn globals_tables_and_references_from_the_host() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let g = Global::new(&mut store, GlobalType::new(ValType::I64, Mutability::Var), Val::I64(1)).unwrap();
    g.set(&mut store, Val::I64(-4)).unwrap();
    assert_eq!(g.get(&store).i64(), Some(-4));
    assert!(g.set(&mut store, Val::I32(1)).is_err());
    let c = Global::new(&mut store, GlobalType::new(ValType::F32, Mutability::Const), Val::f32(1.5)).unwrap();
    assert!(c.set(&mut store, Val::f32(2.0)).is_err());

    let m = module(
        &engine,
        r#"(module
            (table (export "t") 1 externref)
            (func (export "put") (param externref) (table.set (i32.const 0) (local.get 0)))
            (func (export "get") (result externref) (table.get (i32.const 0)))
            (func (export "is_null") (param externref) (result i32) (ref.is_null (local.get 0))))"#,
    );
    let instance = Instance::new(&mut store, &m, &[]).unwrap();
    let data = ExternRef::new(&mut store, String::from("hello"));
    let put = instance.get_func(&store, "put").unwrap();
    put.call(&mut store, &[Val::ExternRef(Some(data))], &mut []).unwrap();
    let get = instance.get_func(&store, "get").unwrap();
    let mut out = [Val::ExternRef(None)];
    get.call(&mut store, &[], &mut out).unwrap();
    let back = out[0].externref().unwrap().unwrap();
    assert_eq!(back.data(&store).downcast_ref::<String>().unwrap(), "hello");
    let t = instance.get_table(&store, "t").unwrap();
    assert_eq!(t.grow(&mut store, 3, Val::ExternRef(None)).unwrap(), 1);
    assert_eq!(t.size(&store), 4);
    let small = Table::new(&mut store, TableType::new(RefType::FUNCREF, 1, Some(2)), Val::FuncRef(None));
    assert!(matches!(small.unwrap().grow(&mut store, 2, Val::FuncRef(None)), Err(Error::TableGrow { delta: 2 })));
    assert!(t.set(&mut store, 9, Val::ExternRef(None)).is_err());
    assert!(t.set(&mut store, 0, Val::FuncRef(None)).is_err());

    // Objects of one store are refused by another, as are their references.
    let mut other = Store::new(&engine, ());
    assert!(matches!(put.call(&mut other, &[Val::ExternRef(None)], &mut []), Err(Error::WrongStore)));
    assert!(!data.comes_from(&other));
    let foreign = ExternRef::new(&mut other, 1u8);
    assert!(matches!(put.call(&mut store, &[Val::ExternRef(Some(foreign))], &mut []), Err(Error::WrongStore)));
}

#[test]
fn host_panics_resume_after_unwinding_wasm() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let m = module(&engine, r#"(module (import "e" "p" (func $p)) (func (export "f") (call $p)))"#);
    let p = Func::wrap(&mut store, || -> () { panic!("boom from host") });
    let instance = Instance::new(&mut store, &m, &[p.into()]).unwrap();
    let f = instance.get_func(&store, "f").unwrap();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f.call(&mut store, &[], &mut [])));
    assert!(result.is_err(), "the host's panic comes back out of the call");
    // Nothing is left half-entered: the store still runs code.
    let ok = Func::wrap(&mut store, || 3i32);
    assert_eq!(ok.typed::<(), i32>(&store).unwrap().call(&mut store, ()).unwrap(), 3);
}

#[test]
fn stores_run_on_many_threads_sharing_a_module() {
    let engine = Engine::default();
    let m = module(
        &engine,
        r#"(module (func $fib (export "fib") (param i32) (result i32)
            (if (result i32) (i32.lt_u (local.get 0) (i32.const 2)) (then (local.get 0))
                (else (i32.add (call $fib (i32.sub (local.get 0) (i32.const 1)))
                               (call $fib (i32.sub (local.get 0) (i32.const 2))))))))"#,
    );
    let traps = Arc::new(AtomicUsize::new(0));
    let threads: Vec<_> = (0..4)
        .map(|i| {
            let (engine, m, traps) = (engine.clone(), m.clone(), traps.clone());
            std::thread::spawn(move || {
                for round in 0..50 {
                    let mut store = Store::new(&engine, ());
                    let instance = Instance::new(&mut store, &m, &[]).unwrap();
                    let fib = instance.get_func(&store, "fib").unwrap().typed::<i32, i32>(&store).unwrap();
                    assert_eq!(
                        fib.call(&mut store, 15 + (i + round) % 3).unwrap(),
                        [610, 987, 1597][((i + round) % 3) as usize]
                    );
                    // Traps on one thread do not disturb the others.
                    if round % 10 == 0 {
                        let bad = Module::new(&engine, r#"(module (func (export "u") unreachable))"#).unwrap();
                        let inst = Instance::new(&mut store, &bad, &[]).unwrap();
                        let u = inst.get_func(&store, "u").unwrap();
                        assert!(u.call(&mut store, &[], &mut []).is_err());
                        traps.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(traps.load(Ordering::Relaxed), 20);
}

#[test]
fn modules_serialize_and_describe_themselves() {
    let engine = Engine::default();
    let m = module(
        &engine,
        r#"(module $named (import "a" "b" (func (param i32)))
            (func (export "f") (result i64) i64.const 3) (memory (export "m") 1 2))"#,
    );
    assert_eq!(m.name(), Some("named"));
    let imports: Vec<_> = m.imports().collect();
    assert_eq!(imports.len(), 1);
    assert_eq!((imports[0].module.as_str(), imports[0].name.as_str()), ("a", "b"));
    assert_eq!(imports[0].ty, ExternType::Func(FuncType::new([ValType::I32], [])));
    let exports: Vec<_> = m.exports().map(|e| (e.name, e.ty)).collect();
    assert_eq!(exports[1], ("m".to_string(), ExternType::Memory(MemoryType::new(1, Some(2)))));
    let bytes = m.serialize().unwrap();
    // SAFETY: bytes this engine's module just produced; garbage is refused
    // before anything could run.
    let back = unsafe { Module::deserialize(&engine, &bytes) }.unwrap();
    assert_eq!(back.exports().count(), 2);
    // SAFETY: as above.
    assert!(unsafe { Module::deserialize(&engine, b"garbage") }.is_err());
    assert!(Module::validate(&engine, wat::parse_str("(module)").unwrap()).is_ok());
}

#[test]
fn start_functions_and_failed_instantiation() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let m = module(
        &engine,
        r#"(module (memory (export "m") 1) (func $s (i32.store8 (i32.const 0) (i32.const 9))) (start $s))"#,
    );
    let i = Instance::new(&mut store, &m, &[]).unwrap();
    assert_eq!(i.get_memory(&store, "m").unwrap().data(&store)[0], 9);
    let trapping = module(&engine, r#"(module (func $s unreachable) (start $s))"#);
    let e = Instance::new(&mut store, &trapping, &[]).unwrap_err();
    assert_eq!(e.as_trap().unwrap().code(), Some(Trap::UnreachableCodeReached));
    let oob = module(&engine, r#"(module (memory 1) (data (i32.const 65535) "ab"))"#);
    let e = Instance::new(&mut store, &oob, &[]).unwrap_err();
    assert_eq!(e.as_trap().unwrap().code(), Some(Trap::MemoryOutOfBounds));
}

#[test]
fn released_instances_are_freed_when_nothing_can_reach_them() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let m = module(
        &engine,
        r#"(module (memory (export "mem") 1)
            (func (export "f") (result i32) (i32.store (i32.const 0) (i32.const 5)) (i32.load (i32.const 0))))"#,
    );
    // Far more instances than the address space could hold 8 GiB
    // reservations for, if released ones were kept.
    for _ in 0..20_000 {
        let i = Instance::new(&mut store, &m, &[]).unwrap();
        let f = i.get_func(&store, "f").unwrap().typed::<(), i32>(&store).unwrap();
        assert_eq!(f.call(&mut store, ()).unwrap(), 5);
        // SAFETY: nothing obtained from `i` is used after this.
        unsafe { i.release(&mut store) };
    }
    assert_eq!(store.instance_count(), 0);

    // An instance others import from lives until its importers go.
    let user = module(
        &engine,
        r#"(module (import "p" "mem" (memory 1)) (func (export "g") (result i32) (i32.load (i32.const 0))))"#,
    );
    let provider = Instance::new(&mut store, &m, &[]).unwrap();
    let mem = provider.get_memory(&store, "mem").unwrap();
    let consumer = Instance::new(&mut store, &user, &[mem.into()]).unwrap();
    unsafe { provider.release(&mut store) };
    assert_eq!(store.instance_count(), 2);
    let g = consumer.get_func(&store, "g").unwrap().typed::<(), i32>(&store).unwrap();
    assert_eq!(g.call(&mut store, ()).unwrap(), 0);
    unsafe { consumer.release(&mut store) };
    assert_eq!(store.instance_count(), 0);

    // Sharing a table pins an instance to its store.
    let shares = module(&engine, r#"(module (table (export "t") 1 funcref))"#);
    let pinned = Instance::new(&mut store, &shares, &[]).unwrap();
    unsafe { pinned.release(&mut store) };
    assert_eq!(store.instance_count(), 1);
}

#[test]
fn reused_memory_reservations_start_zeroed_and_bounded() {
    // With the default pool and with none (every reservation unmapped).
    for capacity in [16, 0] {
        memories_start_zeroed_and_bounded(Config::new().memory_pool_capacity(capacity));
    }
}

fn memories_start_zeroed_and_bounded(config: &Config) {
    let engine = Engine::new(config).unwrap();
    let mut store = Store::new(&engine, ());
    let m = module(
        &engine,
        r#"(module (memory (export "mem") 1 4)
            (func (export "sum") (result i64) (local $i i32) (local $s i64)
                (loop
                    (local.set $s (i64.add (local.get $s) (i64.load8_u (local.get $i))))
                    (local.set $i (i32.add (local.get $i) (i32.const 1)))
                    (br_if 0 (i32.lt_u (local.get $i) (i32.const 65536))))
                local.get $s)
            (func (export "poke") (param i32) (i32.store8 (local.get 0) (i32.const 1))))"#,
    );
    for round in 0..50 {
        let i = Instance::new(&mut store, &m, &[]).unwrap();
        let mem = i.get_memory(&store, "mem").unwrap();
        assert_eq!(mem.size(&store), 1, "round {round}");
        let sum = i.get_func(&store, "sum").unwrap().typed::<(), i64>(&store).unwrap();
        assert_eq!(sum.call(&mut store, ()).unwrap(), 0, "round {round}: memory starts zeroed");
        let poke = i.get_func(&store, "poke").unwrap().typed::<i32, ()>(&store).unwrap();
        // The previous round grew to 3 pages: those pages are gone again.
        assert_eq!(poke.call(&mut store, 65536).unwrap_err().code(), Some(Trap::MemoryOutOfBounds));
        mem.grow(&mut store, 2).unwrap();
        mem.data_mut(&mut store).fill(0xff);
        poke.call(&mut store, 3 * 65536 - 1).unwrap();
        unsafe { i.release(&mut store) };
    }
}
