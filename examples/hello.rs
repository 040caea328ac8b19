//! Loads `hello.wat`, gives it two host functions, and calls its export.
//!
//! Run with `cargo run --release --example hello`.

use cranewasm::{Caller, Engine, Func, Linker, Module, Store, TrapError};

fn main() -> Result<(), cranewasm::Error> {
    let engine = Engine::default();
    let module = Module::new(&engine, include_str!("hello.wat"))?;

    // The store's data (here a counter) is visible to host functions.
    let mut store = Store::new(&engine, 0u32);
    let mut linker = Linker::new(store.engine());

    // A host function reading a string out of the caller's memory.
    let greet = Func::wrap(&mut store, |mut caller: Caller<'_, u32>, ptr: i32, len: i32| -> Result<(), TrapError> {
        let memory = caller
            .get_export("memory")
            .and_then(|e| e.into_memory())
            .ok_or_else(|| TrapError::new("no memory exported"))?;
        let mut text = vec![0; len as usize];
        memory.read(&caller, ptr as usize, &mut text).map_err(|e| TrapError::new(e.to_string()))?;
        println!("guest says: {}", String::from_utf8_lossy(&text));
        *caller.data_mut() += 1;
        Ok(())
    });
    let square = Func::wrap(&mut store, |x: i32| x * x);
    linker.define(&store, "host", "greet", greet)?.define(&store, "host", "square", square)?;

    let instance = linker.instantiate(&mut store, &module)?;
    let run = instance.get_func(&store, "run").expect("exported").typed::<i32, i32>(&store)?;
    let result = run.call(&mut store, 6)?;
    println!("run(6) = {result}, host called {} time(s)", store.data());
    assert_eq!(result, 37);
    Ok(())
}
