//! A module with two memories (wasmtime's `multimemory` example).

use cranewasm::*;

const MULTI_MEMORY: &str = r#"(module
  (memory $m0 (export "memory0") 2 3)
  (memory $m1 (export "memory1") 2 4)
  (func (export "size0") (result i32) (memory.size $m0))
  (func (export "load0") (param i32) (result i32) (i32.load8_s $m0 (local.get 0)))
  (func (export "store0") (param i32 i32) (i32.store8 $m0 (local.get 0) (local.get 1)))
  (func (export "size1") (result i32) (memory.size $m1))
  (func (export "load1") (param i32) (result i32) (i32.load8_s $m1 (local.get 0)))
  (func (export "store1") (param i32 i32) (i32.store8 $m1 (local.get 0) (local.get 1)))
  (data (memory $m0) (i32.const 0x1000) "\01\02\03\04")
  (data (memory $m1) (i32.const 0x1000) "\04\03\02\01"))"#;

fn main() -> Result<()> {
    let mut store = Store::<()>::default();
    let module = Module::new(store.engine(), MULTI_MEMORY)?;
    let instance = Instance::new(&mut store, &module, &[])?;
    let memory0 = instance.get_memory(&store, "memory0").ok_or_else(|| format_err!("no memory0"))?;
    let memory1 = instance.get_memory(&store, "memory1").ok_or_else(|| format_err!("no memory1"))?;
    let load0 = instance.get_typed_func::<i32, i32>(&mut store, "load0")?;
    let load1 = instance.get_typed_func::<i32, i32>(&mut store, "load1")?;
    let store1 = instance.get_typed_func::<(i32, i32), ()>(&mut store, "store1")?;
    let size1 = instance.get_typed_func::<(), i32>(&mut store, "size1")?;

    assert_eq!((load0.call(&mut store, 0x1000)?, load1.call(&mut store, 0x1000)?), (1, 4));
    store1.call(&mut store, (0x1001, 9))?;
    assert_eq!((memory0.data(&store)[0x1001], memory1.data(&store)[0x1001]), (2, 9));

    assert_eq!(memory1.grow(&mut store, 2)?, 2);
    assert_eq!(size1.call(&mut store, ())?, 4);
    assert!(memory0.grow(&mut store, 2).is_err(), "memory0's maximum is 3 pages");
    let err = load0.call(&mut store, 0x20000).unwrap_err();
    assert_eq!(err.downcast_ref::<Trap>(), Some(&Trap::MemoryOutOfBounds));
    println!("two memories: {} and {} pages", memory0.size(&store), memory1.size(&store));
    Ok(())
}
