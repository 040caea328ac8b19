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
