//! v128 values through the embedding API: parameters and results of wasm
//! functions, of host functions called from wasm, and globals. Each check
//! compares every lane, so a swapped half or a lost slot shows.

use std::sync::{Arc, Mutex};

use cranewasm::*;

fn i32x4(lanes: [i32; 4]) -> Val {
    let mut bytes = [0u8; 16];
    for (i, l) in lanes.iter().enumerate() {
        bytes[4 * i..4 * i + 4].copy_from_slice(&l.to_le_bytes());
    }
    Val::V128(V128(u128::from_le_bytes(bytes)))
}

fn lanes_i32x4(v: &Val) -> [i32; 4] {
    let bytes = v.v128().expect("a v128 value").to_le_bytes();
    std::array::from_fn(|i| i32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap()))
}

fn lanes_i8x16(v: &Val) -> [u8; 16] {
    v.v128().expect("a v128 value").to_le_bytes()
}

#[test]
fn wasm_function_takes_and_returns_v128() {
    let engine = Engine::default();
    let module = Module::new(
        &engine,
        r#"(module
            (func (export "mix") (param v128 i32 v128) (result v128 i32 v128)
                (i32x4.add (local.get 0) (local.get 2))
                (i32.add (local.get 1) (i32x4.extract_lane 3 (local.get 0)))
                (i8x16.shuffle 15 14 13 12 11 10 9 8 7 6 5 4 3 2 1 0 (local.get 0) (local.get 2)))
            ;; More vectors than the calling convention has vector registers.
            (func (export "sum10")
                (param v128 v128 v128 v128 v128 v128 v128 v128 v128 v128) (result v128)
                (i32x4.add (i32x4.add (i32x4.add (i32x4.add (i32x4.add (i32x4.add (i32x4.add (i32x4.add (i32x4.add
                    (local.get 0) (local.get 1)) (local.get 2)) (local.get 3)) (local.get 4))
                    (local.get 5)) (local.get 6)) (local.get 7)) (local.get 8)) (local.get 9))))"#,
    )
    .unwrap();
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[]).unwrap();

    let mix = instance.get_func(&store, "mix").unwrap();
    let a = i32x4([1, -2, 0x7fff_ffff, 0x1234_5678]);
    let b = i32x4([10, 20, 1, -0x1234_5678]);
    let mut results = [Val::I32(0), Val::I32(0), Val::I32(0)];
    mix.call(&mut store, &[a, Val::I32(100), b], &mut results).unwrap();
    assert_eq!(lanes_i32x4(&results[0]), [11, 18, i32::MIN, 0]);
    assert_eq!(results[1].i32(), Some(100 + 0x1234_5678));
    let mut reversed = lanes_i8x16(&a);
    reversed.reverse();
    assert_eq!(lanes_i8x16(&results[2]), reversed);

    let sum10 = instance.get_func(&store, "sum10").unwrap();
    let args: Vec<Val> = (0..10).map(|i| i32x4([i, 100 * i, -i, 1 << i])).collect();
    let mut result = [Val::I32(0)];
    sum10.call(&mut store, &args, &mut result).unwrap();
    assert_eq!(lanes_i32x4(&result[0]), [45, 4500, -45, 1023]);
}

#[test]
fn host_function_takes_and_returns_v128() {
    let engine = Engine::default();
    let module = Module::new(
        &engine,
        r#"(module
            (import "host" "scale" (func $scale (param i32 v128) (result v128 i64)))
            (func (export "run") (param v128) (result v128 i64)
                (call $scale (i32.const 3) (local.get 0))))"#,
    )
    .unwrap();
    let mut store = Store::new(&engine, ());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    let scale = Func::new(
        &mut store,
        FuncType::new([ValType::I32, ValType::V128], [ValType::V128, ValType::I64]),
        move |_, params, results| {
            record.lock().unwrap().extend_from_slice(params);
            let k = params[0].i32().unwrap();
            let lanes = lanes_i32x4(&params[1]);
            results[0] = i32x4(lanes.map(|l| l.wrapping_mul(k)));
            results[1] = Val::I64(lanes.iter().map(|l| *l as i64).sum());
            Ok(())
        },
    );
    let instance = Instance::new(&mut store, &module, &[scale.into()]).unwrap();
    let run = instance.get_func(&store, "run").unwrap();
    let mut results = [Val::I32(0), Val::I32(0)];
    run.call(&mut store, &[i32x4([1, -7, 1 << 30, 5])], &mut results).unwrap();

    let seen = seen.lock().unwrap();
    assert_eq!(seen[0].i32(), Some(3));
    assert_eq!(lanes_i32x4(&seen[1]), [1, -7, 1 << 30, 5]);
    assert_eq!(lanes_i32x4(&results[0]), [3, -21, (3i32 << 30), 15]);
    assert_eq!(results[1].i64(), Some(1 - 7 + (1 << 30) + 5));
}

#[test]
fn v128_globals_get_and_set() {
    let engine = Engine::default();
    let module = Module::new(
        &engine,
        r#"(module
            (import "host" "imported" (global $imported (mut v128)))
            (global $own (export "own") (mut v128) (v128.const i32x4 1 2 3 4))
            (func (export "read_own") (result v128) (global.get $own))
            (func (export "read_imported") (result v128) (global.get $imported))
            (func (export "swap")
                (local $t v128)
                (local.set $t (global.get $own))
                (global.set $own (global.get $imported))
                (global.set $imported (local.get $t))))"#,
    )
    .unwrap();
    let mut store = Store::new(&engine, ());
    let imported =
        Global::new(&mut store, GlobalType::new(ValType::V128, Mutability::Var), i32x4([-1, -2, -3, -4])).unwrap();
    let instance = Instance::new(&mut store, &module, &[imported.into()]).unwrap();
    let own = instance.get_global(&store, "own").unwrap();
    let call = |store: &mut Store<()>, name: &str| -> Option<[i32; 4]> {
        let f = instance.get_func(&*store, name).unwrap();
        let mut r = [Val::I32(0)];
        let n = f.ty(&*store).results().len();
        f.call(store, &[], &mut r[..n]).unwrap();
        r[0].v128().map(|_| lanes_i32x4(&r[0]))
    };

    assert_eq!(lanes_i32x4(&own.get(&store)), [1, 2, 3, 4]);
    assert_eq!(call(&mut store, "read_imported"), Some([-1, -2, -3, -4]));

    // Host writes are seen by wasm.
    own.set(&mut store, i32x4([i32::MIN, 0, i32::MAX, 42])).unwrap();
    assert_eq!(call(&mut store, "read_own"), Some([i32::MIN, 0, i32::MAX, 42]));

    // Wasm writes are seen by the host, through both globals.
    call(&mut store, "swap");
    assert_eq!(lanes_i32x4(&own.get(&store)), [-1, -2, -3, -4]);
    assert_eq!(lanes_i32x4(&imported.get(&store)), [i32::MIN, 0, i32::MAX, 42]);

    // A value of another type is refused and leaves the global unchanged.
    assert!(own.set(&mut store, Val::I64(7)).is_err());
    assert_eq!(call(&mut store, "read_own"), Some([-1, -2, -3, -4]));
}
