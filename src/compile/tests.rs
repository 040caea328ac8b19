//! The compiler refuses valid operators of proposals it does not translate
//! with `Error::Unsupported`, not a panic or an `Invalid` error.
//!
//! Those proposals are off in `Config`, so through the public API the
//! validator rejects such modules first; here the module is validated with
//! the proposal on and handed to the compiler directly, as it will be the
//! day the proposal is switched on.

use wasmparser::WasmFeatures;

use super::compile_module;
use super::func_env::ModuleEnv;
use crate::environ::error::Error;
use crate::environ::parse;
use crate::environ::vmctx::VMOffsets;
use crate::runtime::engine::Engine;

/// Compiles `wat` with the default proposals plus `extra`.
fn compile(wat: &str, extra: WasmFeatures) -> Result<(), Error> {
    let engine = Engine::default();
    let bytes = wat::parse_str(wat).expect("test module parses");
    let parsed = parse::parse(&bytes, engine.config().wasm_features() | extra)?;
    let offsets = VMOffsets::new(&parsed.info);
    let env = ModuleEnv::new(engine.config(), engine.isa(), &parsed.info, &offsets);
    compile_module(engine.isa(), &env, parsed.bodies, false).map(|_| ())
}

#[test]
fn gc_operators_compile_and_need_the_gc_feature() {
    // Struct and array operators compile (issue 40 stage 2).
    let wat = "(module (type $s (struct (field i32))) (func (drop (struct.new $s (i32.const 7)))))";
    compile(wat, WasmFeatures::empty()).expect("struct.new compiles");
    let bytes = wat::parse_str(wat).unwrap();
    // With GC off, the validator rejects the module first.
    let engine = Engine::default();
    let off = engine.config().wasm_features() - WasmFeatures::GC;
    assert!(matches!(parse::parse(&bytes, off), Err(Error::Invalid { .. })));
    // Types alone, of every kind, in a recursion group with subtypes, compile.
    let types = r#"(module (rec (type $a (sub (struct (field (ref null $b)))))
        (type $b (sub final $a (struct (field (ref null $b)) (field (mut i16)))))
        (type $c (array (mut f64))))
        (func (param (ref null $a) (ref null $c)) (result structref) (local.get 0)))"#;
    compile(types, WasmFeatures::empty()).expect("GC types compile");
}

#[test]
fn exception_blocks_in_unreachable_code_keep_their_nesting() {
    // Dead code is only scanned for nesting, which `try_table` and the
    // legacy `try` (with `catch` making code live again, and `delegate`
    // ending it) change.
    let wat = r#"(module (tag $e) (func (result i32)
        unreachable
        try_table end
        try catch $e catch_all end
        try delegate 0
        i32.const 1))"#;
    compile(wat, WasmFeatures::EXCEPTIONS | WasmFeatures::LEGACY_EXCEPTIONS).expect("compiles");
    let live_catch = r#"(module (tag $e (param i32)) (func (result i32)
        try (result i32) unreachable catch $e end))"#;
    compile(live_catch, WasmFeatures::EXCEPTIONS | WasmFeatures::LEGACY_EXCEPTIONS).expect("compiles");
}

#[test]
fn unsupported_operators_in_unreachable_code_are_skipped() {
    // Code after `unreachable` is not translated, whatever it holds.
    let wat = r#"(module
        (func (result i64 i64) unreachable (i64.mul_wide_u (i64.const 1) (i64.const 2))))"#;
    compile(wat, WasmFeatures::WIDE_ARITHMETIC).expect("dead code is not translated");
}

#[test]
fn cranelift_version_is_the_workspaces() {
    // The version a compiled-code file records must be the one the
    // workspace builds with.
    let manifest = include_str!("../../Cargo.toml");
    let line =
        manifest.lines().find(|l| l.starts_with("cranelift-codegen =")).expect("cranelift-codegen in Cargo.toml");
    assert!(
        line.contains(&format!("version = \"{}\"", crate::cache::header::CRANELIFT_VERSION)),
        "CRANELIFT_VERSION is {}, Cargo.toml has {line}",
        crate::cache::header::CRANELIFT_VERSION
    );
}
