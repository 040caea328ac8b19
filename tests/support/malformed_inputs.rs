//! Inputs for malformed-input fuzzing, shared by `tests/fuzz_malformed.rs`
//! (the Rust API) and `capi/tests/fuzz_malformed.rs` (`wasm_module_new`):
//! every module of the spec suite, wasm-smith modules from every proposal,
//! their mutations, and random sections.
#![allow(dead_code)]

use std::path::Path;

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

/// Every module the spec suite encodes as binary (valid, invalid and
/// malformed ones alike), in a fixed order: the 2.0 core, and the 3.0
/// suite's memory64 and table64 files (`*64.wast`).
pub fn spec_modules() -> Vec<Vec<u8>> {
    // The suite sits beside the checkout, above whichever crate includes us.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .map(|a| a.join("../shared/spec/core"))
        .find(|d| d.is_dir())
        .expect("the spec suite in ../shared/spec/core");
    let wasm3 = dir.join("../wasm-3.0");
    let listing = |dir: &Path| {
        std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("spec suite at {}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "wast"))
            .collect::<Vec<_>>()
    };
    let mut files = listing(&dir);
    files.sort();
    let mut files64: Vec<_> = listing(&wasm3)
        .into_iter()
        .filter(|p| p.file_stem().is_some_and(|s| s.to_string_lossy().contains("64")))
        .collect();
    files64.sort();
    files.extend(files64);
    let mut modules = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
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
