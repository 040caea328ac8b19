//! The runtime-only build (without the `compiler` feature; the test command
//! runs this with `--no-default-features --features wasi`): it loads and
//! runs files that a full build's `iwasm compile` made (host calls through
//! the trampolines the file carries, `call_indirect` signature checks, data,
//! traps with their frames), refuses WebAssembly bytes and everything else
//! that needs the compiler with an error naming the feature, and keeps the
//! cache's checks (damaged files, another engine configuration, CPU
//! features this host lacks, checked here without Cranelift).
//!
//! The compiled file comes from the full `iwasm` that `CRANEWASM_COMPILER`
//! names (tests/run-all.sh sets it to target/release/iwasm); without it the
//! tests fail rather than pass untested.
#![cfg(not(feature = "compiler"))]

use std::path::PathBuf;
use std::process::Command;

use cranewasm::*;

const GUEST: &str = r#"(module
    (type $ii (func (param i32) (result i32)))
    (import "host" "twice" (func $twice (type $ii)))
    (memory (export "mem") 1)
    (data (i32.const 16) "cached")
    (table $t 4 funcref)
    (elem (i32.const 0) $inc $twice)
    (func $inc (type $ii) (i32.add (local.get 0) (i32.const 1)))
    (func (export "dispatch") (param i32 i32) (result i32)
        (call_indirect $t (type $ii) (local.get 1) (local.get 0)))
    (table $ext (export "ext") 2 funcref)
    (func (export "dispatch_ext") (param i32 i32) (result i32)
        (call_indirect $ext (type $ii) (local.get 1) (local.get 0)))
    (func (export "byte") (param i32) (result i32) (i32.load8_u (local.get 0)))
    (func $deep (param i32) (result i32) (i32.div_u (i32.const 1) (local.get 0)))
    (func (export "fail") (result i32) (call $deep (i32.const 0))))"#;

/// `GUEST` compiled by the full build's `iwasm compile`, in a file.
fn compiled(name: &str) -> PathBuf {
    let iwasm = std::env::var("CRANEWASM_COMPILER")
        .expect("CRANEWASM_COMPILER must name a full build's iwasm (tests/run-all.sh sets it)");
    let dir = std::env::temp_dir().join(format!("cranewasm-runtime-only-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (wat, out) = (dir.join(format!("{name}.wat")), dir.join(format!("{name}.cwasm")));
    std::fs::write(&wat, GUEST).unwrap();
    let status = Command::new(&iwasm).arg("compile").arg(&wat).arg("-o").arg(&out).status().unwrap();
    assert!(status.success(), "{iwasm} compile failed");
    out
}

#[path = "support/compiled_file.rs"]
mod compiled_file;
use compiled_file::{fix_checksum, refusal};

#[test]
fn a_compiled_file_runs() {
    let path = compiled("runs");
    let engine = Engine::default();
    let bytes = std::fs::read(&path).unwrap();
    // SAFETY: made by this test's `iwasm compile`.
    let modules = [
        unsafe { Module::deserialize_file(&engine, &path) }.unwrap(),
        unsafe { Module::deserialize(&engine, &bytes) }.unwrap(),
    ];
    for module in &modules {
        let mut store = Store::new(&engine, ());
        let twice = Func::wrap(&mut store, |x: i32| x * 2);
        let instance = Instance::new(&mut store, module, &[twice.into()]).unwrap();
        let dispatch = instance.get_func(&store, "dispatch").unwrap().typed::<(i32, i32), i32>(&store).unwrap();
        assert_eq!(dispatch.call(&mut store, (0, 10)).unwrap(), 11);
        // The host function, called from wasm through the file's trampoline.
        assert_eq!(dispatch.call(&mut store, (1, 10)).unwrap(), 20);
        assert_eq!(dispatch.call(&mut store, (2, 10)).unwrap_err().code(), Some(Trap::IndirectCallToNull));
        let byte = instance.get_func(&store, "byte").unwrap().typed::<i32, i32>(&store).unwrap();
        assert_eq!(byte.call(&mut store, 16).unwrap(), i32::from(b'c'));
        let fail = instance.get_func(&store, "fail").unwrap().typed::<(), i32>(&store).unwrap();
        let trap = fail.call(&mut store, ()).unwrap_err();
        assert_eq!(trap.code(), Some(Trap::IntegerDivisionByZero));
        assert_eq!(trap.frames().len(), 2, "{trap}");
    }
    // Writing a file needs the compiler (its trampolines, its settings).
    assert!(modules[0].serialize().unwrap().is_empty());
}

/// Host functions made before any module of their type is loaded have no
/// wasm-to-host trampoline yet (and no compiler to make one): the host
/// calls them without one, and wasm, which can reach them only through a
/// type of a loaded module, finds the file's trampoline on the way
/// (`runtime::vm::late_exit`).
#[test]
fn host_functions_made_before_their_module_is_loaded() {
    let path = compiled("early");
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let twice = Func::wrap(&mut store, |x: i32| x * 2);
    let thrice = Func::wrap(&mut store, |x: i32| x * 3);
    // A type no module of this test declares.
    let other = Func::wrap(&mut store, |x: f64, y: i64| (x + y as f64) as f32);
    assert_eq!(thrice.typed::<i32, i32>(&store).unwrap().call(&mut store, 5).unwrap(), 15);
    assert_eq!(other.typed::<(f64, i64), f32>(&store).unwrap().call(&mut store, (1.5, 2)).unwrap(), 3.5);

    // SAFETY: made by this test's `iwasm compile`.
    let module = unsafe { Module::deserialize_file(&engine, &path) }.unwrap();
    // Imported: found at instantiation, so the import slot and the frozen
    // table `$t` hold the trampoline itself.
    let instance = Instance::new(&mut store, &module, &[twice.into()]).unwrap();
    let dispatch = instance.get_func(&store, "dispatch").unwrap().typed::<(i32, i32), i32>(&store).unwrap();
    assert_eq!(dispatch.call(&mut store, (1, 10)).unwrap(), 20);
    // Reached first through a table: found on the first call.
    let ext = instance.get_table(&store, "ext").unwrap();
    ext.set(&mut store, 0, Val::FuncRef(Some(thrice))).unwrap();
    ext.set(&mut store, 1, Val::FuncRef(Some(other))).unwrap();
    let dispatch_ext = instance.get_func(&store, "dispatch_ext").unwrap().typed::<(i32, i32), i32>(&store).unwrap();
    assert_eq!(dispatch_ext.call(&mut store, (0, 7)).unwrap(), 21);
    assert_eq!(dispatch_ext.call(&mut store, (0, 8)).unwrap(), 24);
    // The other type is never called from wasm: its signature check traps.
    assert_eq!(dispatch_ext.call(&mut store, (1, 7)).unwrap_err().code(), Some(Trap::BadSignature));
    assert_eq!(other.typed::<(f64, i64), f32>(&store).unwrap().call(&mut store, (0.5, 1)).unwrap(), 1.5);
}

#[test]
fn webassembly_bytes_are_refused_naming_the_feature() {
    let engine = Engine::default();
    let wasm = b"\0asm\x01\0\0\0";
    for why in [
        Module::new(&engine, wasm).err().expect("refused").to_string(),
        Module::validate(&engine, wasm).err().expect("refused").to_string(),
        Module::new(&engine, GUEST).err().expect("refused").to_string(),
    ] {
        assert!(why.contains("needs the `compiler` feature"), "{why}");
    }
    assert!(refusal(&engine, wasm).contains("WebAssembly binary, not a compiled module"));
}

#[test]
fn mismatched_files_are_refused() {
    let bytes = std::fs::read(compiled("refused")).unwrap();
    let engine = Engine::default();
    assert!(refusal(&engine, &bytes[..bytes.len() - 1]).contains("truncated"));
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 2] ^= 4;
    assert!(refusal(&engine, &flipped).contains("checksum"));
    let mut version = bytes.clone();
    version[8] += 1;
    assert!(refusal(&engine, &version).contains("format version"));
    let mut config = Config::new();
    config.bounds_checks(BoundsChecks::Explicit);
    let why = refusal(&Engine::new(&config).unwrap(), &bytes);
    assert!(why.contains("bounds checks = guard-pages, this engine has explicit"), "{why}");
    let mut config = Config::new();
    config.consume_fuel(true);
    assert!(refusal(&Engine::new(&config).unwrap(), &bytes).contains("fuel = false, this engine has true"));

    // CPU features: one the code needs and this CPU lacks, and one this
    // build cannot check, each with a checksum that matches.
    let claim = |name: &str| {
        let key = format!("cpu.has_{name}");
        let at = bytes.windows(key.len()).position(|w| w == key.as_bytes()).expect("the feature is recorded");
        let mut changed = bytes.clone();
        let value = at + key.len() + 4;
        changed[value] = b'1';
        fix_checksum(&mut changed);
        changed
    };
    if !std::is_x86_feature_detected!("avx512vbmi") {
        let why = refusal(&engine, &claim("avx512vbmi"));
        assert!(why.contains("needs the CPU feature has_avx512vbmi") && why.contains("lacks"), "{why}");
    }
    // APX, which Cranelift knows and std cannot detect yet.
    let why = refusal(&engine, &claim("apx"));
    assert!(why.contains("needs the CPU feature has_apx") && why.contains("cannot check"), "{why}");
    // Settings of the code generator are not compared (none to compare with).
    let mut config = Config::new();
    config.cranelift_optimize(false);
    // SAFETY: made by this test's `iwasm compile`.
    assert!(unsafe { Module::deserialize(&Engine::new(&config).unwrap(), &bytes) }.is_ok());
}
