//! What embedders of other C APIs (WAMR's `wasm_export.h`) need of an
//! instance beyond exports: memories created with another type than
//! declared, memories and tables by index, a global's storage address, and
//! custom sections.

use cranewasm::{Engine, Instance, MemoryType, Module, Store, Val};

const WAT: &str = r#"(module
    (memory 1 2)
    (table 2 funcref)
    (global (export "g") (mut i32) (i32.const 7))
    (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0)))
    (@custom "hello" "world"))"#;

#[test]
fn memory_types_indices_globals_and_custom_sections() {
    let engine = Engine::default();
    let module = Module::new(&engine, WAT).unwrap();
    assert_eq!(module.custom_section("hello"), Some(&b"world"[..]));
    assert_eq!(module.custom_section("nope"), None);

    let mut store = Store::new(&engine, ());
    let instance = Instance::new_with_memory_types(&mut store, &module, &[], |i, ty| {
        assert_eq!((i, ty.minimum(), ty.maximum()), (0, 1, Some(2)));
        MemoryType::new(ty.minimum() as u32 + 1, ty.maximum().map(|m| m as u32 + 1))
    })
    .unwrap();
    let memory = instance.memory(&store, 0).expect("memory 0, not exported");
    assert_eq!(memory.size(&store), 2);
    let grow = instance.get_func(&store, "grow").unwrap().typed::<i32, i32>(&store).unwrap();
    assert_eq!(grow.call(&mut store, 1).unwrap(), 2);
    assert_eq!(grow.call(&mut store, 1).unwrap(), -1, "the new maximum holds");
    assert!(instance.memory(&store, 1).is_none());
    assert_eq!(instance.table(&store, 0).unwrap().size(&store), 2);
    assert!(instance.table(&store, 1).is_none());

    let g = instance.get_global(&store, "g").unwrap();
    let p = g.data_ptr(&store);
    // SAFETY: the global's storage, alive with the store; an i32 at byte 0.
    unsafe {
        assert_eq!(*(p as *const i32), 7);
        *(p as *mut i32) = 9;
    }
    assert_eq!(g.get(&store).i32(), Some(9));
    assert!(matches!(g.get(&store), Val::I32(9)));

    let refused = Instance::new_with_memory_types(&mut store, &module, &[], |_, _| MemoryType::new(3, Some(2)));
    assert!(refused.is_err(), "a minimum above the maximum is refused");
}
