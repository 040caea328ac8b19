//! The compiled-code cache: `Module::serialize` and `Module::deserialize`
//! / `deserialize_file` give a module that behaves as the compiled one
//! (calls, `call_indirect` signature checks, data segments, traps with
//! their frames and names), also in another process, where the ids of
//! large signatures (more than 8 values, read from the VMContext; small
//! ones are immediates, the same everywhere) and helper addresses (relocated)
//! differ; and every file that does not match (cut,
//! bit-flipped, another format or runtime version, another engine
//! configuration, not a compiled module) is refused with the reason,
//! never run and never a crash. `fuzz_deserialize` tries thousands of
//! damaged files.

use std::path::PathBuf;

use cranewasm::*;

#[path = "support/self_exec.rs"]
mod self_exec;

const GUEST: &str = r#"(module $guest
    (type $ii (func (param i32) (result i32)))
    (type $v (func))
    (type $big (func (param i32 i32 i32 i32 i32 i32 i32 i32 i32) (result i32)))
    (import "host" "twice" (func $twice (type $ii)))
    (memory (export "mem") 1)
    (data (i32.const 16) "cached")
    (global $g (mut i32) (i32.const 7))
    (table $t 6 funcref)
    (elem (i32.const 0) $inc $dec $twice $nop $sum9)
    (func $inc (type $ii) (i32.add (local.get 0) (i32.const 1)))
    (func $dec (type $ii) (i32.sub (local.get 0) (i32.const 1)))
    (func $nop (type $v))
    (func $sum9 (type $big)
        (i32.add (local.get 0) (i32.add (local.get 4) (i32.mul (local.get 8) (i32.const 100)))))
    (func (export "dispatch") (param i32 i32) (result i32)
        (call_indirect $t (type $ii) (local.get 1) (local.get 0)))
    (func (export "dispatch_big") (param i32) (result i32)
        (call_indirect $t (type $big) (i32.const 1) (i32.const 2) (i32.const 3) (i32.const 4) (i32.const 5)
            (i32.const 6) (i32.const 7) (i32.const 8) (i32.const 9) (local.get 0)))
    (func (export "byte") (param i32) (result i32) (i32.load8_u (local.get 0)))
    (func (export "bump") (result i32) (global.set $g (i32.add (global.get $g) (i32.const 1))) (global.get $g))
    (func $deep (param i32) (result i32)
        (if (result i32) (local.get 0)
            (then (call $deep (i32.sub (local.get 0) (i32.const 1))))
            (else (i32.div_u (i32.const 1) (local.get 0)))))
    (func (export "fail") (result i32) (call $deep (i32.const 3)))
    (func (export "floor") (param f64) (result f64) (f64.floor (local.get 0))))"#;

fn instantiate(engine: &Engine, module: &Module) -> (Store<()>, Instance) {
    let mut store = Store::new(engine, ());
    let twice = Func::wrap(&mut store, |x: i32| x * 2);
    let instance = Instance::new(&mut store, module, &[twice.into()]).unwrap();
    (store, instance)
}

/// Everything the guest does, as text, so that two modules can be
/// compared in one assertion (and across processes).
fn behaviour(engine: &Engine, module: &Module) -> String {
    let (mut store, instance) = instantiate(engine, module);
    let dispatch = instance.get_func(&store, "dispatch").unwrap().typed::<(i32, i32), i32>(&store).unwrap();
    let byte = instance.get_func(&store, "byte").unwrap().typed::<i32, i32>(&store).unwrap();
    let bump = instance.get_func(&store, "bump").unwrap().typed::<(), i32>(&store).unwrap();
    let fail = instance.get_func(&store, "fail").unwrap().typed::<(), i32>(&store).unwrap();
    let floor = instance.get_func(&store, "floor").unwrap().typed::<f64, f64>(&store).unwrap();
    let dispatch_big = instance.get_func(&store, "dispatch_big").unwrap().typed::<i32, i32>(&store).unwrap();
    let mut out = Vec::new();
    let result = |r: Result<i32, TrapError>| match r {
        Ok(v) => v.to_string(),
        Err(t) => format!("trap {:?}", t.code()),
    };
    for slot in 0..7 {
        out.push(result(dispatch.call(&mut store, (slot, 10))));
        out.push(result(dispatch_big.call(&mut store, slot)));
    }
    out.push((16..22).map(|i| byte.call(&mut store, i).unwrap() as u8 as char).collect());
    out.push(format!("{} {}", bump.call(&mut store, ()).unwrap(), bump.call(&mut store, ()).unwrap()));
    let trap = fail.call(&mut store, ()).unwrap_err();
    let frames: Vec<String> =
        trap.frames().iter().map(|f| format!("{}@{:#x}:{:?}", f.func_index, f.module_offset, f.func_name)).collect();
    out.push(format!("{} {}", trap.message(), frames.join(",")));
    out.push(floor.call(&mut store, -2.5).unwrap().to_string());
    out.push(format!("{:?}", module.name()));
    out.join(" | ")
}

fn guest(engine: &Engine) -> Module {
    Module::new(engine, GUEST).unwrap()
}

#[path = "support/compiled_file.rs"]
mod compiled_file;
use compiled_file::{fix_checksum, refusal};

#[test]
fn a_deserialized_module_behaves_as_the_compiled_one() {
    let engine = Engine::default();
    let module = guest(&engine);
    let bytes = module.serialize().unwrap();
    // SAFETY: bytes this test's own engine just made.
    let loaded = unsafe { Module::deserialize(&engine, &bytes) }.unwrap();
    let expected = behaviour(&engine, &module);
    assert!(expected.contains("cached"), "{expected}");
    assert!(expected.contains("trap Some(BadSignature)"), "{expected}");
    assert!(expected.contains("trap Some(IndirectCallToNull)"), "{expected}");
    assert!(expected.contains("trap Some(UndefinedElement)"), "{expected}");
    assert!(expected.contains(" | 906 | "), "{expected}");
    assert!(expected.contains("Some(\"deep\")"), "{expected}");
    assert_eq!(behaviour(&engine, &loaded), expected);
    assert_eq!(loaded.imports().len(), 1);
    assert_eq!(
        loaded.exports().map(|e| e.name).collect::<Vec<_>>(),
        module.exports().map(|e| e.name).collect::<Vec<_>>()
    );
    // It serializes to the same file again.
    assert_eq!(loaded.serialize().unwrap(), bytes);
    // Another engine with the same settings takes it too.
    let other = Engine::default();
    // SAFETY: as above.
    let elsewhere = unsafe { Module::deserialize(&other, &bytes) }.unwrap();
    assert_eq!(behaviour(&other, &elsewhere), expected);
}

#[test]
fn a_file_is_mapped_and_runs() {
    let engine = Engine::default();
    let module = guest(&engine);
    let path = temp_file("mapped.cwasm");
    std::fs::write(&path, module.serialize().unwrap()).unwrap();
    // SAFETY: the file was just written from this engine's module and is
    // not changed while the module lives.
    let loaded = unsafe { Module::deserialize_file(&engine, &path) }.unwrap();
    assert_eq!(behaviour(&engine, &loaded), behaviour(&engine, &module));
    drop(loaded);
    std::fs::remove_file(&path).unwrap();
    // SAFETY: the file is gone: refused before anything runs.
    let missing = unsafe { Module::deserialize_file(&engine, &path) }.unwrap_err();
    assert!(missing.to_string().contains("cannot read"), "{missing}");
}

const CHILD_FILE: &str = "CRANEWASM_TEST_CACHE_FILE";

/// Run by `loads_in_another_process` in a child process: loads the file,
/// prints the guest's behaviour.
#[test]
#[ignore = "run in a child process by loads_in_another_process"]
fn child_loads_the_file() {
    let Ok(path) = std::env::var(CHILD_FILE) else { return };
    // Intern signatures the parent never made, so that ids surely differ.
    for n in 0..50 {
        FuncType::new(vec![ValType::I64; n], [ValType::F32]);
    }
    let engine = Engine::default();
    // SAFETY: the parent wrote the file for this test.
    let module = unsafe { Module::deserialize_file(&engine, &path) }.unwrap();
    println!("behaviour: {}", behaviour(&engine, &module));
}

#[test]
fn loads_in_another_process() {
    let engine = Engine::default();
    let module = guest(&engine);
    let path = temp_file("child.cwasm");
    std::fs::write(&path, module.serialize().unwrap()).unwrap();
    let out = self_exec::self_command()
        .args(["--exact", "child_loads_the_file", "--ignored", "--nocapture"])
        .env(CHILD_FILE, &path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let line = stdout.lines().find_map(|l| l.strip_prefix("behaviour: ")).expect("the child's report");
    assert_eq!(line, behaviour(&engine, &module));
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn mismatched_files_are_refused_with_the_reason() {
    let engine = Engine::default();
    let bytes = guest(&engine).serialize().unwrap();

    assert!(refusal(&engine, b"").contains("no magic number"));
    assert!(refusal(&engine, b"certainly not a module").contains("no magic number"));
    let wasm = wat::parse_str(GUEST).unwrap();
    assert!(refusal(&engine, &wasm).contains("WebAssembly binary, not a compiled module"));

    let mut version = bytes.clone();
    version[8] += 1;
    let current = Module::SERIALIZED_FORMAT_VERSION;
    let expected = format!("format version is {}, this runtime reads version {current}", current + 1);
    assert!(refusal(&engine, &version).contains(&expected), "{}", refusal(&engine, &version));

    assert!(refusal(&engine, &bytes[..bytes.len() - 1]).contains("truncated"));
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(refusal(&engine, &longer).contains("truncated or extended"));

    let mut flipped = bytes.clone();
    flipped[bytes.len() / 2] ^= 4;
    assert!(refusal(&engine, &flipped).contains("checksum"));

    // Another runtime version, with a checksum that matches.
    let mut other_version = bytes.clone();
    let at = find(&other_version, env!("CARGO_PKG_VERSION").as_bytes());
    other_version[at] = b'9';
    fix_checksum(&mut other_version);
    let why = refusal(&engine, &other_version);
    assert!(why.contains(&format!("cranewasm = 9{}", &env!("CARGO_PKG_VERSION")[1..])), "{why}");

    // A CPU feature this host lacks: the file claims to need one.
    #[cfg(target_arch = "x86_64")]
    let (flag, present) = ("has_avx512vbmi", std::is_x86_feature_detected!("avx512vbmi"));
    #[cfg(target_arch = "aarch64")]
    let (flag, present) = ("has_pauth", std::arch::is_aarch64_feature_detected!("paca"));
    let mut cpu = bytes.clone();
    let key = format!("cpu.{flag}");
    if let Some(at) = find_opt(&cpu, key.as_bytes()) {
        let value = at + key.len() + 4;
        if cpu[value] == b'0' && !present {
            cpu[value] = b'1';
            fix_checksum(&mut cpu);
            let why = refusal(&engine, &cpu);
            assert!(why.contains(&format!("needs the CPU feature {flag}")), "{why}");
        }
    }

    // Engines whose code differs.
    let mut config = Config::new();
    config.bounds_checks(BoundsChecks::Explicit);
    let why = refusal(&Engine::new(&config).unwrap(), &bytes);
    assert!(why.contains("bounds checks = guard-pages, this engine has explicit"), "{why}");
    let mut config = Config::new();
    config.consume_fuel(true);
    assert!(refusal(&Engine::new(&config).unwrap(), &bytes).contains("fuel = false, this engine has true"));
    let mut config = Config::new();
    config.cranelift_optimize(false);
    assert!(refusal(&Engine::new(&config).unwrap(), &bytes).contains("cranelift.opt_level"));
    let mut config = Config::new();
    config.wasm_tail_call(false);
    assert!(refusal(&Engine::new(&config).unwrap(), &bytes).contains("wasm features"));
    // Settings that do not change code do not matter.
    let mut config = Config::new();
    config.max_wasm_stack(64 << 10).epoch_interruption(true).memory_pool_capacity(0);
    // SAFETY: made by this test from this module.
    assert!(unsafe { Module::deserialize(&Engine::new(&config).unwrap(), &bytes) }.is_ok());
}

/// Damaged files by the thousand: cut anywhere, bits flipped anywhere,
/// and (with a checksum recomputed to match) bytes changed in the
/// header and metadata, where the loader must catch what does not hold
/// together. None may be accepted when the checksum does not match, and
/// none may crash the loader.
#[test]
fn fuzz_deserialize() {
    let engine = Engine::default();
    let bytes = guest(&engine).serialize().unwrap();
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |n: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n as u64) as usize
    };
    let (mut cut, mut flipped, mut patched, mut patched_ok) = (0, 0, 0, 0);
    for len in 0..bytes.len() {
        if len < 64 || len % 7 == 0 {
            refusal(&engine, &bytes[..len]);
            cut += 1;
        }
    }
    for _ in 0..3000 {
        let mut b = bytes.clone();
        let bit = next(b.len() * 8);
        b[bit / 8] ^= 1 << (bit % 8);
        refusal(&engine, &b);
        flipped += 1;
    }
    // The header, compatibility values and metadata come before the
    // module's binary; the code itself is trusted and not changed here.
    let meta_end = find(&bytes, b"\0asm");
    for _ in 0..3000 {
        let mut b = bytes.clone();
        for _ in 0..1 + next(3) {
            let at = 8 + next(meta_end - 8);
            b[at] = match next(3) {
                0 => b[at] ^ (1 << next(8)),
                1 => 0xff,
                _ => next(256) as u8,
            };
        }
        fix_checksum(&mut b);
        // SAFETY: loaded and dropped, never instantiated or called.
        if unsafe { Module::deserialize(&engine, &b) }.is_ok() {
            patched_ok += 1;
        }
        patched += 1;
    }
    println!(
        "fuzz_deserialize: {cut} cut, {flipped} bit-flipped (all refused), {patched} changed with a matching \
         checksum ({patched_ok} still loadable, none crashed)"
    );
}

fn find_opt(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn find(haystack: &[u8], needle: &[u8]) -> usize {
    find_opt(haystack, needle).expect("present")
}

fn temp_file(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    dir.join(format!("{}-{name}", std::process::id()))
}
