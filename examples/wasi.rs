//! Runs a WASI program from Rust: the embedding counterpart of
//! `iwasm --env GREETING=hello --map-dir=/data::DIR PROGRAM ARGS...`.
//!
//! ```sh
//! cargo run --release --example wasi -- examples/wasi/demo.wasm /tmp/somedir a b 7
//! ```
//! (`demo.wasm` is built from `examples/wasi/demo.c` by tests/wasi-example.sh.)
//! Exits with the guest's status.

use cranewasm::wasi::{self, WasiCtx};
use cranewasm::{Engine, Linker, Module, Store};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut argv = std::env::args().skip(1);
    let (Some(program), Some(dir)) = (argv.next(), argv.next()) else {
        return Err("usage: wasi PROGRAM.wasm DIR [ARGS...]".into());
    };

    let engine = Engine::default();
    let module = Module::new(&engine, std::fs::read(&program)?)?;
    let ctx = WasiCtx::builder()
        .inherit_stdio()
        .arg(&program)
        .args(argv)
        .env("GREETING", "hello from Rust")
        .preopened_dir(&dir, "/data")
        .build()?;
    let mut store = Store::new(&engine, ctx);
    let mut linker = Linker::new(store.engine());
    linker.define_wasi(&mut store, |ctx: &mut WasiCtx| ctx)?;
    let instance = linker.instantiate(&mut store, &module)?;
    let status = wasi::start(&mut store, &instance)?;
    std::process::exit(status)
}
