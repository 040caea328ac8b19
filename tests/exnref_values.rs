//! `exnref` values at the host boundary: results, globals, tables and
//! parameters carry exceptions as `Val::ExnRef`, with their tag and
//! payload. (They were once read as externrefs whose data was the
//! exception's memory; the wasmtime differential fuzzer found it.)

use cranewasm::*;

const MODULE: &str = r#"(module
    (tag $e (export "e") (param i32 i64))
    (global $g (export "g") (mut exnref) (ref.null exn))
    (table $t (export "t") 2 exnref)
    (func $catch (export "catch") (param i32) (result exnref)
        (block $h (result exnref)
            (try_table (catch_all_ref $h) (throw $e (local.get 0) (i64.const 7)))
            (ref.null exn)))
    (func (export "keep") (param i32)
        (global.set $g (call $catch (local.get 0)))
        (table.set $t (i32.const 1) (call $catch (i32.add (local.get 0) (i32.const 1)))))
    (func (export "rethrow") (param exnref) (throw_ref (local.get 0))))"#;

fn setup() -> (Store<()>, Instance) {
    let engine = Engine::default();
    let module = Module::new(&engine, wat::parse_str(MODULE).unwrap()).unwrap();
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    (store, instance)
}

/// The exception's tag is `tag` and its payload `(x, 7)`.
fn check(store: &Store<()>, tag: Tag, v: Val, x: i32) -> Exn {
    let Val::ExnRef(Some(exn)) = v else { panic!("not a non-null exnref: {v:?}") };
    assert_eq!(exn.tag(store), tag);
    let values = exn.values(store);
    assert!(matches!(values[..], [Val::I32(a), Val::I64(7)] if a == x), "{values:?}");
    exn
}

#[test]
fn exnrefs_reach_the_host_with_tag_and_payload() {
    let (mut store, instance) = setup();
    let tag = instance.get_export(&store, "e").unwrap().into_tag().unwrap();
    let catch = instance.get_func(&store, "catch").unwrap();
    let mut out = [Val::ExnRef(None)];
    catch.call(&mut store, &[Val::I32(5)], &mut out).unwrap();
    let exn = check(&store, tag, out[0], 5);

    instance.get_func(&store, "keep").unwrap().call(&mut store, &[Val::I32(10)], &mut []).unwrap();
    let g = instance.get_global(&store, "g").unwrap().get(&store);
    check(&store, tag, g, 10);
    let t = instance.get_table(&store, "t").unwrap();
    assert!(matches!(t.get(&store, 0), Some(Val::ExnRef(None))));
    check(&store, tag, t.get(&store, 1).unwrap(), 11);

    // Back into wasm, which throws it again: the same exception.
    let rethrow = instance.get_func(&store, "rethrow").unwrap();
    let err = rethrow.call(&mut store, &[Val::ExnRef(Some(exn))], &mut []).unwrap_err();
    let again = Exn::from_error(&store, &err).expect("an uncaught exception");
    assert_eq!(again, exn);
    check(&store, tag, Val::ExnRef(Some(again)), 5);
}

#[test]
fn bad_exnref_arguments_are_errors() {
    let (mut store, instance) = setup();
    let rethrow = instance.get_func(&store, "rethrow").unwrap();
    // Null: `throw_ref` traps.
    let err = rethrow.call(&mut store, &[Val::ExnRef(None)], &mut []).unwrap_err();
    assert!(err.as_trap().and_then(|t| t.code()).is_some(), "{err}");
    // Not an exnref.
    assert!(rethrow.call(&mut store, &[Val::ExternRef(None)], &mut []).is_err());
    // An exception of another store.
    let (mut other, other_instance) = setup();
    let mut out = [Val::ExnRef(None)];
    other_instance.get_func(&other, "catch").unwrap().call(&mut other, &[Val::I32(1)], &mut out).unwrap();
    let err = rethrow.call(&mut store, &out, &mut []).unwrap_err();
    assert!(matches!(err, Error::WrongStore), "{err}");
    // Ours is still usable.
    let mut out = [Val::ExnRef(None)];
    instance.get_func(&store, "catch").unwrap().call(&mut store, &[Val::I32(2)], &mut out).unwrap();
    assert!(matches!(out[0], Val::ExnRef(Some(_))));
}
