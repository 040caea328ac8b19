//! Typed function references across the API: calls through `call_ref`
//! with null traps, typed tables with initialisers, and type identity
//! across modules (two modules' `(ref $t)` are the same type exactly when
//! their `$t`s are, whatever index each module gives it).

use cranewasm::*;

/// Calls `name` with i32 arguments; its one i32 result.
fn call(store: &mut Store<()>, instance: &Instance, name: &str, args: &[i32]) -> Result<i32> {
    let f = instance.get_func(&*store, name).unwrap_or_else(|| panic!("no export {name}"));
    let args: Vec<Val> = args.iter().map(|a| Val::I32(*a)).collect();
    let mut out = [Val::I32(0)];
    f.call(&mut *store, &args, &mut out)?;
    match out[0] {
        Val::I32(v) => Ok(v),
        _ => panic!("{name} returned another type"),
    }
}

#[test]
fn call_ref_and_null_traps() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let module = Module::new(
        &engine,
        r#"(module
            (type $un (func (param i32) (result i32)))
            (func $double (type $un) (i32.mul (local.get 0) (i32.const 2)))
            (table $t (ref null $un) (elem (ref.func $double) (ref.null $un)))
            (table $filled 3 (ref $un) (ref.func $double))
            (elem declare func $double)
            (func (export "via") (param i32 i32) (result i32)
                (call_ref $un (local.get 1) (table.get $t (local.get 0))))
            (func (export "tail") (param i32) (result i32)
                (return_call_ref $un (local.get 0) (table.get $filled (i32.const 2))))
            (func (export "non_null") (param i32) (result i32)
                (drop (ref.as_non_null (table.get $t (local.get 0)))) (i32.const 1))
            (func (export "on_null") (param i32) (result i32)
                (block $null
                    (br_on_null $null (table.get $t (local.get 0)))
                    (drop) (return (i32.const 1)))
                (i32.const 0)))"#,
    )
    .unwrap();
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    assert_eq!(call(&mut store, &instance, "via", &[0, 21]).unwrap(), 42);
    assert_eq!(call(&mut store, &instance, "tail", &[5]).unwrap(), 10);
    let trap = call(&mut store, &instance, "via", &[1, 1]).unwrap_err();
    assert_eq!(trap.as_trap().and_then(|t| t.code()), Some(Trap::NullFunctionReference), "{trap}");
    assert_eq!(call(&mut store, &instance, "non_null", &[0]).unwrap(), 1);
    let trap = call(&mut store, &instance, "non_null", &[1]).unwrap_err();
    assert_eq!(trap.as_trap().and_then(|t| t.code()), Some(Trap::NullReference), "{trap}");
    assert_eq!(call(&mut store, &instance, "on_null", &[0]).unwrap(), 1);
    assert_eq!(call(&mut store, &instance, "on_null", &[1]).unwrap(), 0);
    // The store is still usable after the traps.
    assert_eq!(call(&mut store, &instance, "via", &[0, 4]).unwrap(), 8);
}

/// The same structure under other indices links; another structure under
/// the same index does not (a module-relative comparison would take it,
/// and `call_ref` would then call a function of the wrong signature).
#[test]
fn types_are_compared_by_structure_across_modules() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let exporter = Module::new(
        &engine,
        r#"(module
            (type $v (func))
            (type $takes (func (param (ref $v))))
            (func (export "f") (type $takes))
            (global (export "g") (ref null $v) (ref.null $v)))"#,
    )
    .unwrap();
    let exporter = Instance::new(&mut store, &exporter, &[]).unwrap();
    let f = Extern::Func(exporter.get_func(&store, "f").unwrap());
    let g = Extern::Global(exporter.get_global(&store, "g").unwrap());

    let same = Module::new(
        &engine,
        r#"(module
            (type $other (func (param i64)))
            (type $v (func))
            (import "m" "f" (func (param (ref $v))))
            (import "m" "g" (global (ref null $v))))"#,
    )
    .unwrap();
    Instance::new(&mut store, &same, &[f.clone(), g.clone()]).expect("the same types under other indices");

    let different = Module::new(
        &engine,
        r#"(module
            (type $v (func (param i32)))
            (import "m" "f" (func (param (ref $v)))))"#,
    )
    .unwrap();
    match Instance::new(&mut store, &different, &[f]) {
        Err(Error::Link(_)) => {}
        other => panic!("expected a link error, got {:?}", other.map(|_| ())),
    }
    let different_global = Module::new(
        &engine,
        r#"(module
            (type $v (func (param i32)))
            (import "m" "g" (global (ref null $v))))"#,
    )
    .unwrap();
    match Instance::new(&mut store, &different_global, &[g]) {
        Err(Error::Link(_)) => {}
        other => panic!("expected a link error, got {:?}", other.map(|_| ())),
    }
}

/// The switch refuses the proposal's operators when off.
#[test]
fn the_switch_turns_it_off() {
    let mut config = Config::new();
    config.wasm_function_references(false);
    let engine = Engine::new(&config).unwrap();
    let err = Module::new(&engine, "(module (type $v (func)) (func (param (ref null $v))))").map(|_| ()).unwrap_err();
    assert!(matches!(err, Error::Invalid { .. }), "{err}");
}

/// The host makes tables and globals of a module's typed reference types
/// from its import types, holding null (found by tests/fuzz_wasmtime.rs:
/// only a value of exactly the type's `ValType` was accepted, which no
/// `Val` is for `(ref null $t)`); a non-nullable one refuses null.
#[test]
fn host_tables_and_globals_of_typed_references() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let module = Module::new(
        &engine,
        r#"(module
            (type $un (func (param i32) (result i32)))
            (import "host" "t" (table $t 2 (ref null $un)))
            (import "host" "g" (global $g (mut (ref null $un))))
            (func $double (type $un) (i32.mul (local.get 0) (i32.const 2)))
            (elem declare func $double)
            (func (export "via_table") (param i32 i32) (result i32)
                (call_ref $un (local.get 1) (table.get $t (local.get 0))))
            (func (export "fill") (table.set $t (i32.const 1) (ref.func $double)))
            (func (export "via_global") (param i32) (result i32)
                (call_ref $un (local.get 0) (global.get $g))))"#,
    )
    .unwrap();
    let mut externs = Vec::new();
    for import in module.imports() {
        externs.push(match import.ty {
            ExternType::Table(t) => {
                assert!(Table::new(&mut store, t, Val::ExternRef(None)).is_err(), "another hierarchy");
                Table::new(&mut store, t, Val::FuncRef(None)).unwrap().into()
            }
            ExternType::Global(g) => {
                let ValType::Ref(r) = g.content else { panic!("a reference global") };
                let non_null = GlobalType::new(ValType::Ref(RefType::new(false, r.heap_type())), g.mutability);
                assert!(Global::new(&mut store, non_null, Val::FuncRef(None)).is_err(), "null for (ref $un)");
                Global::new(&mut store, g, Val::FuncRef(None)).unwrap().into()
            }
            other => panic!("unexpected import {other:?}"),
        });
    }
    let instance = Instance::new(&mut store, &module, &externs).unwrap();
    let null_trap = |r: Result<i32>| r.unwrap_err().as_trap().and_then(|t| t.code());
    assert!(null_trap(call(&mut store, &instance, "via_table", &[1, 5])).is_some());
    assert!(null_trap(call(&mut store, &instance, "via_global", &[5])).is_some());
    instance.get_func(&store, "fill").unwrap().call(&mut store, &[], &mut []).unwrap();
    assert_eq!(call(&mut store, &instance, "via_table", &[1, 5]).unwrap(), 10);
    // The host sets them back to null.
    let (Extern::Table(t), Extern::Global(g)) = (externs[0], externs[1]) else { panic!("table then global") };
    t.set(&mut store, 1, Val::FuncRef(None)).unwrap();
    g.set(&mut store, Val::FuncRef(None)).unwrap();
    assert!(null_trap(call(&mut store, &instance, "via_table", &[1, 5])).is_some());
}
