//! GC's type system across modules and at run time (issue 40, stage 1):
//! recursion groups are canonicalised whole, so the same group in two
//! modules is the same type and a group of equal structure but other
//! members is not; `call_indirect` and function imports accept declared
//! subtypes of a non-final type, and nothing else.

use cranewasm::*;

/// A group holding a function type and a struct type that refers to it.
const GROUP: &str = "(rec (type $f (func (param i32) (result i32))) (type $s (struct (field (ref null $f)))))";

/// Exports `double` (of type `$f` of [`GROUP`]) and a table holding it.
fn provider(engine: &Engine) -> Module {
    let wat = format!(
        r#"(module {GROUP}
            (func $double (export "double") (type $f) (i32.mul (local.get 0) (i32.const 2)))
            (table (export "table") funcref (elem $double)))"#
    );
    Module::new(engine, wat).unwrap()
}

/// A module that imports the provider's table and calls element 0 as
/// its own type `$f`, declared in `types`.
fn caller(engine: &Engine, types: &str) -> Module {
    let wat = format!(
        r#"(module {types}
            (import "p" "table" (table 1 funcref))
            (func (export "call") (param i32) (result i32)
                (call_indirect (type $f) (local.get 0) (i32.const 0))))"#
    );
    Module::new(engine, wat).unwrap()
}

fn call(store: &mut Store<()>, instance: &Instance, arg: i32) -> Result<i32> {
    let f = instance.get_func(&*store, "call").expect("export call");
    let mut out = [Val::I32(0)];
    f.call(&mut *store, &[Val::I32(arg)], &mut out)?;
    match out[0] {
        Val::I32(v) => Ok(v),
        _ => panic!("not an i32"),
    }
}

fn trap_of(e: Error) -> Option<Trap> {
    e.as_trap().and_then(|t| t.code())
}

#[test]
fn the_same_rec_group_in_two_modules_is_one_type() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let p = Instance::new(&mut store, &provider(&engine), &[]).unwrap();
    let table = p.get_table(&store, "table").unwrap();

    let same = Instance::new(&mut store, &caller(&engine, GROUP), &[table.into()]).unwrap();
    assert_eq!(call(&mut store, &same, 21).unwrap(), 42);

    // Equal structure, other group: a different type.
    let others = [
        // The function type alone.
        "(type $f (func (param i32) (result i32)))",
        // The same function type with another struct beside it.
        "(rec (type $f (func (param i32) (result i32))) (type $s (struct (field i64))))",
        // The same members in another order.
        "(rec (type $s (struct (field (ref null $f)))) (type $f (func (param i32) (result i32))))",
        // Not final.
        "(rec (type $f (sub (func (param i32) (result i32)))) (type $s (struct (field (ref null $f)))))",
    ];
    for types in others {
        let other = Instance::new(&mut store, &caller(&engine, types), &[table.into()]).unwrap();
        let e = call(&mut store, &other, 21).unwrap_err();
        assert_eq!(trap_of(e), Some(Trap::BadSignature), "{types}");
    }
    // The store is still usable.
    assert_eq!(call(&mut store, &same, 2).unwrap(), 4);
}

#[test]
fn function_imports_match_by_canonical_type() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let p = Instance::new(&mut store, &provider(&engine), &[]).unwrap();
    let double = p.get_func(&store, "double").unwrap();
    let importer = |types: &str| {
        let wat = format!(r#"(module {types} (import "p" "double" (func (type $f))))"#);
        Module::new(&engine, wat).unwrap()
    };
    Instance::new(&mut store, &importer(GROUP), &[double.into()]).expect("the same group links");
    let e = Instance::new(&mut store, &importer("(type $f (func (param i32) (result i32)))"), &[double.into()])
        .expect_err("the function type alone is another type");
    assert!(matches!(e, Error::Link(_)), "{e}");
}

/// `$sub` declares `$super` its supertype; `$other` has the same
/// structure as `$super`, but in a group with another type, so it is
/// another type (on its own it would be `$super` itself).
const SUBTYPES: &str = r#"
    (type $super (sub (func (result i32))))
    (type $sub (sub $super (func (result i32))))
    (rec (type $other (sub (func (result i32)))) (type (struct)))"#;

/// A function of each type of [`SUBTYPES`], in a table in that order.
const SUBTYPE_FUNCS: &str = r#"
    (func $a (type $sub) (i32.const 1))
    (func $b (type $super) (i32.const 2))
    (func $c (type $other) (i32.const 3))
    (table funcref (elem $a $b $c))"#;

#[test]
fn call_indirect_accepts_declared_subtypes_only() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let wat = format!(
        r#"(module {SUBTYPES}
            {SUBTYPE_FUNCS}
            (func (export "as_super") (param i32) (result i32) (call_indirect (type $super) (local.get 0)))
            (func (export "as_sub") (param i32) (result i32) (call_indirect (type $sub) (local.get 0))))"#
    );
    let instance = Instance::new(&mut store, &Module::new(&engine, wat).unwrap(), &[]).unwrap();
    let run = |store: &mut Store<()>, name: &str, i: i32| -> Result<i32> {
        Ok(call1(store, &instance, name, &[Val::I32(i)])?.i32().expect("an i32"))
    };
    assert_eq!(run(&mut store, "as_super", 0).unwrap(), 1, "a subtype where its supertype is expected");
    assert_eq!(run(&mut store, "as_super", 1).unwrap(), 2);
    assert_eq!(trap_of(run(&mut store, "as_super", 2).unwrap_err()), Some(Trap::BadSignature), "no declared link");
    assert_eq!(run(&mut store, "as_sub", 0).unwrap(), 1);
    assert_eq!(trap_of(run(&mut store, "as_sub", 1).unwrap_err()), Some(Trap::BadSignature), "a supertype");
    assert_eq!(trap_of(run(&mut store, "as_sub", 2).unwrap_err()), Some(Trap::BadSignature));

    // Imports: a function of a subtype links where its supertype is
    // declared, across modules, and not the other way round.
    let export = format!(
        r#"(module {SUBTYPES} (func (export "sub") (type $sub) (i32.const 7)) (func (export "super") (type $super) (i32.const 8)))"#
    );
    let e = Instance::new(&mut store, &Module::new(&engine, export).unwrap(), &[]).unwrap();
    let import =
        |ty: &str| Module::new(&engine, format!(r#"(module {SUBTYPES} (import "e" "f" (func (type {ty}))))"#)).unwrap();
    let sub = e.get_func(&store, "sub").unwrap();
    let sup = e.get_func(&store, "super").unwrap();
    Instance::new(&mut store, &import("$super"), &[sub.into()]).expect("a subtype for its supertype");
    Instance::new(&mut store, &import("$sub"), &[sub.into()]).expect("the type itself");
    assert!(Instance::new(&mut store, &import("$sub"), &[sup.into()]).is_err(), "a supertype for its subtype");
    assert!(Instance::new(&mut store, &import("$other"), &[sub.into()]).is_err(), "equal structure, not declared");
}

#[test]
fn rec_groups_are_registered_once_and_freed_with_their_modules() {
    let engine = Engine::default();
    let before = engine.registered_type_count();
    let a = provider(&engine);
    assert_eq!(engine.registered_type_count(), before + 2, "one group of two types");
    let b = provider(&engine);
    assert_eq!(engine.registered_type_count(), before + 2, "the same group again");
    drop(a);
    assert_eq!(engine.registered_type_count(), before + 2, "still used by the second module");
    drop(b);
    assert_eq!(engine.registered_type_count(), before);
}

#[test]
fn struct_and_array_operators_validate_and_run() {
    // Stage 1 refused them; stage 2a (the GC heap) runs them, in bodies
    // and in constant expressions.
    let engine = Engine::default();
    for body in ["(drop (struct.new_default $s))", "(drop (array.new_default $a (i32.const 1)))"] {
        let wat = format!(r#"(module (type $s (struct)) (type $a (array i8)) (func (export "f") {body}))"#);
        Module::validate(&engine, &wat).unwrap();
        let module = Module::new(&engine, wat).unwrap();
        let mut store = Store::new(&engine, ());
        let instance = Instance::new(&mut store, &module, &[]).unwrap();
        let f = instance.get_func(&store, "f").unwrap();
        f.call(&mut store, &[], &mut []).unwrap();
    }
    let wat = r#"(module (type $s (struct (field i32))) (global $g (ref $s) (struct.new $s (i32.const 9)))
        (func (export "f") (result i32) (struct.get $s 0 (global.get $g))))"#;
    let module = Module::new(&engine, wat).unwrap();
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let mut out = [Val::I32(0)];
    instance.get_func(&store, "f").unwrap().call(&mut store, &[], &mut out).unwrap();
    assert_eq!(out[0].i32(), Some(9));
}

/// A module converting between i31s, `anyref` and `externref`.
const I31_WAT: &str = r#"(module
    (func (export "make") (param i32) (result externref) (extern.convert_any (ref.i31 (local.get 0))))
    (func (export "get") (param externref) (result i32)
        (i31.get_s (ref.cast (ref i31) (any.convert_extern (local.get 0)))))
    (func (export "is_i31") (param externref) (result i32) (ref.test i31ref (any.convert_extern (local.get 0))))
    (func (export "any") (param i32) (result anyref) (ref.i31 (local.get 0)))
    (func (export "get_u") (param anyref) (result i32) (i31.get_u (ref.cast (ref null i31) (local.get 0))))
    (func (export "same") (param eqref eqref) (result i32) (ref.eq (local.get 0) (local.get 1)))
    (global (export "g") (mut anyref) (ref.i31 (i32.const -5)))
    (table (export "t") 2 anyref))"#;

fn call1(store: &mut Store<()>, instance: &Instance, name: &str, args: &[Val]) -> Result<Val> {
    let f = instance.get_func(&*store, name).unwrap_or_else(|| panic!("no export {name}"));
    let mut out = [Val::I32(0)];
    f.call(&mut *store, args, &mut out)?;
    Ok(out[0])
}

#[test]
fn i31_round_trips_through_externref_and_the_api() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &Module::new(&engine, I31_WAT).unwrap(), &[]).unwrap();

    // Made in wasm, handed out as an externref, back in as one.
    let e = call1(&mut store, &instance, "make", &[Val::I32(-3)]).unwrap();
    let Val::ExternRef(Some(ext)) = e else { panic!("not a non-null externref: {e:?}") };
    assert!(ext.data(&store).downcast_ref::<u32>().is_none(), "no host data behind an i31");
    assert_eq!(AnyRef::convert_extern(ext).as_i31().map(I31::get_i32), Some(-3));
    assert_eq!(call1(&mut store, &instance, "get", &[e]).unwrap().i32(), Some(-3));
    assert_eq!(call1(&mut store, &instance, "is_i31", &[e]).unwrap().i32(), Some(1));

    // Host data is not an i31: the test says no, the cast traps.
    let host = Val::ExternRef(Some(ExternRef::new(&mut store, 7u32)));
    assert_eq!(call1(&mut store, &instance, "is_i31", &[host]).unwrap().i32(), Some(0));
    let e = call1(&mut store, &instance, "get", &[host]).unwrap_err();
    assert_eq!(trap_of(e), Some(Trap::CastFailure));
    let e = call1(&mut store, &instance, "get", &[Val::ExternRef(None)]).unwrap_err();
    assert_eq!(trap_of(e), Some(Trap::CastFailure), "a null is no (ref i31)");
    let e = call1(&mut store, &instance, "get_u", &[Val::AnyRef(None)]).unwrap_err();
    assert_eq!(trap_of(e), Some(Trap::NullI31Reference));

    // 31 bits, wrapped as `ref.i31` wraps them, both ways through the API.
    let v = call1(&mut store, &instance, "any", &[Val::I32(1 << 30)]).unwrap();
    assert_eq!(v.anyref().flatten().and_then(|a| a.as_i31()).map(I31::get_i32), Some(-(1 << 30)));
    let made = Val::AnyRef(Some(AnyRef::from_i31(I31::wrapping_i32(-1))));
    assert_eq!(call1(&mut store, &instance, "get_u", &[made]).unwrap().i32(), Some(0x7fff_ffff));
    let a = Val::AnyRef(Some(AnyRef::from_i31(I31::wrapping_u32(9))));
    assert_eq!(call1(&mut store, &instance, "same", &[a, v]).unwrap().i32(), Some(0));
    assert_eq!(call1(&mut store, &instance, "same", &[a, a]).unwrap().i32(), Some(1));

    // Globals (a constant `ref.i31` initialiser) and tables hold them.
    let g = instance.get_global(&store, "g").unwrap();
    assert_eq!(g.get(&store).anyref().flatten().and_then(|a| a.as_i31()).map(I31::get_i32), Some(-5));
    let internal = Val::AnyRef(Some(AnyRef::convert_extern(ExternRef::new(&mut store, 11u32))));
    g.set(&mut store, internal).unwrap();
    let Some(Some(back)) = g.get(&store).anyref() else { panic!("not a non-null anyref") };
    assert_eq!(ExternRef::convert_any(back).data(&store).downcast_ref::<u32>(), Some(&11));
    let t = instance.get_table(&store, "t").unwrap();
    t.set(&mut store, 1, a).unwrap();
    assert_eq!(t.get(&store, 1).and_then(|v| v.anyref()), Some(Some(AnyRef::from_i31(I31::wrapping_u32(9)))));
    assert_eq!(t.get(&store, 0).and_then(|v| v.anyref()), Some(None));
    // An externref is not an anyref.
    assert!(t.set(&mut store, 0, host).is_err());
}

#[test]
fn casts_to_function_types_follow_declared_subtyping() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let wat = format!(
        r#"(module {SUBTYPES}
            {SUBTYPE_FUNCS}
            (elem declare func $a $b $c)
            (func (export "test_super") (param i32) (result i32) (ref.test (ref $super) (table.get (local.get 0))))
            (func (export "test_sub") (param i32) (result i32) (ref.test (ref null $sub) (table.get (local.get 0))))
            (func (export "cast_call") (param i32) (result i32)
                (call_ref $super (ref.cast (ref $super) (table.get (local.get 0)))))
            (func (export "br") (param i32) (result i32)
                (block $yes (result (ref $sub))
                    (br_on_cast $yes funcref (ref $sub) (table.get (local.get 0)))
                    (return (i32.const -1)))
                (call_ref $sub)))"#
    );
    let instance = Instance::new(&mut store, &Module::new(&engine, wat).unwrap(), &[]).unwrap();
    let run = |store: &mut Store<()>, name: &str, i: i32| call1(store, &instance, name, &[Val::I32(i)]);
    let results = |store: &mut Store<()>, name: &str| -> Vec<Option<i32>> {
        (0..3).map(|i| run(store, name, i).ok().and_then(|v| v.i32())).collect()
    };
    assert_eq!(results(&mut store, "test_super"), [Some(1), Some(1), Some(0)]);
    assert_eq!(results(&mut store, "test_sub"), [Some(1), Some(0), Some(0)]);
    assert_eq!(results(&mut store, "cast_call"), [Some(1), Some(2), None]);
    assert_eq!(trap_of(run(&mut store, "cast_call", 2).unwrap_err()), Some(Trap::CastFailure));
    assert_eq!(results(&mut store, "br"), [Some(1), Some(-1), Some(-1)]);
}
