//! The engine's type registry holds each distinct signature while a
//! module or host function uses it, and frees it after: an engine that
//! loads and drops modules forever does not grow.

use cranewasm::*;

/// A signature of its own for each `i` below 2^14: fourteen parameters,
/// i32 or i64 by the bits of `i`.
fn signature(i: u32) -> Vec<ValType> {
    (0..14).map(|b| if i >> b & 1 == 0 { ValType::I32 } else { ValType::I64 }).collect()
}

fn wat_type(params: &[ValType]) -> String {
    let names: Vec<String> = params.iter().map(|t| t.to_string()).collect();
    format!("(type (func (param {})))", names.join(" "))
}

#[test]
fn ten_thousand_signatures_are_freed_with_their_modules() {
    let engine = Engine::default();
    let before = engine.registered_type_count();
    let modules: Vec<Module> = (0..100)
        .map(|m| {
            let types: String = (0..100).map(|t| wat_type(&signature(m * 100 + t))).collect();
            Module::new(&engine, format!("(module {types})")).unwrap()
        })
        .collect();
    assert_eq!(engine.registered_type_count(), before + 10_000);
    // A second module with the same types shares their registrations.
    let again = Module::new(&engine, format!("(module {})", wat_type(&signature(42)))).unwrap();
    assert_eq!(engine.registered_type_count(), before + 10_000);
    drop(modules);
    assert_eq!(engine.registered_type_count(), before + 1, "only `again`'s type is still used");
    drop(again);
    assert_eq!(engine.registered_type_count(), before);
}

#[test]
fn host_function_signatures_are_freed_with_their_store() {
    let engine = Engine::default();
    let before = engine.registered_type_count();
    let mut store = Store::new(&engine, ());
    for i in 0..1000 {
        let ty = FuncType::new(signature(i), []);
        Func::new(&mut store, ty, |_, _, _| Ok(()));
    }
    assert_eq!(engine.registered_type_count(), before + 1000);
    drop(store);
    assert_eq!(engine.registered_type_count(), before);
}

#[test]
fn equal_signatures_of_separate_modules_call_each_other_indirectly() {
    // A large signature (past the small ids) compares by its canonical id
    // across modules: an import of one module's function through another's
    // table checks it by id.
    let engine = Engine::default();
    let params = "i32 i32 i32 i32 i32 i32 i32 i32 i32";
    let callee =
        Module::new(&engine, format!("(module (func (export \"f\") (param {params}) (result i32) (local.get 8)))"))
            .unwrap();
    let caller = Module::new(
        &engine,
        format!(
            r#"(module
                (type $t (func (param {params}) (result i32)))
                (type $u (func (param {params}) (result i64)))
                (import "m" "f" (func $f (type $t)))
                (table 1 funcref) (elem (i32.const 0) $f)
                (func (export "ok") (result i32)
                    (call_indirect (type $t) (i32.const 1) (i32.const 2) (i32.const 3) (i32.const 4) (i32.const 5)
                        (i32.const 6) (i32.const 7) (i32.const 8) (i32.const 9) (i32.const 0)))
                (func (export "wrong") (result i64)
                    (call_indirect (type $u) (i32.const 1) (i32.const 2) (i32.const 3) (i32.const 4) (i32.const 5)
                        (i32.const 6) (i32.const 7) (i32.const 8) (i32.const 9) (i32.const 0))))"#
        ),
    )
    .unwrap();
    let mut store = Store::new(&engine, ());
    let callee = Instance::new(&mut store, &callee, &[]).unwrap();
    let f = callee.get_func(&store, "f").unwrap();
    let instance = Instance::new(&mut store, &caller, &[f.into()]).unwrap();
    let ok = instance.get_func(&store, "ok").unwrap().typed::<(), i32>(&store).unwrap();
    assert_eq!(ok.call(&mut store, ()).unwrap(), 9);
    let wrong = instance.get_func(&store, "wrong").unwrap().typed::<(), i64>(&store).unwrap();
    let err = wrong.call(&mut store, ()).unwrap_err();
    assert_eq!(err.code(), Some(Trap::BadSignature), "{err}");
}
