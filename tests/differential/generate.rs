//! Turning a seed into a module and call arguments, deterministically.

use wasm_smith::{Config, Module};

use super::model::{Ty, Value};

/// Fuel a generated module gets per call: every function entry and loop
/// iteration costs one (bulk operations cost their length), and it traps
/// with `unreachable` when the fuel is gone. It bounds both run time and
/// recursion depth, so neither runtime should ever run out of stack.
pub const FUEL: i32 = 1000;

/// Name under which the fuel global is exported.
pub const FUEL_EXPORT: &str = "__fuel";

/// A small deterministic generator, so every failure replays from its seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        // splitmix64 of the seed: nearby seeds give unrelated streams.
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Rng((z ^ (z >> 31)) | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Which proposals a generated module may use, after the oracle that runs
/// them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Features {
    /// WebAssembly 2.0, which wasmi runs.
    Wasm2,
    /// 2.0 plus exceptions, memory64/table64, wide arithmetic and custom
    /// page sizes, which wasmtime runs.
    Wasm3,
    /// `Wasm3` plus typed function references. wasm-smith has no switch
    /// for them apart from GC, so these modules are generated with GC on
    /// and without GC instructions, then rewritten without GC types
    /// (`without_gc.rs`).
    Wasm3FuncRefs,
    /// `Wasm3` plus GC, all of it: recursion groups, subtyping, struct and
    /// array types and operators, i31, casts.
    Wasm3Gc,
    /// `Wasm3Gc` with its struct and array operators made `unreachable`
    /// (the types stay; see `without_heap.rs`), so casts, i31, `ref.eq`
    /// and type equality get compared even where the GC heap is missing.
    Wasm3GcNoHeap,
}

impl Features {
    /// What a saved failing module's name carries after its seed.
    pub fn file_suffix(self) -> &'static str {
        match self {
            Features::Wasm2 => "",
            Features::Wasm3 => "-wasm3",
            Features::Wasm3FuncRefs => "-wasm3-funcrefs",
            Features::Wasm3Gc => "-wasm3-gc",
            Features::Wasm3GcNoHeap => "-wasm3-gc-noheap",
        }
    }

    /// Whether modules keep their GC types and instructions.
    pub fn gc(self) -> bool {
        matches!(self, Features::Wasm3Gc | Features::Wasm3GcNoHeap)
    }
}

/// The wasm-smith configuration: swarm-chosen from `u`, then held to what
/// both runtimes implement and to sizes that keep a run quick.
fn config(u: &mut arbitrary::Unstructured<'_>, features: Features) -> Config {
    let mut c: Config = u.arbitrary().unwrap_or_default();
    let wasm3 = features != Features::Wasm2;
    // Proposals the oracle does not run (or cranewasm lacks): wasmi has
    // none of 3.0's; wasmtime has all.
    c.exceptions_enabled = wasm3;
    c.gc_enabled = features == Features::Wasm3FuncRefs || features.gc();
    // wasm-smith turns GC off without reference types, which the swarm
    // choice leaves off in half the configurations.
    c.reference_types_enabled |= features.gc();
    // Threads (atomics, shared memories) stay off even single-threaded:
    // the oracle, wasmi 1.1, does not implement the proposal (its
    // validator rejects every atomic operator), so there is nothing to
    // compare with. tests/threads.rs and the spec folder cover them.
    c.threads_enabled = false;
    c.shared_everything_threads_enabled = false;
    c.memory64_enabled = wasm3;
    c.custom_page_sizes_enabled = wasm3;
    c.wide_arithmetic_enabled = wasm3;
    c.compact_imports_enabled = false;
    c.custom_descriptors_enabled = false;
    c.acquire_release_atomics_enabled = false;
    c.multibyte_array_access_enabled = false;
    // Relaxed SIMD is non-deterministic by design.
    c.relaxed_simd_enabled = false;
    // NaN bit patterns are not specified; canonicalising them after every
    // float operation makes results comparable.
    c.canonicalize_nans = true;
    c.allow_invalid_funcs = false;
    // Observe everything: every function, global, memory and table is
    // exported.
    c.export_everything = true;
    // Small memories and tables with a maximum, so growth stays cheap and
    // whole memories can be compared after every call.
    c.memory_max_size_required = true;
    c.max_memory32_bytes = c.max_memory32_bytes.min(8 << 16);
    c.max_memory64_bytes = c.max_memory64_bytes.min(8 << 16);
    c.table_max_size_required = true;
    c.max_table_elements = c.max_table_elements.min(1000);
    c.max_memories = c.max_memories.min(4);
    c.max_tables = c.max_tables.min(4);
    c.max_funcs = c.max_funcs.min(40);
    // Vector operators need two v128 operands at hand and compete with all
    // the scalar ones, so they are rare; every third module is about
    // vectors only (plus what moves values around).
    // GC modules are never vector-only: GC is what they are about.
    if u.arbitrary::<u8>().unwrap_or(0).is_multiple_of(3) && !features.gc() {
        use wasm_smith::InstructionKind as K;
        c.simd_enabled = true;
        c.allowed_instructions = wasm_smith::InstructionKinds::new(&[
            K::Vector,
            K::VectorInt,
            K::Variable,
            K::Parametric,
            K::Control,
            K::Memory,
        ]);
    } else if features.gc() || c.gc_enabled {
        // With GC profiles every kind (the swarm choice may have left out
        // what GC needs); otherwise, with GC on, everything but struct,
        // array and i31 instructions (`Aggregate`).
        use wasm_smith::InstructionKind as K;
        let mut kinds =
            vec![K::Numeric, K::Vector, K::Reference, K::Parametric, K::Variable, K::Table, K::Memory, K::Control];
        if features.gc() {
            kinds.push(K::Aggregate);
        }
        c.allowed_instructions = wasm_smith::InstructionKinds::new(&kinds);
    }
    c.max_instructions = c.max_instructions.min(400);
    c.max_imports = c.max_imports.min(20);
    c.max_exports = c.max_exports.min(100);
    c.max_data_segments = c.max_data_segments.min(20);
    c.max_element_segments = c.max_element_segments.min(20);
    c.max_elements = c.max_elements.min(100);
    c.max_globals = c.max_globals.min(50);
    c.max_types = c.max_types.min(50);
    // Swarm configurations often make one or two types, mostly functions:
    // GC modules get a few more, so that struct and array types, groups
    // and subtypes are common.
    let gc_types = if features.gc() { 6 } else { 0 };
    c.max_types = c.max_types.max(gc_types * 2);
    c.min_types = c.min_types.max(gc_types);
    c
}

/// The 2.0 module for `seed` (see `module_with`).
pub fn module(seed: u64) -> Vec<u8> {
    module_with(Features::Wasm2, seed)
}

/// Tries of a `Wasm3FuncRefs` seed for a module that validates without GC
/// once rewritten before it settles for one without typed references.
const GC_FREE_TRIES: usize = 100;

/// The module for `seed`, with fuel checks and the fuel global exported.
/// Modules without a function of their own (wasm-smith makes many, all
/// imports) are generated anew from the next bytes of the seed's stream,
/// and so are `Wasm3FuncRefs` modules that need GC, `Wasm3GcNoHeap`
/// ones that need the GC heap in a constant expression, and GC ones that import a function of a
/// type the harness cannot make (`model::host_funcs_makeable`); after
/// `GC_FREE_TRIES`, each takes what comes.
pub fn module_with(features: Features, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut tries = 0;
    loop {
        let len = 1000 + rng.below(30_000) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let mut u = arbitrary::Unstructured::new(&bytes);
        tries += 1;
        let wanted =
            if features == Features::Wasm3FuncRefs && tries > GC_FREE_TRIES { Features::Wasm3 } else { features };
        let config = config(&mut u, wanted);
        let mut module = Module::new(config, &mut u).expect("wasm-smith makes a module from any bytes");
        let fuel_global = module.ensure_termination(FUEL as u32).expect("generated code can be instrumented");
        let mut wasm = module.to_bytes();
        if wanted == Features::Wasm3FuncRefs {
            match super::without_gc::rewrite(&wasm) {
                Some(w) => wasm = w,
                None => continue,
            }
        }
        if wanted == Features::Wasm3GcNoHeap && tries <= GC_FREE_TRIES {
            match super::without_heap::rewrite(&wasm) {
                Some(w) => wasm = w,
                None => continue,
            }
        }
        // Not run (see `compare_with`), so not kept if another will do.
        if wanted.gc() && tries <= GC_FREE_TRIES && !super::model::host_funcs_makeable(&wasm) {
            continue;
        }
        if has_code(&wasm) {
            return export_global(&wasm, FUEL_EXPORT, fuel_global);
        }
    }
}

/// Whether the module has a struct or array operator, in code or in a
/// constant expression.
pub fn needs_gc_heap(wasm: &[u8]) -> bool {
    use wasmparser::{ElementItems, ElementKind, Payload};
    let heap_op = super::without_heap::is_heap_op;
    let expr = |e: &wasmparser::ConstExpr| e.get_operators_reader().into_iter().flatten().any(|op| heap_op(&op));
    wasmparser::Parser::new(0).parse_all(wasm).flatten().any(|payload| match payload {
        Payload::CodeSectionEntry(body) => {
            body.get_operators_reader().into_iter().flat_map(|r| r.into_iter()).flatten().any(|op| heap_op(&op))
        }
        Payload::GlobalSection(s) => s.into_iter().flatten().any(|g| expr(&g.init_expr)),
        Payload::ElementSection(s) => s.into_iter().flatten().any(|e| {
            let offset = matches!(&e.kind, ElementKind::Active { offset_expr, .. } if expr(offset_expr));
            let items = match e.items {
                ElementItems::Expressions(_, es) => es.into_iter().flatten().any(|e| expr(&e)),
                ElementItems::Functions(_) => false,
            };
            offset || items
        }),
        Payload::TableSection(s) => s.into_iter().flatten().any(|t| match &t.init {
            wasmparser::TableInit::Expr(e) => expr(e),
            wasmparser::TableInit::RefNull => false,
        }),
        _ => false,
    })
}

/// Whether the module defines a function.
fn has_code(wasm: &[u8]) -> bool {
    wasmparser::Parser::new(0)
        .parse_all(wasm)
        .any(|p| matches!(p, Ok(wasmparser::Payload::CodeSectionStart { count, .. }) if count > 0))
}

fn leb(mut x: u32, out: &mut Vec<u8>) {
    loop {
        let b = (x & 0x7f) as u8;
        x >>= 7;
        if x == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

fn read_leb(bytes: &[u8], at: &mut usize) -> u32 {
    let (mut x, mut shift) = (0u32, 0);
    loop {
        let b = bytes[*at];
        *at += 1;
        x |= ((b & 0x7f) as u32) << shift;
        shift += 7;
        if b & 0x80 == 0 {
            return x;
        }
    }
}

/// Adds an export of global `index` named `name` to a valid module: the
/// entry is appended to the export section, or a new export section is
/// placed where the binary format orders it.
pub fn export_global(wasm: &[u8], name: &str, index: u32) -> Vec<u8> {
    let mut entry = Vec::new();
    leb(name.len() as u32, &mut entry);
    entry.extend_from_slice(name.as_bytes());
    entry.push(0x03);
    leb(index, &mut entry);
    // A section of `count` existing entries (in `body`) plus ours.
    let section = |count: u32, body: &[u8]| {
        let mut contents = Vec::new();
        leb(count + 1, &mut contents);
        contents.extend_from_slice(body);
        contents.extend_from_slice(&entry);
        let mut s = vec![7u8];
        leb(contents.len() as u32, &mut s);
        s.extend(contents);
        s
    };
    // Section ids in binary order after the export section (7).
    const LATER: [u8; 5] = [8, 9, 12, 10, 11];
    let mut out = wasm[..8].to_vec();
    let mut at = 8;
    let mut done = false;
    while at < wasm.len() {
        let id = wasm[at];
        let mut p = at + 1;
        let size = read_leb(wasm, &mut p) as usize;
        let (start, end) = (p, p + size);
        if id == 7 {
            let mut q = start;
            let count = read_leb(wasm, &mut q);
            out.extend(section(count, &wasm[q..end]));
            done = true;
        } else {
            if !done && LATER.contains(&id) {
                out.extend(section(0, &[]));
                done = true;
            }
            out.extend_from_slice(&wasm[at..end]);
        }
        at = end;
    }
    if !done {
        out.extend(section(0, &[]));
    }
    out
}

/// An argument of type `ty`: often a boundary value, sometimes random.
pub fn arg(rng: &mut Rng, ty: Ty) -> Value {
    let pick = rng.below(4) == 0;
    match ty {
        Ty::I32 => Value::I32(if pick {
            [0, 1, -1, i32::MIN, i32::MAX, 0xffff, 0x10000, 65536 - 4][rng.below(8) as usize]
        } else {
            rng.next() as i32 >> rng.below(32)
        }),
        Ty::I64 => Value::I64(if pick {
            [0, 1, -1, i64::MIN, i64::MAX, 0xffff_ffff, 1 << 32][rng.below(7) as usize]
        } else {
            rng.next() as i64 >> rng.below(64)
        }),
        Ty::F32 => Value::F32(if pick {
            [0.0f32, -0.0, 1.0, -1.5, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 2147483648.0, 4294967296.0]
                [rng.below(9) as usize]
                .to_bits()
        } else {
            (rng.below(2_000_000) as f32 - 1_000_000.0).to_bits()
        }),
        Ty::F64 => Value::F64(if pick {
            [0.0f64, -0.0, 1.0, -1.5, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 9.3e18, -2147483649.0]
                [rng.below(9) as usize]
                .to_bits()
        } else {
            (rng.below(2_000_000) as f64 / 7.0 - 100_000.0).to_bits()
        }),
        Ty::V128 => Value::V128((rng.next() as u128) << 64 | rng.next() as u128),
        Ty::FuncRef => Value::FuncRef { null: true },
        Ty::ExternRef => Value::ExternRef((rng.below(3) != 0).then(|| rng.below(1000) as u32)),
        Ty::ExnRef => Value::ExnRef(None),
        // Null, or an i31 where the type has them: the harness makes no
        // objects (it would need the module's types in both runtimes).
        Ty::AnyRef { i31 } => Value::AnyRef((i31 && rng.below(3) != 0).then(|| {
            let v = if pick {
                [0, 1, 0x3fff_ffff, 0x4000_0000, 0x7fff_ffff][rng.below(5) as usize]
            } else {
                rng.next() as u32
            };
            super::model::AnyVal::I31(v & 0x7fff_ffff)
        })),
        Ty::NullOnly => Value::Null,
        Ty::NonNull => unreachable!("exports taking non-null references are not called"),
    }
}
