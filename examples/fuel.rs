//! Bounds how much wasm runs with fuel (wasmtime's `fuel` example).

use cranewasm::*;

const FIB: &str = r#"(module
  (func $fib (export "fibonacci") (param $n i32) (result i32)
    (if (result i32) (i32.lt_s (local.get $n) (i32.const 2))
      (then (local.get $n))
      (else (i32.add (call $fib (i32.sub (local.get $n) (i32.const 1)))
                     (call $fib (i32.sub (local.get $n) (i32.const 2))))))))"#;

fn main() -> Result<()> {
    let mut config = Config::new();
    config.consume_fuel(true);
    let engine = Engine::new(&config)?;
    let mut store = Store::new(&engine, ());
    store.set_fuel(10_000)?;
    let module = Module::new(&engine, FIB)?;
    let instance = Instance::new(&mut store, &module, &[])?;
    let fib = instance.get_typed_func::<i32, i32>(&mut store, "fibonacci")?;

    let mut n = 1;
    let err = loop {
        let fuel_before = store.get_fuel()?;
        match fib.call(&mut store, n) {
            Ok(output) => {
                let consumed = fuel_before - store.get_fuel()?;
                println!("fib({n}) = {output} [consumed {consumed} fuel]");
                store.set_fuel(10_000)?;
                n += 1;
            }
            Err(e) => break e,
        }
    };
    println!("fib({n}) ran out of fuel: {err}");
    assert_eq!(err.downcast_ref::<Trap>(), Some(&Trap::OutOfFuel));
    assert!(n > 5 && n < 30, "fib({n})");
    Ok(())
}
