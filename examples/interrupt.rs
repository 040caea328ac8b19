//! Stops an endless loop from another thread: our `InterruptHandle`
//! (wasmtime's `interrupt` example uses epochs, see `epochs.rs`).

use std::time::Duration;

use cranewasm::*;

fn main() -> Result<()> {
    let mut store = Store::<()>::default();
    let module = Module::new(store.engine(), r#"(module (func (export "run") (loop (br 0))))"#)?;
    let instance = Instance::new(&mut store, &module, &[])?;
    let run = instance.get_typed_func::<(), ()>(&mut store, "run")?;

    // Made before the call it stops.
    let handle = store.interrupt_handle();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        handle.interrupt();
    });
    let err = run.call(&mut store, ()).unwrap_err();
    stopper.join().unwrap();
    println!("interrupted: {err}");
    assert_eq!(err.downcast_ref::<Trap>(), Some(&Trap::Interrupt));
    Ok(())
}
