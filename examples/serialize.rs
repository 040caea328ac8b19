//! Compiles ahead of time and loads the compiled code without compiling
//! (wasmtime's `serialize` example).

use cranewasm::*;

const HELLO: &str = r#"(module (func (export "answer") (result i32) (i32.const 42)))"#;

fn main() -> Result<()> {
    let engine = Engine::default();
    // In memory: `Module::serialize` / `deserialize`.
    let module = Module::new(&engine, HELLO)?;
    let bytes = module.serialize()?;
    // SAFETY: the bytes come from `serialize` just above.
    let loaded = unsafe { Module::deserialize(&engine, &bytes)? };

    // On disk: `Engine::precompile_module` / `Module::deserialize_file`.
    let path = std::env::temp_dir().join(format!("cranewasm-serialize-{}.cwasm", std::process::id()));
    std::fs::write(&path, engine.precompile_module(HELLO.as_bytes())?)?;
    // SAFETY: the file was just written by `precompile_module`, and is
    // left alone while the module lives.
    let from_file = unsafe { Module::deserialize_file(&engine, &path)? };

    for module in [loaded, from_file] {
        let mut store = Store::new(&engine, ());
        let instance = Instance::new(&mut store, &module, &[])?;
        assert_eq!(instance.get_typed_func::<(), i32>(&mut store, "answer")?.call(&mut store, ())?, 42);
    }
    std::fs::remove_file(&path)?;
    println!("compiled code: {} bytes, loaded twice without compiling", bytes.len());
    Ok(())
}
