//! Links two modules by name with a `Linker`: one imports what the other
//! exports (wasmtime's `linking` example, without WASI).

use cranewasm::*;

const LIB: &str = r#"(module
  (memory (export "memory") 1)
  (global $count (mut i32) (i32.const 0))
  (func (export "_initialize") (global.set $count (i32.const 100)))
  (func (export "double") (param i32) (result i32)
    (global.set $count (i32.add (global.get $count) (i32.const 1)))
    (i32.mul (local.get 0) (i32.const 2)))
  (func (export "count") (result i32) (global.get $count)))"#;

const APP: &str = r#"(module
  (import "lib" "double" (func $double (param i32) (result i32)))
  (import "lib" "memory" (memory 1))
  (import "host" "log" (func $log (param i32)))
  (func (export "run") (param i32) (result i32)
    (i32.store (i32.const 0) (call $double (local.get 0)))
    (call $log (i32.load (i32.const 0)))
    (call $double (i32.load (i32.const 0)))))"#;

fn main() -> Result<()> {
    let engine = Engine::default();
    let mut store = Store::new(&engine, Vec::<i32>::new());
    let mut linker = Linker::new(&engine);
    linker.func_wrap("host", "log", |mut caller: Caller<'_, Vec<i32>>, x: i32| caller.data_mut().push(x))?;

    // The library is a reactor: instantiated once (running `_initialize`)
    // and its exports defined under "lib".
    let lib = Module::new(&engine, LIB)?;
    linker.module(&mut store, "lib", &lib)?;

    let app = linker.instantiate(&mut store, &Module::new(&engine, APP)?)?;
    let run = app.get_typed_func::<i32, i32>(&mut store, "run")?;
    assert_eq!(run.call(&mut store, 5)?, 20);

    let count =
        linker.get(&mut store, "lib", "count").and_then(Extern::into_func).ok_or_else(|| format_err!("no count"))?;
    let count = count.typed::<(), i32>(&store)?.call(&mut store, ())?;
    println!("run(5) = 20; the library doubled {} times; host saw {:?}", count - 100, store.data());
    assert_eq!((count, store.data().as_slice()), (102, &[10][..]));
    Ok(())
}
