//! `Module::defined_type` and co. (issue 40, for WAMR's `gc_export.h`): a
//! module's types come back as declared, with concrete types named by
//! their index in the module (not the registry's canonical ids), and
//! subtyping and equality follow declared supertypes and iso-recursive
//! equality, within a module and across modules of one engine.

use cranewasm::*;

const WAT: &str = r#"(module
  (rec
    (type $node (sub (struct (field (mut i32)) (field (ref null $node)))))
    (type $leaf (sub $node (struct (field (mut i32)) (field (ref null $node)) (field i16)))))
  (type $arr (array (ref $leaf)))
  (type $f (func (param (ref null $arr)) (result i32)))
  (rec (type $a (struct (field i32))) (type $b (struct (field i64))))
  (func (type $f) (i32.const 0)))"#;

fn module(engine: &Engine, wat: &str) -> Module {
    Module::new(engine, wat::parse_str(wat).expect("the test's WAT parses")).expect("the module compiles")
}

#[test]
fn types_come_back_with_module_indices() {
    let engine = Engine::default();
    let m = module(&engine, WAT);
    assert_eq!(m.defined_type_count(), 6);
    assert!(m.defined_type(6).is_none());
    let leaf = m.defined_type(1).expect("type 1");
    assert_eq!(leaf.supertype.map(|t| t.as_u32()), Some(0));
    let CompositeType::Struct(fields) = &leaf.composite else { panic!("a struct: {leaf:?}") };
    assert_eq!(fields.len(), 3);
    assert_eq!(fields[1].storage, StorageType::Val(ValType::Ref(RefType::new(true, HeapType::concrete(0)))));
    assert!(!fields[1].mutable && fields[0].mutable);
    assert_eq!(fields[2].storage, StorageType::I16);
    let CompositeType::Array(elem) = m.defined_type(2).expect("type 2").composite else { panic!("an array") };
    assert_eq!(elem.storage, StorageType::Val(ValType::Ref(RefType::new(false, HeapType::concrete(1)))));
    let CompositeType::Func(f) = m.defined_type(3).expect("type 3").composite else { panic!("a function") };
    assert_eq!(f.params(), &[ValType::Ref(RefType::new(true, HeapType::concrete(2)))]);
    assert_eq!(m.func_type_index(0), Some(3));
    assert_eq!(m.func_type_index(1), None);
}

#[test]
fn subtyping_and_equality() {
    let engine = Engine::default();
    let m = module(&engine, WAT);
    assert!(m.defined_type_matches(1, &m, 0) && !m.defined_type_matches(0, &m, 1));
    assert!(m.defined_type_equals(0, &m, 0) && !m.defined_type_equals(4, &m, 5));
    assert!(!m.defined_type_matches(0, &m, 99));
    let leaf = RefType::new(true, HeapType::concrete(1));
    let node = RefType::new(false, HeapType::concrete(0));
    assert!(m.ref_type_matches(RefType::new(false, HeapType::concrete(1)), node));
    assert!(!m.ref_type_matches(leaf, node), "nullable is not <: non-nullable");
    assert!(m.ref_type_matches(leaf, RefType::new(true, HeapType::Struct)));
    assert!(!m.ref_type_matches(leaf, RefType::FUNCREF));
    assert!(m.ref_type_matches(RefType::new(true, HeapType::concrete(3)), RefType::FUNCREF));
    assert!(!m.ref_type_matches(RefType::new(true, HeapType::concrete(6)), RefType::ANYREF), "no type 6");

    // Another module with the same rec group at other indices: the same types.
    let other = module(&engine, "(module (type (func)) (rec (type $a (struct (field i32))) (type $b (struct (field i64)))) (type (struct (field i32))))");
    assert!(m.defined_type_equals(4, &other, 1) && m.defined_type_equals(5, &other, 2));
    assert!(!m.defined_type_equals(4, &other, 3), "a type alone is not one of a group");
    // Another engine's types are never the same.
    let elsewhere = module(&Engine::default(), WAT);
    assert!(!m.defined_type_equals(0, &elsewhere, 0));
}
