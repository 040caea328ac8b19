//! Calls a wasm export with a typed signature (wasmtime's `gcd` example).

use cranewasm::*;

const GCD: &str = r#"(module
  (func $gcd (export "gcd") (param i32 i32) (result i32)
    (local i32)
    (block (loop
      (br_if 1 (i32.eqz (local.get 1)))
      (local.set 2 (i32.rem_u (local.get 0) (local.get 1)))
      (local.set 0 (local.get 1))
      (local.set 1 (local.get 2))
      (br 0)))
    (local.get 0)))"#;

fn main() -> Result<()> {
    let mut store = Store::<()>::default();
    let module = Module::new(store.engine(), GCD)?;
    let instance = Instance::new(&mut store, &module, &[])?;
    let gcd = instance.get_typed_func::<(i32, i32), i32>(&mut store, "gcd")?;
    let result = gcd.call(&mut store, (6, 27))?;
    println!("gcd(6, 27) = {result}");
    assert_eq!(result, 3);
    Ok(())
}
