//! Inputs for malformed-input fuzzing, shared by `tests/fuzz_malformed.rs`
//! (the Rust API) and `capi/tests/fuzz_malformed.rs` (`wasm_module_new`):
//! every module of the spec suite, wasm-smith modules from every proposal,
//! their mutations, and random sections.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x2545_f491_4f6c_dd1d | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

#[path = "legacy_try.rs"]
mod legacy_try;

/// The spec suite's folder, beside the checkout, above whichever crate
/// includes us.
fn spec_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .map(|a| a.join("../shared/spec"))
        .find(|d| d.join("core").is_dir())
        .expect("the spec suite in ../shared/spec/core")
}

/// The `.wast` files of `dir`, sorted.
fn wast_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("spec suite at {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wast"))
        .collect();
    files.sort();
    files
}

/// Every module the spec suite encodes as binary (valid, invalid and
/// malformed ones alike), in a fixed order: the 2.0 core, the 3.0 suite's
/// memory64 and table64 files (`*64.wast`), then [`wasm3_modules`].
pub fn spec_modules() -> Vec<Vec<u8>> {
    let spec = spec_dir();
    let mut files = wast_files(&spec.join("core"));
    files.extend(
        wast_files(&spec.join("wasm-3.0"))
            .into_iter()
            .filter(|p| p.file_stem().is_some_and(|s| s.to_string_lossy().contains("64"))),
    );
    let mut modules = modules_of(&files);
    modules.extend(wasm3_modules());
    modules
}

/// The 3.0 suite's files of exceptions (exnref and legacy) and typed
/// function references.
const WASM3_FILES: [&str; 14] = [
    "try_table",
    "throw",
    "throw_ref",
    "tag",
    "call_ref",
    "return_call_ref",
    "br_on_null",
    "br_on_non_null",
    "ref_as_non_null",
    "local_init",
    "legacy/rethrow",
    "legacy/throw",
    "legacy/try_catch",
    "legacy/try_delegate",
];

/// Every module of [`WASM3_FILES`], in that order. The legacy files write
/// `try` folded, which the `wast` crate does not read: they are unfolded
/// first, as the spec runner does.
pub fn wasm3_modules() -> Vec<Vec<u8>> {
    let dir = spec_dir().join("wasm-3.0");
    let files: Vec<_> = WASM3_FILES.iter().map(|f| dir.join(format!("{f}.wast"))).collect();
    let modules = modules_of(&files);
    // A file that stopped parsing would silently drop its modules.
    assert!(modules.len() >= 90, "only {} modules in the 3.0 exception and function-reference files", modules.len());
    modules
}

/// The binary modules of `files`' module, `assert_malformed` and
/// `assert_invalid` directives.
fn modules_of(files: &[PathBuf]) -> Vec<Vec<u8>> {
    let mut modules = Vec::new();
    for file in files {
        let mut text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        if file.parent().is_some_and(|d| d.ends_with("legacy")) {
            text = legacy_try::unfold(&text);
        }
        let Ok(buf) = wast::parser::ParseBuffer::new(&text) else { continue };
        let Ok(wast) = wast::parser::parse::<wast::Wast>(&buf) else { continue };
        for directive in wast.directives {
            use wast::WastDirective as D;
            let module = match directive {
                D::Module(m) | D::ModuleDefinition(m) => m,
                D::AssertMalformed { module, .. } | D::AssertInvalid { module, .. } => module,
                _ => continue,
            };
            let mut module = module;
            if let Ok(bytes) = module.encode() {
                modules.push(bytes);
            }
        }
    }
    modules
}

/// A wasm-smith module from every proposal it knows, so unsupported ones
/// get rejected cleanly too.
pub fn smith_module(seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let bytes: Vec<u8> = (0..500 + rng.below(8000)).map(|_| rng.next() as u8).collect();
    let mut u = arbitrary::Unstructured::new(&bytes);
    let mut config: wasm_smith::Config = u.arbitrary().unwrap_or_default();
    config.max_memory32_bytes = config.max_memory32_bytes.min(1 << 24);
    config.max_memory64_bytes = config.max_memory64_bytes.min(1 << 24);
    config.max_funcs = config.max_funcs.min(20);
    config.max_instructions = config.max_instructions.min(200);
    config.generate_custom_sections = rng.below(2) == 0;
    wasm_smith::Module::new(config, &mut u).map(|m| m.to_bytes()).unwrap_or_default()
}

/// Bytes that often matter to a decoder: LEB continuation bits, limits,
/// section ids, type codes, `end`.
const INTERESTING: [u8; 12] = [0x00, 0x01, 0x0b, 0x40, 0x60, 0x70, 0x7f, 0x80, 0xff, 0xfe, 0x0c, 0x41];

/// Applies one to four mutations, some structure-aware.
pub fn mutate(rng: &mut Rng, bytes: &mut Vec<u8>, donors: &[Vec<u8>]) {
    for _ in 0..1 + rng.below(4) {
        let len = bytes.len();
        let at = rng.below(len);
        match rng.below(9) {
            0 if len > 0 => bytes[at] ^= 1 << rng.below(8),
            1 if len > 0 => bytes[at] = rng.next() as u8,
            2 if len > 0 => bytes[at] = INTERESTING[rng.below(INTERESTING.len())],
            3 => {
                let n = 1 + rng.below(8);
                let insert: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                bytes.splice(at..at, insert);
            }
            4 if len > 0 => {
                let end = (at + 1 + rng.below(16)).min(len);
                bytes.drain(at..end);
            }
            5 if len > 0 => {
                let end = (at + 1 + rng.below(64)).min(len);
                let copy = bytes[at..end].to_vec();
                let to = rng.below(len);
                bytes.splice(to..to, copy);
            }
            6 => {
                // Splice in a piece of another module.
                let donor = &donors[rng.below(donors.len())];
                if !donor.is_empty() {
                    let from = rng.below(donor.len());
                    let end = (from + 1 + rng.below(128)).min(donor.len());
                    let cut = (at + rng.below(32)).min(len);
                    bytes.splice(at..cut, donor[from..end].iter().copied());
                }
            }
            7 if len > 0 => {
                // A huge LEB (a count or size claiming billions).
                let end = (at + 1).min(len);
                bytes.splice(at..end, [0xff, 0xff, 0xff, 0xff, 0x0f]);
            }
            _ => bytes.truncate(at),
        }
    }
}

/// Opcodes and type codes of exceptions and typed function references:
/// `try`, `catch`, `throw`, `rethrow`, `throw_ref`, `delegate`,
/// `catch_all`, `try_table`, `call_ref`, `return_call_ref`,
/// `ref.as_non_null`, `br_on_null`, `br_on_non_null`; `exnref`,
/// `(ref null $t)`, `(ref $t)`, `noexn`; and catch kinds 0-3.
const WASM3_CODES: [u8; 21] = [
    0x06, 0x07, 0x08, 0x09, 0x0a, 0x18, 0x19, 0x1f, 0x14, 0x15, 0xd4, 0xd5, 0xd6, 0x69, 0x63, 0x64, 0x74, 0x00, 0x01,
    0x02, 0x03,
];

/// One byte of `bytes` becomes a 3.0 opcode or type code, in place: the
/// sections keep their sizes, so the module often still decodes and the
/// change reaches the validator and the compiler.
pub fn mutate_wasm3_code(rng: &mut Rng, bytes: &mut [u8]) {
    if bytes.len() > 8 {
        let at = 8 + rng.below(bytes.len() - 8);
        bytes[at] = WASM3_CODES[rng.below(WASM3_CODES.len())];
    }
}

/// Random bytes after a valid header: section ids and sizes out of thin air.
pub fn random_module(rng: &mut Rng) -> Vec<u8> {
    let mut bytes = b"\0asm\x01\0\0\0".to_vec();
    for _ in 0..rng.below(6) {
        bytes.push(rng.below(14) as u8);
        let size = rng.below(40);
        bytes.push(size as u8);
        bytes.extend((0..size).map(|_| rng.next() as u8));
    }
    bytes
}

/// Inputs of one seed: a mutated spec module, a mutated wasm-smith module,
/// an unmutated wasm-smith module (exercising unsupported proposals), and
/// random sections.
pub fn inputs_of(seed: u64, spec: &[Vec<u8>]) -> Vec<(u64, Vec<u8>)> {
    let mut rng = Rng::new(seed);
    let mut from_spec = spec[rng.below(spec.len())].clone();
    mutate(&mut rng, &mut from_spec, spec);
    let smith = smith_module(seed);
    let mut from_smith = smith.clone();
    mutate(&mut rng, &mut from_smith, spec);
    vec![(seed, from_spec), (seed, from_smith), (seed, smith), (seed, random_module(&mut rng))]
}
