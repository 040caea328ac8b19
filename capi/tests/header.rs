//! The generated headers must be what cbindgen makes of the current
//! source: this test regenerates `include/wasm_c_api.h`,
//! `include/wasm_export.h`, `include/lib_export.h` and
//! `include/gc_export.h` in memory and fails
//! when a checked-in file differs. `CRANEWASM_BLESS=1` rewrites them
//! instead.
//!
//! One crate holds the functions of both APIs, so each header is made from
//! its own settings with the functions of the other headers left out
//! (the shared lists say which function belongs where).
//!
//! The vector functions come from a macro, so cbindgen must see the crate
//! with macros expanded. It does that with rustc's `-Zunpretty=expanded`,
//! which a stable toolchain only allows with `RUSTC_BOOTSTRAP=1`; the
//! variable is set for cbindgen's child `cargo` alone (this test's own
//! process compiles nothing).

mod common;

use std::path::Path;

/// Generates the header of `toml`, leaving out the functions `exclude`.
fn generate(crate_dir: &Path, toml: &str, exclude: &[String]) -> Vec<u8> {
    let mut config = cbindgen::Config::from_file(crate_dir.join(toml)).expect("the cbindgen settings parse");
    config.export.exclude.extend(exclude.iter().cloned());
    let bindings = cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header");
    let mut out = Vec::new();
    bindings.write(&mut out);
    out
}

#[test]
fn checked_in_headers_are_current() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    // A target directory of its own, kept between runs so that expansion
    // rebuilds only this crate.
    let expand_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cbindgen-expand");
    // SAFETY: this test binary has this one test, so no other thread reads
    // the environment concurrently.
    unsafe {
        std::env::set_var("RUSTC_BOOTSTRAP", "1");
        std::env::set_var("CARGO_EXPAND_TARGET_DIR", expand_dir);
    }
    let c_api = common::api_symbols();
    let mut export = common::export_symbols();
    export.push("wasm_runtime_call_wasm_v".into());
    // The wasm-c-api extensions.
    let ours: Vec<String> = [
        "cranewasm_wat2wasm",
        "cranewasm_config_set_feature",
        "cranewasm_memorytype_new_shared",
        "cranewasm_memorytype_is_shared",
        // capi/src/ext/
        "cranewasm_last_error",
        "cranewasm_last_error_clear",
        "cranewasm_engine_new_with_options",
        "cranewasm_engine_delete",
        "cranewasm_engine_increment_epoch",
        "cranewasm_store_set_fuel",
        "cranewasm_store_get_fuel",
        "cranewasm_store_set_epoch_deadline",
        "cranewasm_store_set_limits",
        "cranewasm_store_interrupt_handle",
        "cranewasm_interrupt_handle_interrupt",
        "cranewasm_interrupt_handle_delete",
        "cranewasm_trap_code",
        "cranewasm_trap_exit_status",
        "cranewasm_trap_frame_func_name",
        "cranewasm_trap_exception_payload",
        "cranewasm_tag_delete",
        "cranewasm_tag_copy",
        "cranewasm_tag_same",
        "cranewasm_instance_export_tag",
        "cranewasm_trap_exception_tag",
        "cranewasm_tag_type",
        "cranewasm_trap_new_exception",
        "cranewasm_module_set_wasi_readonly_dirs",
        "cranewasm_memorytype_new64",
        "cranewasm_memorytype_is64",
        "cranewasm_memorytype_limits64",
        "cranewasm_tabletype_new64",
        "cranewasm_tabletype_is64",
        "cranewasm_tabletype_limits64",
        "cranewasm_ref_gc_kind",
        "cranewasm_ref_i31_new",
        "cranewasm_ref_i31_get",
        "cranewasm_ref_type_index",
        "cranewasm_struct_new",
        "cranewasm_struct_field_count",
        "cranewasm_struct_field_type",
        "cranewasm_struct_get",
        "cranewasm_struct_set",
        "cranewasm_array_new",
        "cranewasm_array_len",
        "cranewasm_array_elem_type",
        "cranewasm_array_get",
        "cranewasm_array_set",
    ]
    .map(String::from)
    .to_vec();
    // WAMR's headers do not declare them either (its clients do).
    let undeclared = common::undeclared_symbols();
    let gc = common::gc_export_symbols();
    let headers = [
        ("wasm_c_api.h", "cbindgen.toml", [export.clone(), undeclared.clone(), gc.clone()].concat()),
        (
            "wasm_export.h",
            "cbindgen-export.toml",
            [c_api.clone(), ours.clone(), undeclared.clone(), gc.clone()].concat(),
        ),
        (
            "lib_export.h",
            "cbindgen-lib-export.toml",
            [c_api.clone(), export.clone(), ours.clone(), undeclared.clone(), gc].concat(),
        ),
        ("gc_export.h", "cbindgen-gc.toml", [c_api, export, ours, undeclared].concat()),
    ];
    let bless = std::env::var_os("CRANEWASM_BLESS").is_some();
    let mut stale = Vec::new();
    for (name, toml, exclude) in headers {
        let path = crate_dir.join("../include").join(name);
        let generated = generate(crate_dir, toml, &exclude);
        if bless {
            std::fs::write(&path, &generated).expect("write the header");
            continue;
        }
        let current = std::fs::read(&path).unwrap_or_default();
        if current != generated {
            let (current, generated) = (String::from_utf8_lossy(&current), String::from_utf8_lossy(&generated));
            let first = current.lines().zip(generated.lines()).position(|(a, b)| a != b);
            let line = first.map_or(current.lines().count().min(generated.lines().count()), |i| i) + 1;
            stale.push(format!("{} (first difference at line {line})", path.display()));
        }
    }
    assert!(
        stale.is_empty(),
        "stale headers: {}; regenerate them with CRANEWASM_BLESS=1 cargo test -p cranewasm-capi --test header",
        stale.join(", ")
    );
}
