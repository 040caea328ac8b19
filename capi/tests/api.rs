//! Behaviour of the C layer that ABI.md promises, exercised through the
//! exported functions themselves (as a C client would call them).

mod common;

use common::{hc, hm};
use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};

use iwasm::c_api::config::*;
use iwasm::c_api::engine::*;
use iwasm::c_api::extern_::*;
use iwasm::c_api::frame::*;
use iwasm::c_api::func::*;
use iwasm::c_api::global::*;
use iwasm::c_api::import_export::*;
use iwasm::c_api::instance::*;
use iwasm::c_api::memory::*;
use iwasm::c_api::module::*;
use iwasm::c_api::ref_::*;
use iwasm::c_api::store::*;
use iwasm::c_api::table::*;
use iwasm::c_api::trap::*;
use iwasm::c_api::types::*;
use iwasm::c_api::val::*;
use iwasm::c_api::vec::*;
use iwasm::*;

fn empty_vec<T>() -> T {
    // SAFETY: every vector type is plain data whose all-zero value is the
    // empty vector.
    unsafe { std::mem::zeroed() }
}

fn bytes(v: &wasm_byte_vec_t) -> &[u8] {
    // SAFETY: a vector the runtime filled.
    unsafe { std::slice::from_raw_parts(v.data.cast(), v.size) }
}

/// A store of the process engine, with the module compiled from `wat`.
unsafe fn setup(wat: &str) -> (*mut wasm_engine_t, *mut wasm_store_t, *mut wasm_module_t) {
    // SAFETY: as the caller promises (see the function).
    unsafe {
        let engine = wasm_engine_new();
        let store = wasm_store_new(hm(engine));
        let mut binary = empty_vec::<wasm_byte_vec_t>();
        assert!(cranewasm_wat2wasm_for(wat, &mut binary));
        let module = wasm_module_new(hm(store), Some(&binary));
        wasm_byte_vec_delete(&mut binary);
        assert!(!module.is_null());
        (engine, store, module)
    }
}

unsafe fn cranewasm_wat2wasm_for(wat: &str, out: &mut wasm_byte_vec_t) -> bool {
    // SAFETY: as the caller promises (see the function).
    unsafe { iwasm::c_api::wat::cranewasm_wat2wasm(wat.as_ptr().cast(), wat.len(), out) }
}

unsafe fn message(t: *mut wasm_trap_t) -> Vec<u8> {
    // SAFETY: as the caller promises (see the function).
    unsafe {
        let mut m = empty_vec::<wasm_byte_vec_t>();
        wasm_trap_message(hc(t), &mut m);
        let out = bytes(&m).to_vec();
        wasm_byte_vec_delete(&mut m);
        out
    }
}

unsafe fn exports(i: *mut wasm_instance_t) -> Vec<*mut wasm_extern_t> {
    // SAFETY: as the caller promises (see the function).
    unsafe {
        let mut v = empty_vec::<wasm_extern_vec_t>();
        wasm_instance_exports(hc(i), &mut v);
        let out = std::slice::from_raw_parts(v.data, v.size).to_vec();
        // Free only the buffer: the objects stay with the store.
        libc::free(v.data.cast());
        out
    }
}

/// `wasm_functype_new_1_1` (an inline function of the header).
unsafe fn functype_1_1(param: u8, result: u8) -> *mut wasm_functype_t {
    // SAFETY: as the caller promises (see the function).
    unsafe {
        let (ps, rs) = ([wasm_valtype_new(param)], [wasm_valtype_new(result)]);
        let (mut pv, mut rv) = (empty_vec::<wasm_valtype_vec_t>(), empty_vec::<wasm_valtype_vec_t>());
        wasm_valtype_vec_new(&mut pv, 1, ps.as_ptr());
        wasm_valtype_vec_new(&mut rv, 1, rs.as_ptr());
        wasm_functype_new(&mut pv, &mut rv)
    }
}

fn i32_val(i: i32) -> wasm_val_t {
    wasm_val_t { kind: 0, _paddings: [0; 7], of: wasm_val_union { i32: i } }
}

#[test]
fn vectors_follow_the_abi() {
    unsafe {
        let mut v = empty_vec::<wasm_valtype_vec_t>();
        wasm_valtype_vec_new_uninitialized(&mut v, 3);
        assert_eq!((v.size, v.num_elems, v.size_of_elem), (3, 0, 8));
        assert!(std::slice::from_raw_parts(v.data, 3).iter().all(|p| p.is_null()));
        *v.data = wasm_valtype_new(1);
        *v.data.add(1) = wasm_valtype_new(129);
        let mut copy = empty_vec::<wasm_valtype_vec_t>();
        // As in WAMR, only the first `num_elems` elements are copied.
        wasm_valtype_vec_copy(&mut copy, &v);
        assert_eq!((copy.size, copy.num_elems), (3, 0));
        assert!(std::slice::from_raw_parts(copy.data, 3).iter().all(|p| p.is_null()), "none in use, none copied");
        wasm_valtype_vec_delete(&mut copy);
        v.num_elems = 2;
        wasm_valtype_vec_copy(&mut copy, &v);
        assert_eq!((copy.size, copy.num_elems), (3, 2));
        assert_ne!(*copy.data, *v.data, "a deep copy has its own elements");
        assert_eq!(wasm_valtype_kind(hc(*copy.data.add(1))), 129);
        assert!((*copy.data.add(2)).is_null());
        wasm_valtype_vec_delete(&mut v);
        assert!(v.data.is_null() && v.size == 0 && v.size_of_elem == 0);
        wasm_valtype_vec_delete(&mut v);
        wasm_valtype_vec_delete(&mut copy);

        let mut b = empty_vec::<wasm_byte_vec_t>();
        wasm_byte_vec_new(&mut b, 3, b"abc".as_ptr().cast());
        assert_eq!((b.size, b.num_elems, b.size_of_elem), (3, 3, 1));
        wasm_byte_vec_delete(&mut b);
        wasm_byte_vec_new_uninitialized(&mut b, 0);
        assert!(b.data.is_null() && b.size == 0 && b.size_of_elem == 0, "an empty vector is all zeros");
        assert!(wasm_valtype_new(7).is_null());
    }
}

#[test]
fn names_and_types_round_trip() {
    unsafe {
        let (engine, store, module) = setup(
            r#"(module (import "env" "f" (func (param i32) (result f64)))
                (import "env" "m" (memory 1))
                (global (export "g") (mut i64) (i64.const 0)) (table (export "t") 1 5 funcref))"#,
        );
        let mut imports = empty_vec::<wasm_importtype_vec_t>();
        wasm_module_imports(module, &mut imports);
        assert_eq!(imports.size, 2);
        let f = *imports.data;
        assert_eq!(bytes(&*wasm_importtype_module(hc(f))), b"env\0", "names carry a counted NUL");
        assert_eq!(bytes(&*wasm_importtype_name(hc(f))), b"f\0");
        let ft = wasm_externtype_as_functype_const(hc(wasm_importtype_type(hc(f))));
        assert_eq!(wasm_valtype_kind(hc(*(*wasm_functype_params(hc(ft))).data)), 0);
        assert_eq!(wasm_valtype_kind(hc(*(*wasm_functype_results(hc(ft))).data)), 3);
        let mt = wasm_externtype_as_memorytype_const(hc(wasm_importtype_type(hc(*imports.data.add(1)))));
        assert_eq!(*wasm_memorytype_limits(hc(mt)), wasm_limits_t { min: 1, max: u32::MAX });
        wasm_importtype_vec_delete(&mut imports);

        let mut exports = empty_vec::<wasm_exporttype_vec_t>();
        wasm_module_exports(module, &mut exports);
        let table = wasm_externtype_as_tabletype_const(hc(wasm_exporttype_type(hc(*exports.data.add(1)))));
        assert_eq!(*wasm_tabletype_limits(hc(table)), wasm_limits_t { min: 1, max: 5 });
        assert_eq!(wasm_valtype_kind(hc(wasm_tabletype_element(hc(table)))), 129);
        wasm_exporttype_vec_delete(&mut exports);

        // As in WAMR, names given come back byte for byte (with or
        // without a NUL); the type takes the buffer and leaves the
        // caller's struct as it was.
        for given in [&b"mod"[..], &b"mod\0"[..]] {
            let (mut m, mut n) = (empty_vec::<wasm_byte_vec_t>(), empty_vec::<wasm_byte_vec_t>());
            wasm_byte_vec_new(&mut m, given.len(), given.as_ptr().cast());
            wasm_byte_vec_new(&mut n, 1, b"x".as_ptr().cast());
            let it = wasm_importtype_new(
                &mut m,
                &mut n,
                hm(wasm_memorytype_as_externtype(hm(wasm_memorytype_new(Some(&wasm_limits_t { min: 0, max: 1 }))))),
            );
            assert_eq!(bytes(&*wasm_importtype_module(hc(it))), given);
            assert_eq!((*wasm_importtype_module(hc(it))).data, m.data, "the buffer moved, the struct stayed");
            wasm_importtype_delete(hm(it));
        }
        wasm_store_delete(hm(store));
        wasm_engine_delete(hm(engine));
    }
}

#[test]
fn bad_modules_are_refused() {
    unsafe {
        let engine = wasm_engine_new();
        let store = wasm_store_new(hm(engine));
        for bad in [&b""[..], b"(module)", b"\0asm\x02\0\0\0", b"\0asm\x01\0\0\0\x01\x05"] {
            let mut v = empty_vec::<wasm_byte_vec_t>();
            wasm_byte_vec_new(&mut v, bad.len(), bad.as_ptr().cast());
            assert!(wasm_module_new(hm(store), Some(&v)).is_null(), "{bad:?} is refused");
            assert!(!wasm_module_validate(hm(store), Some(&v)));
            wasm_byte_vec_delete(&mut v);
        }
        wasm_store_delete(hm(store));
        wasm_engine_delete(hm(engine));
    }
}

static HOST_CALLS: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn double_it(
    env: *mut c_void,
    args: *const wasm_val_vec_t,
    results: *mut wasm_val_vec_t,
) -> *mut wasm_trap_t {
    // SAFETY: as the caller promises (see the function).
    unsafe {
        let (args, results) = (&*args, &mut *results);
        assert_eq!((args.size, args.num_elems), (1, 1));
        assert_eq!((results.size, results.num_elems), (1, 0));
        assert_eq!((*results.data).of.i64, 0, "result slots start zeroed");
        HOST_CALLS.fetch_add(1, Ordering::SeqCst);
        let x = (*args.data).of.i32;
        if x == 13 {
            let text = b"thirteen";
            let mut m = empty_vec::<wasm_byte_vec_t>();
            wasm_byte_vec_new(&mut m, text.len(), text.as_ptr().cast());
            let t = wasm_trap_new(hm(env.cast()), Some(&m));
            wasm_byte_vec_delete(&mut m);
            return t;
        }
        (*results.data).of.i32 = x * 2;
        ptr::null_mut()
    }
}

static FINALIZED: AtomicUsize = AtomicUsize::new(0);
unsafe extern "C" fn count_finalize(_: *mut c_void) {
    FINALIZED.fetch_add(1, Ordering::SeqCst);
}

static INFO_FINALIZED: AtomicUsize = AtomicUsize::new(0);
unsafe extern "C" fn count_info(_: *mut c_void) {
    INFO_FINALIZED.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn calls_traps_and_host_functions() {
    unsafe {
        let (engine, store, module) = setup(
            r#"(module
                (import "env" "double" (func $double (param i32) (result i32)))
                (import "env" "gone" (func $gone))
                (func (export "run") (param i32) (result i32) (call $double (local.get 0)))
                (func (export "boom") unreachable)
                (func (export "gone") (call $gone))
                (func (export "swap") (param i64 f64) (result f64 i64) (local.get 1) (local.get 0)))"#,
        );
        let ty = functype_1_1(0, 0);
        let before = FINALIZED.load(Ordering::SeqCst);
        let double = wasm_func_new_with_env(hm(store), hc(ty), Some(double_it), store.cast(), Some(count_finalize));
        wasm_functype_delete(hm(ty));
        let mut given = [wasm_func_as_extern(hm(double))];
        let imports = wasm_extern_vec_t {
            size: 1,
            data: given.as_mut_ptr(),
            num_elems: 1,
            size_of_elem: 8,
            lock: ptr::null_mut(),
        };
        let mut trap = ptr::null_mut();
        let instance = wasm_instance_new(hm(store), module, Some(&imports), &mut trap);
        assert!(!instance.is_null() && trap.is_null());
        wasm_func_delete(hm(double));
        let ex = exports(instance);
        wasm_instance_delete(hm(instance));
        wasm_module_delete(module);
        let (run, boom, gone, swap) = (
            wasm_extern_as_func(hm(ex[0])),
            wasm_extern_as_func(hm(ex[1])),
            wasm_extern_as_func(hm(ex[2])),
            wasm_extern_as_func(hm(ex[3])),
        );

        let mut args = [i32_val(21)];
        let mut res = [wasm_val_t::ZERO; 1];
        let argv =
            wasm_val_vec_t { size: 1, data: args.as_mut_ptr(), num_elems: 1, size_of_elem: 16, lock: ptr::null_mut() };
        let mut resv =
            wasm_val_vec_t { size: 1, data: res.as_mut_ptr(), num_elems: 0, size_of_elem: 16, lock: ptr::null_mut() };
        assert!(
            wasm_func_call(hc(run), Some(&argv), Some(&mut resv)).is_null(),
            "the call works after the handles are deleted"
        );
        assert_eq!((res[0].kind, res[0].of.i32, resv.num_elems, resv.size), (0, 42, 1, 1));

        *argv.data = i32_val(13);
        let t = wasm_func_call(hc(run), Some(&argv), Some(&mut resv));
        assert_eq!(message(t), b"Exception: thirteen\0", "a host trap's message, as WAMR gives it");
        wasm_trap_delete(hm(t));

        let t = wasm_func_call(hc(boom), hc(ptr::null()), hm(ptr::null_mut()));
        assert_eq!(message(t), b"Exception: unreachable\0");
        let origin = wasm_trap_origin(hc(t));
        assert_eq!(wasm_frame_func_index(hc(origin)), 3, "two imports, then run, then boom");
        wasm_frame_delete(hm(origin));
        let mut trace = empty_vec::<wasm_frame_vec_t>();
        wasm_trap_trace(hc(t), &mut trace);
        assert_eq!(trace.size, 1);
        wasm_frame_vec_delete(&mut trace);
        wasm_trap_delete(hm(t));

        let t = wasm_func_call(hc(gone), hc(ptr::null()), hm(ptr::null_mut()));
        assert_eq!(message(t), b"Exception: failed to call unlinked import function (env, gone)\0");
        wasm_trap_delete(hm(t));

        // Wrong arity and wrong kinds are traps, not crashes.
        let t = wasm_func_call(hc(run), hc(ptr::null()), Some(&mut resv));
        assert!(String::from_utf8_lossy(&message(t)).contains("expected 1 arguments"));
        wasm_trap_delete(hm(t));
        (*argv.data).kind = 1;
        let t = wasm_func_call(hc(run), Some(&argv), Some(&mut resv));
        assert!(!t.is_null());
        wasm_trap_delete(hm(t));
        let t = wasm_func_call(hc(run), Some(&argv), hm(ptr::null_mut()));
        assert!(!t.is_null(), "no room for results");
        wasm_trap_delete(hm(t));

        let mut two = [
            wasm_val_t { kind: 1, _paddings: [0; 7], of: wasm_val_union { i64: -5 } },
            wasm_val_t { kind: 3, _paddings: [0; 7], of: wasm_val_union { f64: 2.5 } },
        ];
        let twov =
            wasm_val_vec_t { size: 2, data: two.as_mut_ptr(), num_elems: 2, size_of_elem: 16, lock: ptr::null_mut() };
        let mut out = [wasm_val_t::ZERO; 2];
        let mut outv =
            wasm_val_vec_t { size: 2, data: out.as_mut_ptr(), num_elems: 0, size_of_elem: 16, lock: ptr::null_mut() };
        assert!(wasm_func_call(hc(swap), Some(&twov), Some(&mut outv)).is_null());
        assert_eq!((out[0].kind, out[0].of.f64, out[1].kind, out[1].of.i64), (3, 2.5, 1, -5));

        assert_eq!(FINALIZED.load(Ordering::SeqCst), before, "the env lives as long as the store");
        wasm_store_delete(hm(store));
        assert_eq!(FINALIZED.load(Ordering::SeqCst), before + 1, "and is finalized once with it");
        wasm_engine_delete(hm(engine));
    }
}

unsafe extern "C" fn echo(args: *const wasm_val_vec_t, results: *mut wasm_val_vec_t) -> *mut wasm_trap_t {
    // SAFETY: as the caller promises (see the function).
    unsafe {
        wasm_val_copy((*results).data, hc((*args).data));
        ptr::null_mut()
    }
}

#[test]
fn references_keep_their_identity() {
    unsafe {
        let (engine, store, module) = setup(
            r#"(module
                (import "env" "echo" (func $echo (param externref) (result externref)))
                (global (export "g") (mut externref) (ref.null extern))
                (table (export "t") 2 funcref)
                (func (export "id") (param externref) (result externref) (call $echo (local.get 0)))
                (func (export "get") (result externref) (global.get 0)))"#,
        );
        let ty = functype_1_1(128, 128);
        let echo_f = wasm_func_new(hm(store), hc(ty), Some(echo));
        wasm_functype_delete(hm(ty));
        let mut given = [wasm_func_as_extern(hm(echo_f))];
        let imports = wasm_extern_vec_t {
            size: 1,
            data: given.as_mut_ptr(),
            num_elems: 1,
            size_of_elem: 8,
            lock: ptr::null_mut(),
        };
        let instance = wasm_instance_new(hm(store), module, Some(&imports), ptr::null_mut());
        let ex = exports(instance);
        let (global, table, id, get) = (
            wasm_extern_as_global(hm(ex[0])),
            wasm_extern_as_table(hm(ex[1])),
            wasm_extern_as_func(hm(ex[2])),
            wasm_extern_as_func(hm(ex[3])),
        );

        let host = wasm_foreign_as_ref(hm(wasm_foreign_new(hm(store))));
        wasm_ref_set_host_info(hm(host), 7 as *mut c_void);
        let mut arg = [wasm_val_t { kind: 128, _paddings: [0; 7], of: wasm_val_union { r#ref: host } }];
        let argv =
            wasm_val_vec_t { size: 1, data: arg.as_mut_ptr(), num_elems: 1, size_of_elem: 16, lock: ptr::null_mut() };
        let mut res = [wasm_val_t::ZERO];
        let mut resv =
            wasm_val_vec_t { size: 1, data: res.as_mut_ptr(), num_elems: 0, size_of_elem: 16, lock: ptr::null_mut() };
        assert!(wasm_func_call(hc(id), Some(&argv), Some(&mut resv)).is_null());
        assert_eq!((res[0].kind, res[0].ref_ptr()), (128, host), "the same pointer comes back");

        // Any host pointer, not only our objects, round-trips.
        wasm_global_set(
            hm(global),
            Some(&wasm_val_t { kind: 128, _paddings: [0; 7], of: wasm_val_union { r#ref: 0x1234 as *mut _ } }),
        );
        assert!(wasm_func_call(hc(get), hc(ptr::null()), Some(&mut resv)).is_null());
        assert_eq!(res[0].ref_ptr() as usize, 0x1234);
        let mut v = wasm_val_t::ZERO;
        wasm_global_get(hc(global), &mut v);
        assert_eq!((v.kind, v.ref_ptr() as usize), (128, 0x1234));

        assert!(wasm_table_get(hc(table), 0).is_null());
        assert!(wasm_table_set(hm(table), 1, wasm_func_as_ref(hm(id))));
        let got = wasm_table_get(hc(table), 1);
        assert!(wasm_ref_same(hc(got), hc(wasm_func_as_ref(hm(id)))) && got != wasm_func_as_ref(hm(id)));
        assert!(!wasm_ref_as_func(hm(got)).is_null() && wasm_ref_as_global(hm(got)).is_null());
        wasm_ref_delete(hm(got));
        assert!(!wasm_table_set(hm(table), 2, ptr::null_mut()), "out of bounds");
        assert!(wasm_table_grow(hm(table), 3, ptr::null_mut()));
        assert_eq!(wasm_table_size(hc(table)), 5);

        assert_eq!(wasm_ref_get_host_info(hc(host)) as usize, 7);
        wasm_store_delete(hm(store));
        wasm_engine_delete(hm(engine));
    }
}

#[test]
fn memories_globals_and_placeholders() {
    unsafe {
        let (engine, store, module) = setup(
            r#"(module (import "env" "g" (global i32)) (import "env" "f" (func (result i32)))
                (memory (export "m") 1 3)
                (func (export "read") (result i32) (global.get 0)))"#,
        );
        let placeholders = [wasm_extern_new_empty(hm(store), 1), wasm_extern_new_empty(hm(store), 0)];
        assert!(wasm_extern_new_empty(hm(store), 4).is_null());
        assert!(wasm_extern_new_empty(hm(store), 3).is_null(), "WAMR has function and global placeholders only");
        let mut given = placeholders;
        let imports = wasm_extern_vec_t {
            size: 2,
            data: given.as_mut_ptr(),
            num_elems: 2,
            size_of_elem: 8,
            lock: ptr::null_mut(),
        };
        // A global placeholder leaves the global unlinked: WAMR refuses.
        let mut trap = ptr::null_mut();
        assert!(wasm_instance_new(hm(store), module, Some(&imports), &mut trap).is_null());
        assert_eq!(
            message(trap),
            &b"wasm_instance_new_with_args_ex failed: WASM module instantiate failed: failed to link import global (env, g)\0"[..]
        );
        wasm_trap_delete(hm(trap));

        // A host global is not readable until an instance links it, and
        // takes an initial value of any kind (read at the type's width).
        let gt = wasm_globaltype_new(hm(wasm_valtype_new(0)), 1);
        let seven = wasm_val_t { kind: 1, _paddings: [0; 7], of: wasm_val_union { i64: 7 } };
        let g = wasm_global_new(hm(store), hc(gt), Some(&seven));
        wasm_globaltype_delete(hm(gt));
        let mut v = wasm_val_t::ZERO;
        v.kind = 9;
        wasm_global_get(hc(g), &mut v);
        assert_eq!(v.kind, 9, "unlinked: *out left alone");
        *imports.data = wasm_global_as_extern(hm(g));
        let instance = wasm_instance_new(hm(store), module, Some(&imports), ptr::null_mut());
        assert!(!instance.is_null());
        wasm_global_get(hc(g), &mut v);
        assert_eq!((v.kind, v.of.i32), (0, 7), "linked: the instance's global");
        assert_eq!(wasm_instance_sum_wasm_exec_time(hc(instance)), -1.0, "not profiling");
        let ex = exports(instance);
        let memory = wasm_extern_as_memory(hm(ex[0]));
        let data = wasm_memory_data(hm(memory));
        assert_eq!((wasm_memory_size(hc(memory)), wasm_memory_data_size(hc(memory))), (1, 65536));
        assert!(wasm_memory_grow(hm(memory), 2));
        assert!(!wasm_memory_grow(hm(memory), 1), "past the maximum");
        assert_eq!(wasm_memory_data(hm(memory)), data, "the base does not move");
        *data.add(3 * 65536 - 1) = 9;

        let t = wasm_func_call(
            hc(wasm_func_copy(hc(wasm_extern_as_func(hm(placeholders[1]))))),
            hc(ptr::null()),
            hm(ptr::null_mut()),
        );
        assert_eq!(message(t), b"failed to call unlinked function\0");

        // Set without checks, as in WAMR: the f32's bits go to the i32.
        wasm_global_set(hm(g), Some(&wasm_val_t { kind: 2, _paddings: [0; 7], of: wasm_val_union { f32: -4.0 } }));
        wasm_global_get(hc(g), &mut v);
        assert_eq!((v.kind, v.of.i32), (0, (-4.0f32).to_bits() as i32));

        // Host info finalizers of objects left to the store run with it.
        wasm_global_set_host_info_with_finalizer(hm(g), std::ptr::dangling_mut::<c_void>(), Some(count_info));
        wasm_trap_set_host_info_with_finalizer(hm(t), std::ptr::dangling_mut::<c_void>(), Some(count_info));
        wasm_store_delete(hm(store));
        assert_eq!(INFO_FINALIZED.load(Ordering::SeqCst), 2);
        wasm_engine_delete(hm(engine));
    }
}

#[test]
fn modules_move_between_threads() {
    unsafe {
        let (engine, store, module) = setup(r#"(module (func (export "seven") (result i32) (i32.const 7)))"#);
        let shared = wasm_module_share(module) as usize;
        wasm_module_delete(module);
        let engine_addr = engine as usize;
        let result = std::thread::spawn(move || {
            let store = wasm_store_new(hm(engine_addr as *mut wasm_engine_t));
            let module = wasm_module_obtain(hm(store), shared as *mut wasm_shared_module_t);
            let instance = wasm_instance_new(hm(store), module, hc(ptr::null()), ptr::null_mut());
            let f = wasm_extern_as_func(hm(exports(instance)[0]));
            let mut res = [wasm_val_t::ZERO];
            let mut resv = wasm_val_vec_t {
                size: 1,
                data: res.as_mut_ptr(),
                num_elems: 0,
                size_of_elem: 16,
                lock: ptr::null_mut(),
            };
            assert!(wasm_func_call(hc(f), hc(ptr::null()), Some(&mut resv)).is_null());
            wasm_store_delete(hm(store));
            res[0].of.i32
        })
        .join()
        .unwrap();
        assert_eq!(result, 7);
        let again = wasm_module_obtain(hm(store), shared as *mut _);
        assert!(wasm_module_set_name(again, c"named".as_ptr()));
        assert_eq!(std::ffi::CStr::from_ptr(wasm_module_get_name(again)), c"named");
        let mut ser = empty_vec::<wasm_byte_vec_t>();
        wasm_module_serialize(again, &mut ser);
        let back = wasm_module_deserialize(hm(store), Some(&ser));
        assert!(!back.is_null());
        wasm_byte_vec_delete(&mut ser);
        wasm_shared_module_delete(shared as *mut _);
        wasm_store_delete(hm(store));
        wasm_engine_delete(hm(engine));
    }
}

#[test]
fn engines_are_counted() {
    unsafe {
        let a = wasm_engine_new();
        let config = wasm_config_set_segue_flags(wasm_config_new(), 0x1f1f);
        let b = wasm_engine_new_with_config(config);
        wasm_config_delete(config);
        assert_eq!(a, b, "one engine per process");
        let s = wasm_store_new(hm(b));
        assert!(!s.is_null());
        wasm_store_delete(hm(s));
        wasm_engine_delete(hm(a));
        wasm_engine_delete(hm(b));
    }
}

/// An exception that leaves wasm is a trap with WAMR's message, whose
/// payload `cranewasm_trap_exception_payload` gives; a tag export, which
/// `wasm_c_api.h` has no kind for, is left out of the instance's exports.
#[test]
fn uncaught_exceptions_are_traps_with_wamrs_message() {
    unsafe {
        let (engine, store, module) = setup(
            r#"(module
                (tag $e (export "e") (param i32 f64))
                (func (export "throw") (throw $e (i32.const 1) (f64.const 2.5))))"#,
        );
        let mut trap = ptr::null_mut();
        let instance = wasm_instance_new(hm(store), module, None, &mut trap);
        assert!(!instance.is_null() && trap.is_null());
        let ex = exports(instance);
        assert_eq!(ex.len(), 1, "the tag is left out");
        let throw = wasm_extern_as_func(hm(ex[0]));
        let t = wasm_func_call(hc(throw), hc(ptr::null()), hm(ptr::null_mut()));
        assert!(!t.is_null());
        assert_eq!(message(t), b"Exception: uncaught wasm exception\0");
        let mut payload = std::mem::zeroed::<wasm_val_vec_t>();
        assert!(iwasm::ext::trap_info::cranewasm_trap_exception_payload(t, &mut payload));
        let values = std::slice::from_raw_parts(payload.data, payload.size);
        assert_eq!(values.len(), 2);
        // Kinds 0 and 3: WASM_I32, WASM_F64.
        assert_eq!((values[0].kind, values[0].of.i32, values[1].kind, values[1].of.f64), (0, 1, 3, 2.5));
        wasm_val_vec_delete(&mut payload);
        // Any other trap has none.
        let other = wasm_trap_new(hm(store), None);
        assert!(!iwasm::ext::trap_info::cranewasm_trap_exception_payload(other, &mut payload));
        assert_eq!(payload.size, 0);
        assert!(!iwasm::ext::trap_info::cranewasm_trap_exception_payload(ptr::null(), ptr::null_mut()));
        wasm_trap_delete(hm(other));
        wasm_trap_delete(hm(t));
        wasm_instance_delete(hm(instance));
        wasm_module_delete(module);
        wasm_store_delete(hm(store));
        wasm_engine_delete(hm(engine));
    }
}
