//! The files of `../shared/spec/wasm-3.0` that do not pass yet, one line
//! each: (path under `../shared/spec`, reason). Every directive of a listed
//! file counts as skipped. Grouped by feature, in this order: memory64 and
//! table64, custom page sizes, wide arithmetic, function references,
//! exceptions, legacy exceptions, GC, other. Delete a line when its file
//! passes; the runner fails on a line naming no file of the suite.

pub const FILES: &[(&str, &str)] = &[
    // --- memory64 and table64 ---
    // --- custom page sizes ---
    // --- wide arithmetic ---
    // --- function references ---
    (
        "wasm-3.0/elem.wast",
        "3.0's global.get of a locally defined global in constant expressions, which wasmparser allows only with its \
         gc feature (2 directives)",
    ),
    (
        "wasm-3.0/global.wast",
        "3.0's global.get of a locally defined global in constant expressions, which wasmparser allows only with its \
         gc feature (8 directives)",
    ),
    ("wasm-3.0/type-equivalence.wast", "GC's recursive type groups (13 directives); the rest passes"),
    // --- exceptions ---
    ("wasm-3.0/tag.wast", "GC's recursive type groups in tag types (3 directives); the rest passes"),
    // --- legacy exceptions ---
    // --- GC ---
    ("wasm-3.0/array.wast", "GC: next issue"),
    ("wasm-3.0/array_copy.wast", "GC: next issue"),
    ("wasm-3.0/array_fill.wast", "GC: next issue"),
    ("wasm-3.0/array_init_data.wast", "GC: next issue"),
    ("wasm-3.0/array_init_elem.wast", "GC: next issue"),
    ("wasm-3.0/array_new_data.wast", "GC: next issue"),
    ("wasm-3.0/array_new_elem.wast", "GC: next issue"),
    ("wasm-3.0/br_on_cast.wast", "GC: next issue"),
    ("wasm-3.0/br_on_cast_fail.wast", "GC: next issue"),
    ("wasm-3.0/extern.wast", "GC: next issue"),
    ("wasm-3.0/i31.wast", "GC: next issue"),
    ("wasm-3.0/ref_cast.wast", "GC: next issue"),
    ("wasm-3.0/ref_eq.wast", "GC: next issue"),
    ("wasm-3.0/ref_null.wast", "GC: next issue"),
    ("wasm-3.0/ref_test.wast", "GC: next issue"),
    ("wasm-3.0/struct.wast", "GC: next issue"),
    ("wasm-3.0/type-canon.wast", "GC: next issue"),
    ("wasm-3.0/type-rec.wast", "GC: next issue"),
    ("wasm-3.0/type-subtyping.wast", "GC: next issue"),
    // --- other ---
    (
        "wasm-3.0/data.wast",
        "3.0's global.get of a locally defined global in constant expressions: wasmparser allows it only with its gc \
         feature",
    ),
    ("wasm-3.0/custom/branch_hint.wast", "custom annotations: the runner has no assert_malformed_custom yet"),
    ("wasm-3.0/custom/custom_annot.wast", "custom annotations: the runner has no assert_malformed_custom yet"),
    ("wasm-3.0/custom/name_annot.wast", "custom annotations: the runner has no assert_malformed_custom yet"),
];
