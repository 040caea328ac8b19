//! Reads, writes and grows an exported memory from the host, and sees
//! out-of-bounds accesses trap (wasmtime's `memory` example).

use cranewasm::*;

const MEMORY: &str = r#"(module
  (memory (export "memory") 2 3)
  (func (export "size") (result i32) (memory.size))
  (func (export "load") (param i32) (result i32) (i32.load8_s (local.get 0)))
  (func (export "store") (param i32 i32) (i32.store8 (local.get 0) (local.get 1)))
  (data (i32.const 0x1000) "\01\02\03\04"))"#;

fn main() -> Result<()> {
    let mut store = Store::<()>::default();
    let module = Module::new(store.engine(), MEMORY)?;
    let instance = Instance::new(&mut store, &module, &[])?;
    let memory = instance.get_memory(&store, "memory").ok_or_else(|| format_err!("no memory"))?;
    let size = instance.get_typed_func::<(), i32>(&mut store, "size")?;
    let load = instance.get_typed_func::<i32, i32>(&mut store, "load")?;
    let store_fn = instance.get_typed_func::<(i32, i32), ()>(&mut store, "store")?;

    assert_eq!((memory.size(&store), memory.data_size(&store)), (2, 0x20000));
    assert_eq!(size.call(&mut store, ())?, 2);
    assert_eq!(memory.data(&store)[0x1000..0x1004], [1, 2, 3, 4]);
    assert_eq!(load.call(&mut store, 0x1002)?, 3);

    // Out of bounds: the trap says why.
    let err = load.call(&mut store, 0x20000).unwrap_err();
    assert_eq!(err.downcast_ref::<Trap>(), Some(&Trap::MemoryOutOfBounds));

    // The host writes, wasm reads; and the other way round.
    memory.data_mut(&mut store)[0x1003] = 5;
    assert_eq!(load.call(&mut store, 0x1003)?, 5);
    store_fn.call(&mut store, (0x1002, 6))?;
    assert_eq!(memory.data(&store)[0x1002], 6);

    // Grow to the maximum, and no further.
    assert_eq!(memory.grow(&mut store, 1)?, 2);
    assert_eq!(size.call(&mut store, ())?, 3);
    assert!(memory.grow(&mut store, 1).is_err());
    println!("memory: {} pages, growth past the maximum refused", memory.size(&store));
    Ok(())
}
