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

#[test]
fn call_indirect_accepts_declared_subtypes_only() {
    let engine = Engine::default();
    let mut store = Store::new(&engine, ());
    let wat = format!(
        r#"(module {SUBTYPES}
            (func $a (type $sub) (i32.const 1))
            (func $b (type $super) (i32.const 2))
            (func $c (type $other) (i32.const 3))
            (table funcref (elem $a $b $c))
            (func (export "as_super") (param i32) (result i32) (call_indirect (type $super) (local.get 0)))
            (func (export "as_sub") (param i32) (result i32) (call_indirect (type $sub) (local.get 0))))"#
    );
    let instance = Instance::new(&mut store, &Module::new(&engine, wat).unwrap(), &[]).unwrap();
    let run = |store: &mut Store<()>, name: &str, i: i32| -> Result<i32> {
        let f = instance.get_func(&*store, name).unwrap();
        let mut out = [Val::I32(0)];
        f.call(&mut *store, &[Val::I32(i)], &mut out)?;
        Ok(out[0].i32().expect("an i32"))
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
fn struct_and_array_operators_are_refused_naming_the_gc_heap() {
    let engine = Engine::default();
    for body in ["(drop (struct.new_default $s))", "(drop (array.new_default $a (i32.const 1)))"] {
        let wat = format!("(module (type $s (struct)) (type $a (array i8)) (func {body}))");
        let e = Module::new(&engine, wat).unwrap_err();
        assert!(e.to_string().contains("GC heap object (issue 40"), "{e}");
    }
    let e = Module::new(&engine, "(module (type $s (struct)) (global (ref $s) (struct.new $s)))").unwrap_err();
    assert!(e.to_string().contains("GC heap object (issue 40"), "{e}");
}
