//! Bounds a call's run time with epochs: a thread ticks the engine's
//! epoch and the call traps at its deadline (wasmtime's `epochs` example).

use std::time::Duration;

use cranewasm::*;

fn main() -> Result<()> {
    let mut config = Config::new();
    config.epoch_interruption(true);
    let engine = Engine::new(&config)?;
    let mut store = Store::new(&engine, ());
    let module = Module::new(&engine, r#"(module (func (export "run") (loop (br 0))))"#)?;
    let instance = Instance::new(&mut store, &module, &[])?;
    let run = instance.get_typed_func::<(), ()>(&mut store, "run")?;

    store.epoch_deadline_trap();
    store.set_epoch_deadline(1);
    let ticker = engine.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        ticker.increment_epoch();
    });
    let err = run.call(&mut store, ()).unwrap_err();
    println!("stopped at the epoch deadline: {err}");
    // wasmtime reports `Trap::Interrupt`; ours has its own reason.
    assert_eq!(err.downcast_ref::<Trap>(), Some(&Trap::EpochDeadline));
    Ok(())
}
