//! The parts of wasmtime's API shape that we share (issue 39): a program
//! written against wasmtime's names for them compiles and runs here with
//! the crate renamed. Each test is such a program, and its bad inputs.

use cranewasm::{Engine, Error, Instance, Module, Store};

const GCD: &str = r#"(module
  (func (export "gcd") (param i32 i32) (result i32)
    (local i32)
    (block (loop
      (br_if 1 (i32.eqz (local.get 1)))
      (local.set 2 (i32.rem_u (local.get 0) (local.get 1)))
      (local.set 0 (local.get 1))
      (local.set 1 (local.get 2))
      (br 0)))
    (local.get 0)))"#;

#[test]
fn store_default_module_from_file_and_get_typed_func() {
    let dir = std::env::temp_dir().join(format!("cranewasm-shape-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("gcd.wat");
    std::fs::write(&path, GCD).unwrap();

    // wasmtime's hello-world shape, word for word but the crate's name.
    let mut store: Store<()> = Store::default();
    let module = Module::from_file(store.engine(), &path).unwrap();
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let gcd = instance.get_typed_func::<(i32, i32), i32>(&mut store, "gcd").unwrap();
    assert_eq!(gcd.call(&mut store, (6, 27)).unwrap(), 3);

    // A binary file too.
    let binary = dir.join("gcd.wasm");
    std::fs::write(&binary, wat::parse_str(GCD).unwrap()).unwrap();
    assert!(Module::from_file(&Engine::default(), &binary).is_ok());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_inputs_are_errors() {
    let mut store: Store<u32> = Store::default();
    assert_eq!(*store.data(), 0);
    let missing = Module::from_file(store.engine(), "/nonexistent/cranewasm/gcd.wasm").unwrap_err();
    assert!(matches!(&missing, Error::Resource(m) if m.contains("/nonexistent/cranewasm/gcd.wasm")), "{missing}");

    let module = Module::new(store.engine(), GCD).unwrap();
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let absent = instance.get_typed_func::<(i32, i32), i32>(&mut store, "lcm").err().unwrap();
    assert!(absent.to_string().contains("lcm"), "{absent}");
    let wrong = instance.get_typed_func::<i32, i32>(&mut store, "gcd").err().unwrap();
    assert!(matches!(wrong, Error::Usage(_)), "{wrong}");
}

mod linker {
    use cranewasm::{Caller, Engine, Error, Extern, FuncType, Linker, Module, Store, Val, ValType};

    const USES_HOST: &str = r#"(module
        (import "host" "add" (func $add (param i32) (result i32)))
        (import "host" "mul" (func $mul (param i32 i32) (result i32)))
        (func (export "run") (param i32) (result i32)
            (call $mul (call $add (local.get 0)) (i32.const 2))))"#;

    #[test]
    fn host_functions_are_made_in_each_store() {
        let engine = Engine::default();
        let mut linker = Linker::new(&engine);
        linker.func_wrap("host", "add", |caller: Caller<'_, i32>, x: i32| x + *caller.data()).unwrap();
        linker
            .func_new("host", "mul", FuncType::new([ValType::I32; 2], [ValType::I32]), |_, p, r| {
                r[0] = Val::I32(p[0].i32().unwrap() * p[1].i32().unwrap());
                Ok(())
            })
            .unwrap();
        let module = Module::new(&engine, USES_HOST).unwrap();
        for (data, want) in [(1, 22), (100, 220)] {
            let mut store = Store::new(&engine, data);
            let instance = linker.instantiate(&mut store, &module).unwrap();
            let run = instance.get_typed_func::<i32, i32>(&mut store, "run").unwrap();
            assert_eq!(run.call(&mut store, 10).unwrap(), want);
        }
    }

    #[test]
    fn shadowing_is_refused_unless_allowed() {
        let engine = Engine::default();
        let mut linker = Linker::<()>::new(&engine);
        linker.func_wrap("m", "f", || 1i32).unwrap();
        let err = linker.func_wrap("m", "f", || 2i32).err().unwrap();
        assert!(err.to_string().contains("m::f") && err.to_string().contains("defined twice"), "{err}");
        linker.allow_shadowing(true).func_wrap("m", "f", || 3i32).unwrap();
        let mut store = Store::new(&engine, ());
        let f = linker.get(&mut store, "m", "f").and_then(Extern::into_func).unwrap();
        assert_eq!(f.typed::<(), i32>(&store).unwrap().call(&mut store, ()).unwrap(), 3);
        assert!(linker.get(&mut store, "m", "g").is_none());
    }

    #[test]
    fn unknown_imports_trap_only_when_called_and_missing_ones_fail_to_link() {
        let engine = Engine::default();
        let module = Module::new(&engine, USES_HOST).unwrap();
        let mut store = Store::new(&engine, 0);
        let mut linker = Linker::new(&engine);
        let missing = linker.instantiate(&mut store, &module).err().unwrap();
        assert!(matches!(missing, Error::Link(_)) && missing.to_string().contains("host::add"), "{missing}");
        linker.define_unknown_imports_as_traps(&module).unwrap();
        let instance = linker.instantiate(&mut store, &module).unwrap();
        let run = instance.get_typed_func::<i32, i32>(&mut store, "run").unwrap();
        let trap = run.call(&mut store, 1).unwrap_err();
        assert!(trap.to_string().contains("unlinked function"), "{trap}");
    }

    #[test]
    fn linking_two_modules_reactor_and_command() {
        let engine = Engine::default();
        let mut store = Store::new(&engine, ());
        let mut linker = Linker::new(&engine);
        // A reactor: instantiated once, `_initialize` run, state kept.
        let counter = Module::new(
            &engine,
            r#"(module (global $n (mut i32) (i32.const 0))
                (func (export "_initialize") (global.set $n (i32.const 10)))
                (func (export "next") (result i32)
                    (global.set $n (i32.add (global.get $n) (i32.const 1))) (global.get $n)))"#,
        )
        .unwrap();
        linker.module(&mut store, "counter", &counter).unwrap();
        let user = Module::new(
            &engine,
            r#"(module (import "counter" "next" (func $next (result i32)))
                (func (export "two") (result i32) (drop (call $next)) (call $next)))"#,
        )
        .unwrap();
        let instance = linker.instantiate(&mut store, &user).unwrap();
        let two = instance.get_typed_func::<(), i32>(&mut store, "two").unwrap();
        assert_eq!(two.call(&mut store, ()).unwrap(), 12);
        assert_eq!(two.call(&mut store, ()).unwrap(), 14);

        // A command: a fresh instance for each call, so no state is kept.
        let command = Module::new(
            &engine,
            r#"(module (global $n (mut i32) (i32.const 0))
                (func (export "_start"))
                (func (export "next") (result i32)
                    (global.set $n (i32.add (global.get $n) (i32.const 1))) (global.get $n)))"#,
        )
        .unwrap();
        linker.module(&mut store, "cmd", &command).unwrap();
        let next = linker.get(&mut store, "cmd", "next").and_then(Extern::into_func).unwrap();
        let next = next.typed::<(), i32>(&store).unwrap();
        assert_eq!(next.call(&mut store, ()).unwrap(), 1);
        assert_eq!(next.call(&mut store, ()).unwrap(), 1);
        let start = linker.get_default(&mut store, "cmd").unwrap();
        assert_eq!(start.ty(&store), FuncType::new([], []));
        // A module without a default export gets one that does nothing.
        assert!(linker.get_default(&mut store, "counter").unwrap().call(&mut store, &[], &mut []).is_ok());
    }
}

mod errors {
    use cranewasm::{
        bail, format_err, Engine, Error, Instance, Linker, Module, Result, Store, Trap, TrapError, WasmBacktrace,
    };

    fn assert_error<E: std::error::Error + Send + Sync + 'static>() {}

    #[test]
    fn traps_downcast_to_the_enum_with_a_backtrace() {
        assert_error::<Error>();
        let mut store = Store::<()>::default();
        let module = Module::new(
            store.engine(),
            r#"(module (func $inner (export "div") (param i32) (result i32)
                 (i32.div_u (i32.const 1) (local.get 0)))
               (func (export "outer") (result i32) (call $inner (i32.const 0))))"#,
        )
        .unwrap();
        let instance = Instance::new(&mut store, &module, &[]).unwrap();
        let outer = instance.get_typed_func::<(), i32>(&mut store, "outer").unwrap();
        let err: Error = outer.call(&mut store, ()).unwrap_err().into();
        assert_eq!(err.downcast_ref::<Trap>(), Some(&Trap::IntegerDivisionByZero));
        assert!(err.is::<TrapError>() && !err.is::<String>());
        let backtrace = err.downcast_ref::<WasmBacktrace>().unwrap();
        assert_eq!(backtrace.frames().len(), 2, "{backtrace}");
        assert_eq!(backtrace.frames()[0].func_index(), 0);
        assert_eq!(err.downcast::<Trap>().unwrap(), Trap::IntegerDivisionByZero);
        // The message the C layer passes on is unchanged.
        let again = outer.call(&mut store, ()).unwrap_err();
        assert_eq!(again.to_string(), "integer divide by zero");
    }

    #[test]
    fn host_errors_and_macros() {
        let engine = Engine::default();
        let mut linker = Linker::new(&engine);
        linker
            .func_wrap("host", "check", |x: i32| -> Result<i32, TrapError> {
                if x < 0 {
                    bail!("negative argument {x}");
                }
                Ok(x)
            })
            .unwrap();
        let module = Module::new(
            &engine,
            r#"(module (import "host" "check" (func $c (param i32) (result i32)))
                (func (export "run") (param i32) (result i32) (call $c (local.get 0))))"#,
        )
        .unwrap();
        let mut store = Store::new(&engine, ());
        let instance = linker.instantiate(&mut store, &module).unwrap();
        let run = instance.get_typed_func::<i32, i32>(&mut store, "run").unwrap();
        assert_eq!(run.call(&mut store, 5).unwrap(), 5);
        let err = run.call(&mut store, -3).unwrap_err();
        assert_eq!(err.message(), "negative argument -3");
        // A host function's own trap has no reason but still a backtrace.
        assert_eq!(err.downcast_ref::<Trap>(), None);
        assert_eq!(err.downcast_ref::<WasmBacktrace>().unwrap().frames().len(), 1);

        let e = format_err!("plain {}", 1);
        assert!(matches!(&e, Error::Msg(m) if m == "plain 1"));
        assert!(e.downcast_ref::<Trap>().is_none());
    }
}
