//! Malformed-input fuzzing through the C API: the inputs of
//! `tests/fuzz_malformed.rs` (every spec-suite module, mutated spec-suite and
//! wasm-smith modules, random sections) into `wasm_module_validate` and
//! `wasm_module_new`.
//!
//! For every input: no crash (a panic cannot unwind out of a C function, so
//! one aborts this test); `validate` and `new` agree with each other and with
//! the Rust API's `Module::validate`. Over a third pass of the same inputs,
//! glibc's count of heap bytes in use and the number of memory mappings stay
//! flat: modules rejected or deleted through the C API leave nothing behind.
//!
//! The passes run in a child process (this test binary again, with
//! `--nocapture`): under the test harness's output capture, the C API's
//! diagnostic line for every rejected module would pile up in a buffer on
//! the very heap being measured.

#[path = "../../tests/support/malformed_inputs.rs"]
mod inputs;

mod common;

use common::hm;
use iwasm::c_api::engine::*;
use iwasm::c_api::module::*;
use iwasm::c_api::store::*;
use iwasm::c_api::vec::*;
use iwasm::wasm_store_t;

/// Seeds of the mutated inputs (four inputs each).
const SEEDS: std::ops::Range<u64> = 0..3000;

/// Heap bytes in use, over all of glibc's arenas (Rust's allocator and the
/// C API's vectors both allocate there).
fn heap_in_use() -> usize {
    // SAFETY: mallinfo2 only reads the allocator's statistics.
    unsafe { libc::mallinfo2() }.uordblks
}

fn mappings() -> usize {
    std::fs::read_to_string("/proc/self/maps").expect("/proc/self/maps").lines().count()
}

/// Whether the C API accepts `bytes`, after checking that its two entry
/// points and the Rust API agree.
///
/// # Safety
/// `store` is a live store.
unsafe fn accepted(store: *mut wasm_store_t, engine: &cranewasm::Engine, bytes: &[u8]) -> Result<bool, String> {
    // SAFETY: as the caller promises (see the function).
    unsafe {
        // SAFETY: the all-zero vector is the empty one.
        let mut vec: wasm_byte_vec_t = std::mem::zeroed();
        wasm_byte_vec_new(&mut vec, bytes.len(), bytes.as_ptr().cast());
        let valid = wasm_module_validate(hm(store), Some(&vec));
        let module = wasm_module_new(hm(store), Some(&vec));
        wasm_byte_vec_delete(&mut vec);
        let compiled = !module.is_null();
        if compiled {
            wasm_module_delete(module);
        }
        let rust = cranewasm::Module::validate(engine, bytes).is_ok();
        if valid != compiled || valid != rust {
            return Err(format!("wasm_module_validate {valid}, wasm_module_new {compiled}, Module::validate {rust}"));
        }
        Ok(valid)
    }
}

#[derive(Default, Debug)]
struct Counts {
    accepted: usize,
    rejected: usize,
}

const CHILD: &str = "CRANEWASM_CAPI_FUZZ_CHILD";

#[test]
fn malformed_modules_through_the_c_api_never_crash_disagree_or_leak() {
    if std::env::var_os(CHILD).is_some() {
        return fuzz();
    }
    let name = "malformed_modules_through_the_c_api_never_crash_disagree_or_leak";
    let out = std::process::Command::new(std::env::current_exe().expect("test executable"))
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .output()
        .expect("run the test binary again");
    // Everything but the diagnostics of rejected modules.
    for line in String::from_utf8_lossy(&out.stderr).lines().chain(String::from_utf8_lossy(&out.stdout).lines()) {
        if !line.starts_with("[cranewasm]") {
            eprintln!("{line}");
        }
    }
    assert!(out.status.success(), "the fuzzing child failed: {}", out.status);
}

fn fuzz() {
    let spec = inputs::spec_modules();
    assert!(spec.len() > 1000, "only {} spec modules found", spec.len());
    let mut all: Vec<(u64, Vec<u8>)> = spec.iter().cloned().enumerate().map(|(i, m)| (i as u64, m)).collect();
    all.extend(SEEDS.flat_map(|seed| inputs::inputs_of(seed, &spec)));
    drop(spec);
    let engine = cranewasm::Engine::default();
    // SAFETY: the store lives from here to the end of the test.
    unsafe {
        let c_engine = wasm_engine_new();
        let store = wasm_store_new(hm(c_engine));
        let pass = |counts: &mut Counts| {
            let mut failures = Vec::new();
            for (seed, bytes) in &all {
                match accepted(store, &engine, bytes) {
                    Ok(true) => counts.accepted += 1,
                    Ok(false) => counts.rejected += 1,
                    Err(e) => failures.push(format!("input of seed {seed} ({} bytes): {e}", bytes.len())),
                }
            }
            assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
        };
        // The first passes leave what a first sight keeps for good (interned
        // signatures, per-thread state) and fill structures that grow in
        // steps up to a bound, such as the live-object table's queue of
        // 16384 quarantined cells (each accepted module is two C objects
        // since wasm_export.h rides along). Measured: one 128 KiB step in
        // the second pass, under 1 KiB in the third. Any growth over the
        // third is a leak.
        let mut first = Counts::default();
        pass(&mut first);
        pass(&mut Counts::default());
        let (heap_before, maps_before) = (heap_in_use(), mappings());
        let mut second = Counts::default();
        pass(&mut second);
        let heap_growth = heap_in_use() as i64 - heap_before as i64;
        let maps_growth = mappings() as i64 - maps_before as i64;
        wasm_store_delete(hm(store));
        wasm_engine_delete(hm(c_engine));
        eprintln!(
            "C API malformed: {} inputs per pass, {first:?}; third pass heap {heap_growth:+} bytes, mappings {maps_growth:+}",
            all.len()
        );
        assert!(first.rejected > all.len() / 4 && first.accepted > all.len() / 20, "{first:?}");
        assert_eq!((first.accepted, first.rejected), (second.accepted, second.rejected), "passes disagree");
        // Slack for the allocator's per-thread bookkeeping (compilation
        // threads come and go: a few kilobytes either way); one lost object
        // per accepted input alone would be over 90 KiB.
        assert!(heap_growth <= 64 << 10, "heap grew by {heap_growth} bytes re-running inputs already seen");
        assert!(maps_growth <= 0, "{maps_growth} more memory mappings after the third pass");
    }
}
