//! Every module the validator accepts, with the features we claim, must
//! compile under every code-generation setting: a valid module is never
//! refused with "unsupported". wasm-smith makes modules with SIMD (and
//! relaxed SIMD), threads, tail calls, multi-memory, extended constants,
//! bulk memory, reference types, memory64 (with table64), custom page
//! sizes and wide arithmetic; each is compiled eagerly and lazily
//! (forced), with guard pages and explicit bounds checks, with and
//! without inlining and Cranelift's optimiser.
//!
//! `CRANEWASM_FUZZ_SECONDS=N` adds N seconds of random seeds.

use std::time::{Duration, Instant};

use cranewasm::*;

/// The settings every module is compiled under.
fn configs() -> Vec<(&'static str, Config)> {
    let mut all = Vec::new();
    let mut add = |name: &'static str, f: &dyn Fn(&mut Config)| {
        let mut c = Config::new();
        c.parallel_compilation(false).lazy_compilation(false).bounds_checks(BoundsChecks::GuardPages);
        c.wasm_custom_page_sizes(true).wasm_wide_arithmetic(true);
        f(&mut c);
        all.push((name, c));
    };
    add("default", &|_| {});
    add("explicit bounds", &|c| {
        c.bounds_checks(BoundsChecks::Explicit);
    });
    add("no inlining", &|c| {
        c.cranelift_inlining(false);
    });
    add("no inlining, explicit", &|c| {
        c.cranelift_inlining(false).bounds_checks(BoundsChecks::Explicit);
    });
    add("unoptimised", &|c| {
        c.cranelift_optimize(false);
    });
    add("no analyses, no late passes", &|c| {
        c.module_analyses(false).widen_loads(false).loop_passes(false).address_steps(false).mul_consts(false);
    });
    add("fuel", &|c| {
        c.consume_fuel(true);
    });
    add("lazy", &|c| {
        c.lazy_compilation(true);
    });
    all
}

/// A module with the features we claim, from `seed`'s bytes.
fn module(seed: u64) -> Option<Vec<u8>> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let bytes: Vec<u8> = (0..4096)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect();
    let mut u = arbitrary::Unstructured::new(&bytes);
    let mut c: wasm_smith::Config = u.arbitrary().ok()?;
    // What we claim: WebAssembly 2.0 with SIMD, and the proposals below.
    c.simd_enabled = true;
    c.relaxed_simd_enabled = true;
    c.threads_enabled = true;
    c.tail_call_enabled = true;
    c.max_memories = c.max_memories.max(2);
    c.extended_const_enabled = true;
    c.bulk_memory_enabled = true;
    c.reference_types_enabled = true;
    c.saturating_float_to_int_enabled = true;
    c.sign_extension_ops_enabled = true;
    c.multi_value_enabled = true;
    c.memory64_enabled = true;
    c.custom_page_sizes_enabled = true;
    c.wide_arithmetic_enabled = true;
    // Not claimed yet.
    c.exceptions_enabled = false;
    c.gc_enabled = false;
    c.shared_everything_threads_enabled = false;
    c.compact_imports_enabled = false;
    c.custom_descriptors_enabled = false;
    c.acquire_release_atomics_enabled = false;
    c.multibyte_array_access_enabled = false;
    c.allow_invalid_funcs = false;
    c.max_funcs = c.max_funcs.min(30);
    c.max_instructions = c.max_instructions.min(1000);
    wasm_smith::Module::new(c, &mut u).ok().map(|m| m.to_bytes())
}

/// Compiles `wasm` under every setting; the first refusal of a valid
/// module, if any.
fn check(engines: &[(&str, Engine)], wasm: &[u8]) -> Result<bool, String> {
    let Some((_, first)) = engines.first() else { return Ok(false) };
    if Module::validate(first, wasm).is_err() {
        // wasm-smith made something our features do not accept: not a
        // valid module for us, so nothing to hold against the compiler.
        return Ok(false);
    }
    for (name, engine) in engines {
        if let Err(e) = Module::new(engine, wasm) {
            return Err(format!("{name}: {e}"));
        }
    }
    Ok(true)
}

#[test]
fn valid_modules_compile_under_every_setting() {
    let engines: Vec<(&str, Engine)> =
        configs().into_iter().map(|(name, c)| (name, Engine::new(&c).expect("engine"))).collect();
    let seconds = std::env::var("CRANEWASM_FUZZ_SECONDS").ok().map_or(0, |s| s.parse().expect("a number"));
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let (mut compiled, mut failures) = (0, Vec::new());
    let random_start = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64;
    let seeds = (0..600u64).chain((random_start..).take_while(|_| Instant::now() < deadline));
    for seed in seeds {
        let Some(wasm) = module(seed) else { continue };
        match check(&engines, &wasm) {
            Ok(true) => compiled += 1,
            Ok(false) => {}
            Err(e) => {
                let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-failures");
                let _ = std::fs::create_dir_all(&dir);
                let path = dir.join(format!("compile-{seed}.wasm"));
                let _ = std::fs::write(&path, &wasm);
                failures.push(format!("seed {seed}: {e} (saved to {})", path.display()));
            }
        }
    }
    eprintln!("fuzz_compile: {compiled} valid modules compiled under {} settings each", engines.len());
    assert!(failures.is_empty(), "{} valid modules refused:\n{}", failures.len(), failures.join("\n"));
    assert!(compiled > 300, "only {compiled} of the seeds gave valid modules");
}

/// The module behind "unsupported: relocation Abs8 to Func(func62)" (issue
/// 30, found in libsodium's AEGIS code): a small function, called once and
/// so inlined, makes a `call_indirect` of a signature too large for an
/// immediate id. The id was a symbol the linker filled in, and Cranelift's
/// inliner copies a callee's symbols without translating their names into
/// the caller's, so the inlined symbol named the caller's first callee.
/// The id is now loaded from the VMContext.
#[test]
fn an_inlined_call_indirect_of_a_large_signature_compiles_and_runs() {
    let wat = r#"(module
        (type $big (func (param i32 i32 i32 i32 i32 i32 i32 i32 i32) (result i32)))
        (type $other (func (param i32 i32 i32 i32 i32 i32 i32 i32 i64) (result i32)))
        (table (export "t") 2 funcref)
        (elem (i32.const 0) $target $wrong)
        (memory 1)
        (func $target (type $big) (local.get 8))
        (func $wrong (type $other) (i32.const -1))
        (func $callee (param i32 i32) (result i32)
            (v128.store (i32.const 0) (v128.const i32x4 1 2 3 4))
            (call_indirect (type $big) (i32.const 1) (i32.const 2) (i32.const 3) (i32.const 4) (i32.const 5)
                (i32.const 6) (i32.const 7) (i32.const 8) (local.get 0) (local.get 1)))
        (func (export "run") (param i32 i32) (result i32) (call $callee (local.get 0) (local.get 1))))"#;
    for (name, config) in configs() {
        let engine = Engine::new(&config).unwrap();
        let module = Module::new(&engine, wat).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut store = Store::new(&engine, ());
        let instance = Instance::new(&mut store, &module, &[]).unwrap();
        if config_uses_fuel(name) {
            store.set_fuel(1_000_000).unwrap();
        }
        let run = instance.get_func(&store, "run").unwrap().typed::<(i32, i32), i32>(&store).unwrap();
        assert_eq!(run.call(&mut store, (42, 0)).unwrap(), 42, "{name}");
        let trap = run.call(&mut store, (42, 1)).unwrap_err();
        assert_eq!(trap.code(), Some(Trap::BadSignature), "{name}");
    }
}

fn config_uses_fuel(name: &str) -> bool {
    name == "fuel"
}
