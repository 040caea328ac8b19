//! A memory of 1-byte pages (custom-page-sizes) smaller than a host page,
//! made in a reservation that an earlier memory left accessible: its
//! bytes must stay readable and writable. Shrinking the accessible part
//! to a length inside a host page once made that whole page inaccessible,
//! so reading the memory crashed (found by tests/fuzz_wasmtime.rs).

use cranewasm::*;

fn engine() -> Engine {
    let mut config = Config::new();
    config.wasm_custom_page_sizes(true);
    // The reservations of guarded memories are the ones the pool reuses.
    config.bounds_checks(BoundsChecks::GuardPages);
    Engine::new(&config).unwrap()
}

fn instantiate(engine: &Engine, store: &mut Store<()>, wat: &str) -> Instance {
    let module = Module::new(engine, wat::parse_str(wat).unwrap()).unwrap();
    Instance::new(store, &module, &[]).unwrap()
}

#[test]
fn a_small_memory_in_a_reused_reservation_is_accessible() {
    let engine = engine();
    for bytes in [1, 27, 4095, 4097] {
        // A memory of a few 64 KiB pages, then its reservation goes back
        // to the pool with its pages accessible.
        {
            let mut store = Store::new(&engine, ());
            instantiate(&engine, &mut store, r#"(module (memory (export "m") 2))"#);
        }
        let mut store = Store::new(&engine, ());
        let wat = format!(
            r#"(module (memory (export "m") {bytes} {max} (pagesize 1))
                (func (export "put") (param i32 i32) (i32.store8 (local.get 0) (local.get 1)))
                (func (export "get") (param i32) (result i32) (i32.load8_u (local.get 0))))"#,
            max = bytes + 10
        );
        let instance = instantiate(&engine, &mut store, &wat);
        let memory = instance.get_memory(&store, "m").unwrap();
        assert_eq!(memory.data(&store).len(), bytes);
        assert!(memory.data(&store).iter().all(|b| *b == 0), "a new memory reads as zeros");
        let last = Val::I32(bytes as i32 - 1);
        let put = instance.get_func(&store, "put").unwrap();
        put.call(&mut store, &[last, Val::I32(0x5a)], &mut []).unwrap();
        let mut out = [Val::I32(0)];
        instance.get_func(&store, "get").unwrap().call(&mut store, &[last], &mut out).unwrap();
        assert_eq!(out[0].i32(), Some(0x5a));
        assert_eq!(memory.data(&store)[bytes - 1], 0x5a);
        // One past the end traps.
        let past = put.call(&mut store, &[Val::I32(bytes as i32), Val::I32(1)], &mut []).unwrap_err();
        assert_eq!(past.as_trap().and_then(|t| t.code()), Some(Trap::MemoryOutOfBounds), "{past}");
    }
}
