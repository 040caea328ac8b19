//! Cross-compilation through the API (`Config::target`, issue 36): an
//! engine for the other architecture writes compiled-code files and runs
//! nothing; the host's engine refuses those files naming both targets; an
//! engine for the host's own triple (its baseline CPU) runs its code, and
//! its files load in the host's native engine. Here rather than in the
//! core's tests because iwasm's `cross` feature is what builds the other
//! architecture's code generator in (the library has only the host's).
//! tests/cross.sh runs the files on aarch64 under qemu.

use cranewasm::{Config, Engine, Error, Instance, Module, Store};

const WAT: &str = r#"(module (func (export "inc") (param i32) (result i32) (i32.add (local.get 0) (i32.const 1))))"#;

/// The other architecture's triple and name, and this host's.
fn targets() -> ((&'static str, &'static str), (&'static str, &'static str)) {
    let arm = ("aarch64-unknown-linux-gnu", "aarch64");
    let x86 = ("x86_64-unknown-linux-gnu", "x86_64");
    if cfg!(target_arch = "aarch64") {
        (x86, arm)
    } else {
        (arm, x86)
    }
}

fn engine_for(triple: &str) -> Engine {
    let mut config = Config::new();
    config.target(triple).expect("a well-formed triple");
    Engine::new(&config).expect("both code generators are built in")
}

fn run_inc(engine: &Engine, module: &Module, x: i32) -> i32 {
    let mut store = Store::new(engine, ());
    let instance = Instance::new(&mut store, module, &[]).expect("instantiates");
    instance.get_typed_func::<i32, i32>(&mut store, "inc").expect("exported").call(&mut store, x).expect("runs")
}

#[test]
fn a_foreign_engine_writes_files_and_runs_nothing() {
    let ((triple, arch), (host_triple, host_arch)) = targets();
    let engine = engine_for(triple);
    assert!(!engine.runs_here());
    assert_eq!(engine.target().to_string(), triple);

    let err = Module::new(&engine, WAT).err().expect("no module of foreign code").to_string();
    assert!(err.contains(&format!("this engine compiles for {arch} ({triple})")), "{err}");
    assert!(err.contains("cannot run here"), "{err}");

    let file = engine.precompile_module(WAT.as_bytes()).expect("compiles for the target");
    assert!(Module::is_serialized(&file));
    // Not even the engine that made it loads it: the code is not for this CPU.
    // SAFETY: the bytes come from `precompile_module` (and are refused).
    let err = unsafe { Module::deserialize(&engine, &file) }.err().expect("refused").to_string();
    assert!(err.contains("cannot run here"), "{err}");

    // The host's engine, from memory and from a file, names both targets.
    let host = Engine::default();
    let expected = format!("it was compiled for {arch} ({triple}), this is {host_arch} ({host_triple})");
    // SAFETY: as above.
    let err = unsafe { Module::deserialize(&host, &file) }.err().expect("refused");
    assert!(matches!(err, Error::Invalid { .. }), "{err:?}");
    assert!(err.to_string().contains(&expected), "{err}");
    let path = std::env::temp_dir().join(format!("cranewasm-cross-{}.cwasm", std::process::id()));
    std::fs::write(&path, &file).expect("writes");
    // SAFETY: as above; the file is left alone until it is removed.
    let err = unsafe { Module::deserialize_file(&host, &path) }.err().expect("refused").to_string();
    std::fs::remove_file(&path).expect("removes");
    assert!(err.contains(&expected), "{err}");
}

#[test]
fn the_hosts_own_triple_is_its_baseline_cpu_and_runs() {
    let (_, (host_triple, _)) = targets();
    let baseline = engine_for(host_triple);
    assert!(baseline.runs_here());
    let module = Module::new(&baseline, WAT).expect("compiles");
    assert_eq!(run_inc(&baseline, &module, 41), 42);
    // A baseline file needs no CPU feature, so the host's native engine
    // (every feature this CPU has) loads it.
    let file = baseline.precompile_module(WAT.as_bytes()).expect("compiles");
    let native = Engine::default();
    // SAFETY: the bytes come from `precompile_module`.
    let loaded = unsafe { Module::deserialize(&native, &file) }.expect("a baseline file loads natively");
    assert_eq!(run_inc(&native, &loaded, -1), 0);
}

#[test]
fn bad_targets_are_refused_clearly() {
    let err = Config::new().target("bogus-thing").err().expect("not a triple").to_string();
    assert!(err.contains("\"bogus-thing\" is not a target triple"), "{err}");
    let mut config = Config::new();
    config.target("riscv64gc-unknown-linux-gnu").expect("well formed");
    let err = Engine::new(&config).err().expect("no riscv64 code generator here").to_string();
    assert!(err.contains("riscv64gc-unknown-linux-gnu") && err.contains("no code generator for it"), "{err}");
}
