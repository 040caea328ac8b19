//! `wasm_instance_sum_wasm_exec_time` and `_get_wasm_func_exec_time`: -1
//! unless the engine was configured to profile, then the milliseconds spent
//! in calls to exported functions. The engine is one per process and keeps
//! its first configuration, so this test has a process of its own. The
//! same option makes the engine write perf's map file, as WAMR's does.

mod common;

use common::{hc, hm};
use std::ptr;

use iwasm::c_api::config::*;
use iwasm::c_api::engine::*;
use iwasm::c_api::func::*;
use iwasm::c_api::instance::*;
use iwasm::c_api::module::*;
use iwasm::c_api::store::*;
use iwasm::c_api::val::*;
use iwasm::c_api::vec::*;

const SPIN: &str = r#"(module
    (func (export "spin") (param i32) (result i32)
        (loop $l (local.set 0 (i32.sub (local.get 0) (i32.const 1))) (br_if $l (local.get 0)))
        (local.get 0))
    (func (export "idle")))"#;

#[test]
fn exec_time_is_measured_when_profiling() {
    unsafe {
        let config = wasm_config_set_linux_perf_opt(wasm_config_new(), true);
        let engine = wasm_engine_new_with_config(config);
        wasm_config_delete(config);
        let store = wasm_store_new(hm(engine));
        let mut binary: wasm_byte_vec_t = std::mem::zeroed();
        assert!(iwasm::c_api::wat::cranewasm_wat2wasm(SPIN.as_ptr().cast(), SPIN.len(), &mut binary));
        let module = wasm_module_new(hm(store), Some(&binary));
        wasm_byte_vec_delete(&mut binary);
        // As WAMR's, the engine wrote perf's map of the compiled functions.
        let map_path = format!("/tmp/perf-{}.map", std::process::id());
        let map = std::fs::read_to_string(&map_path).expect("a perf map");
        let _ = std::fs::remove_file(&map_path);
        assert!(map.lines().count() >= 2, "{map}");
        for line in map.lines() {
            let f: Vec<&str> = line.splitn(3, ' ').collect();
            assert!(f.len() == 3 && u64::from_str_radix(f[0], 16).is_ok() && u64::from_str_radix(f[1], 16).is_ok());
        }
        let instance = wasm_instance_new(hm(store), module, hc(ptr::null()), ptr::null_mut());
        assert!(!instance.is_null());
        assert_eq!(wasm_instance_sum_wasm_exec_time(hc(instance)), 0.0, "nothing ran yet");

        let mut exports: wasm_extern_vec_t = std::mem::zeroed();
        wasm_instance_exports(hc(instance), &mut exports);
        let spin = wasm_extern_as_func(hm(*exports.data));
        let mut args = [wasm_val_t { kind: 0, _paddings: [0; 7], of: wasm_val_union { i32: 50_000_000 } }];
        let argv =
            wasm_val_vec_t { size: 1, data: args.as_mut_ptr(), num_elems: 1, size_of_elem: 16, lock: ptr::null_mut() };
        let mut res = [wasm_val_t::ZERO];
        let mut resv =
            wasm_val_vec_t { size: 1, data: res.as_mut_ptr(), num_elems: 0, size_of_elem: 16, lock: ptr::null_mut() };
        assert!(wasm_func_call(hc(spin), Some(&argv), Some(&mut resv)).is_null());

        let spent = wasm_instance_get_wasm_func_exec_time(hc(instance), c"spin".as_ptr());
        assert!(spent > 0.0, "spin took {spent} ms");
        assert_eq!(wasm_instance_get_wasm_func_exec_time(hc(instance), c"idle".as_ptr()), 0.0);
        assert_eq!(wasm_instance_get_wasm_func_exec_time(hc(instance), c"nope".as_ptr()), 0.0);
        assert_eq!(wasm_instance_sum_wasm_exec_time(hc(instance)), spent);

        wasm_extern_vec_delete(&mut exports);
        wasm_store_delete(hm(store));
        wasm_engine_delete(hm(engine));
    }
}
