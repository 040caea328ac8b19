//! Loads `hello.wat`, gives it two host functions through a `Linker`, and
//! calls its export: wasmtime's hello world, with the crate renamed.
//!
//! Run with `cargo run --release --example hello`.

use cranewasm::*;

fn main() -> Result<()> {
    let engine = Engine::default();
    let module = Module::new(&engine, include_str!("hello.wat"))?;

    // Host functions are defined once in the linker, for any store whose
    // data (here a counter) they see through the `Caller`.
    let mut linker = Linker::new(&engine);
    linker.func_wrap("host", "greet", |mut caller: Caller<'_, u32>, ptr: i32, len: i32| -> Result<(), TrapError> {
        let Some(Extern::Memory(memory)) = caller.get_export("memory") else {
            bail!("no memory exported");
        };
        let mut text = vec![0; len as usize];
        memory.read(&caller, ptr as usize, &mut text)?;
        println!("guest says: {}", String::from_utf8_lossy(&text));
        *caller.data_mut() += 1;
        Ok(())
    })?;
    linker.func_wrap("host", "square", |x: i32| x * x)?;

    let mut store = Store::new(&engine, 0u32);
    let instance = linker.instantiate(&mut store, &module)?;
    let run = instance.get_typed_func::<i32, i32>(&mut store, "run")?;
    let result = run.call(&mut store, 6)?;
    println!("run(6) = {result}, host called {} time(s)", store.data());
    assert_eq!((result, *store.data()), (37, 1));
    Ok(())
}
