//! Functions with several results, in wasm and on the host (wasmtime's
//! `multi` example).

use cranewasm::*;

const MULTI: &str = r#"(module
  (func $f (import "" "f") (param i32 i64) (result i64 i32))
  (func $g (export "g") (param i32 i64) (result i64 i32)
    (call $f (local.get 0) (local.get 1)))
  (func $round_trip_many (export "round_trip_many")
    (param i64 i64 i64 i64 i64 i64 i64 i64 i64 i64)
    (result i64 i64 i64 i64 i64 i64 i64 i64 i64 i64)
    local.get 0 local.get 1 local.get 2 local.get 3 local.get 4
    local.get 5 local.get 6 local.get 7 local.get 8 local.get 9))"#;

fn main() -> Result<()> {
    let engine = Engine::default();
    let module = Module::new(&engine, MULTI)?;
    let mut store = Store::new(&engine, ());
    let callback = Func::wrap(&mut store, |a: i32, b: i64| -> (i64, i32) { (b + 1, a + 1) });
    let instance = Instance::new(&mut store, &module, &[callback.into()])?;

    let g = instance.get_typed_func::<(i32, i64), (i64, i32)>(&mut store, "g")?;
    let (a, b) = g.call(&mut store, (1, 3))?;
    println!("g(1, 3) = ({a}, {b})");
    assert_eq!((a, b), (4, 2));

    // Ten results: more than a tuple of `WasmTy`s here, so through `Val`s.
    let round_trip = instance.get_func(&store, "round_trip_many").ok_or_else(|| format_err!("missing export"))?;
    let params: Vec<Val> = (0..10).map(Val::I64).collect();
    let mut results = vec![Val::I64(0); 10];
    round_trip.call(&mut store, &params, &mut results)?;
    assert_eq!(results.iter().map(|v| v.i64().unwrap()).collect::<Vec<_>>(), (0..10).collect::<Vec<_>>());
    Ok(())
}
