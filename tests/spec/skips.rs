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
    // --- exceptions ---
    // --- legacy exceptions ---
    // --- GC ---
    // --- other ---
];
