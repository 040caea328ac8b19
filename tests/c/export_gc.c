/* gc_export.h (issue 40): reflection on a module's
 * defined types (rec groups, struct/array/func types, packed and mutable
 * fields, declared subtyping, iso-recursive equality), reference types,
 * i31 round trips, function objects and wasm_runtime_call_func_ref{,_a,_v},
 * externref/anyref objects and their conversions, the object predicates,
 * pin/unpin, local object refs, struct and array objects of the GC heap
 * (fields of every storage type, packed sign extension, references
 * between objects, copies, element addresses, the refusals), and what a
 * deinstantiation and an unload take with them. */
#include "export_common.h"
#include "gc_export.h"

static const char *WAT =
    "(module\n"
    "  (rec\n"
    "    (type $node (sub (struct (field (mut i32)) (field (ref null $node)))))\n"
    "    (type $leaf (sub $node (struct (field (mut i32)) (field (ref null $node)) (field i8)))))\n"
    "  (type $bytes (array (mut i8)))\n"
    "  (type $nodes (array (ref null $node)))\n"
    "  (type $binop (func (param i32 i32) (result i32)))\n"
    "  (type $sub_t (sub (func (param i64) (result i64))))\n"
    "  (type $final_sub (sub final $sub_t (func (param i64) (result i64))))\n"
    "  (rec (type $a (struct (field i32))) (type $b (struct (field i64))))\n"
    "  (rec (type $a2 (struct (field i32))) (type $b2 (struct (field i64))))\n"
    "  (type $plain (struct (field i32)))\n"
    "  (type $takes (func (param (ref $node) anyref i31ref (ref null extern) f32 f64)\n"
    "                     (result (ref null $bytes) eqref)))\n"
    "  (type $wide (struct (field (mut i16)) (field (mut i64)) (field (mut f32)) (field (mut f64))\n"
    "                      (field (mut externref)) (field (mut anyref)) (field (mut v128))))\n"
    "  (type $strict (struct (field (ref $plain))))\n"
    "  (type $refs (array (mut anyref)))\n"
    "  (func $add (export \"add\") (type $binop) (i32.add (local.get 0) (local.get 1)))\n"
    "  (func $twice (type $final_sub) (i64.mul (local.get 0) (i64.const 2)))\n"
    "  (func $takes_fn (type $takes) (ref.null $bytes) (ref.null eq))\n"
    "  (func (export \"trap\") (type $binop) (i32.div_s (local.get 0) (local.get 1))))";

enum { T_NODE, T_LEAF, T_BYTES, T_NODES, T_BINOP, T_SUB, T_FINAL_SUB, T_A, T_B, T_A2, T_B2, T_PLAIN, T_TAKES,
       T_WIDE, T_STRICT, T_REFS, T_COUNT };

#define CHECK_REF(r, vt, nul, ht, what)                                             \
    do {                                                                            \
        wasm_ref_type_t r_ = (r);                                                   \
        CHECK(r_.value_type == (vt) && r_.nullable == (nul) && r_.heap_type == (ht), \
              "%s: got {0x%x, %d, %d}", what, r_.value_type, r_.nullable, r_.heap_type); \
    } while (0)

static void check_types(wasm_module_t m)
{
    wasm_defined_type_t t[T_COUNT];
    bool mut = false;

    CHECK_EQ_INT(wasm_get_defined_type_count(m), T_COUNT, "defined types");
    for (int i = 0; i < T_COUNT; i++) {
        t[i] = wasm_get_defined_type(m, (uint32_t)i);
        CHECK(t[i] != NULL, "type %d", i);
    }
    CHECK(wasm_get_defined_type(m, T_COUNT) == NULL, "no type past the end");
    CHECK(wasm_get_defined_type(m, T_NODE) == t[T_NODE], "one handle per type");

    CHECK(wasm_defined_type_is_struct_type(t[T_NODE]) && wasm_defined_type_is_struct_type(t[T_LEAF]), "structs");
    CHECK(wasm_defined_type_is_array_type(t[T_BYTES]) && !wasm_defined_type_is_struct_type(t[T_BYTES]), "array");
    CHECK(wasm_defined_type_is_func_type(t[T_BINOP]) && !wasm_defined_type_is_func_type(t[T_NODE]), "func");

    /* Struct fields: mutability, packed storage, references by index. */
    CHECK_EQ_INT(wasm_struct_type_get_field_count((wasm_struct_type_t)t[T_NODE]), 2, "node fields");
    CHECK_EQ_INT(wasm_struct_type_get_field_count((wasm_struct_type_t)t[T_LEAF]), 3, "leaf fields");
    CHECK_REF(wasm_struct_type_get_field_type((wasm_struct_type_t)t[T_NODE], 0, &mut), VALUE_TYPE_I32, false, 0,
              "node.0");
    CHECK(mut, "node.0 is mutable");
    CHECK_REF(wasm_struct_type_get_field_type((wasm_struct_type_t)t[T_NODE], 1, &mut), VALUE_TYPE_HT_NULLABLE_REF,
              true, T_NODE, "node.1");
    CHECK(!mut, "node.1 is immutable");
    CHECK_REF(wasm_struct_type_get_field_type((wasm_struct_type_t)t[T_LEAF], 2, NULL), VALUE_TYPE_I8, false, 0,
              "leaf.2 (packed)");
    mut = true;
    CHECK_REF(wasm_struct_type_get_field_type((wasm_struct_type_t)t[T_LEAF], 3, &mut), 0, false, 0, "no field 3");
    CHECK(mut, "nothing written for a bad field");
    CHECK_EQ_INT(wasm_struct_type_get_field_count((wasm_struct_type_t)t[T_BYTES]), 0, "an array has no fields");

    /* Array elements. */
    CHECK_REF(wasm_array_type_get_elem_type((wasm_array_type_t)t[T_BYTES], &mut), VALUE_TYPE_I8, false, 0, "bytes");
    CHECK(mut, "bytes are mutable");
    CHECK_REF(wasm_array_type_get_elem_type((wasm_array_type_t)t[T_NODES], &mut), VALUE_TYPE_HT_NULLABLE_REF, true,
              T_NODE, "nodes");
    CHECK(!mut, "nodes are immutable");
    CHECK_REF(wasm_array_type_get_elem_type((wasm_array_type_t)t[T_NODE], NULL), 0, false, 0, "a struct is no array");

    /* Function types, readable through wasm_export.h's queries too. */
    wasm_func_type_t takes = (wasm_func_type_t)t[T_TAKES];
    CHECK_EQ_INT(wasm_func_type_get_param_count(takes), 6, "params");
    CHECK_EQ_INT(wasm_func_type_get_result_count(takes), 2, "results");
    CHECK_EQ_INT(wasm_func_type_get_param_valkind((wasm_func_type_t)t[T_BINOP], 1), WASM_I32, "binop param kind");
    CHECK_REF(wasm_func_type_get_param_type(takes, 0), VALUE_TYPE_HT_NON_NULLABLE_REF, false, T_NODE, "(ref $node)");
    CHECK_REF(wasm_func_type_get_param_type(takes, 1), VALUE_TYPE_ANYREF, false, 0, "anyref");
    CHECK_REF(wasm_func_type_get_param_type(takes, 2), VALUE_TYPE_I31REF, false, 0, "i31ref");
    CHECK_REF(wasm_func_type_get_param_type(takes, 3), VALUE_TYPE_EXTERNREF, false, 0, "externref");
    CHECK_REF(wasm_func_type_get_param_type(takes, 4), VALUE_TYPE_F32, false, 0, "f32");
    CHECK_REF(wasm_func_type_get_param_type(takes, 5), VALUE_TYPE_F64, false, 0, "f64");
    CHECK_REF(wasm_func_type_get_param_type(takes, 6), 0, false, 0, "no param 6");
    CHECK_REF(wasm_func_type_get_result_type(takes, 0), VALUE_TYPE_HT_NULLABLE_REF, true, T_BYTES, "result 0");
    CHECK_REF(wasm_func_type_get_result_type(takes, 1), VALUE_TYPE_EQREF, false, 0, "result 1");
    CHECK_REF(wasm_func_type_get_result_type((wasm_func_type_t)t[T_NODE], 0), 0, false, 0, "a struct has no results");

    /* Declared subtyping, and iso-recursive equality of rec groups. */
    CHECK(wasm_defined_type_is_subtype_of(t[T_LEAF], t[T_NODE], m), "leaf <: node");
    CHECK(!wasm_defined_type_is_subtype_of(t[T_NODE], t[T_LEAF], m), "not node <: leaf");
    CHECK(wasm_defined_type_is_subtype_of(t[T_FINAL_SUB], t[T_SUB], m), "final_sub <: sub");
    CHECK(!wasm_defined_type_is_subtype_of(t[T_BINOP], t[T_SUB], m), "binop is unrelated");
    CHECK(wasm_defined_type_equal(t[T_A], t[T_A2], m) && wasm_defined_type_equal(t[T_B], t[T_B2], m),
          "equal rec groups give equal types");
    CHECK(!wasm_defined_type_equal(t[T_A], t[T_PLAIN], m), "a type alone is not one of a group");
    CHECK(!wasm_defined_type_equal(t[T_A], t[T_B], m), "two types of one group differ");
    CHECK(wasm_defined_type_equal(t[T_NODE], t[T_NODE], m), "a type equals itself");
    CHECK(!wasm_defined_type_equal(t[T_A], t[T_A2], NULL), "no module, no answer");
}

static void check_ref_types(wasm_module_t m)
{
    wasm_ref_type_t leaf, node, node_nn, structref, anyref, eqref, funcref, funcref2, binop_nn, i31ref, i32;

    wasm_ref_type_set_type_idx(&leaf, true, T_LEAF);
    CHECK_REF(leaf, VALUE_TYPE_HT_NULLABLE_REF, true, T_LEAF, "(ref null $leaf)");
    wasm_ref_type_set_type_idx(&node, true, T_NODE);
    wasm_ref_type_set_type_idx(&node_nn, false, T_NODE);
    CHECK_REF(node_nn, VALUE_TYPE_HT_NON_NULLABLE_REF, false, T_NODE, "(ref $node)");
    wasm_ref_type_set_type_idx(&binop_nn, false, T_BINOP);
    wasm_ref_type_set_heap_type(&structref, true, HEAP_TYPE_STRUCT);
    CHECK_REF(structref, VALUE_TYPE_STRUCTREF, false, 0, "structref (WAMR's normal form)");
    wasm_ref_type_set_heap_type(&anyref, true, HEAP_TYPE_ANY);
    wasm_ref_type_set_heap_type(&eqref, true, HEAP_TYPE_EQ);
    wasm_ref_type_set_heap_type(&i31ref, true, HEAP_TYPE_I31);
    wasm_ref_type_set_heap_type(&funcref, true, HEAP_TYPE_FUNC);
    wasm_ref_type_set_heap_type(&funcref2, false, HEAP_TYPE_FUNC);
    CHECK_REF(funcref2, VALUE_TYPE_HT_NON_NULLABLE_REF, false, HEAP_TYPE_FUNC, "(ref func)");
    i32 = wasm_func_type_get_param_type((wasm_func_type_t)wasm_get_defined_type(m, T_BINOP), 0);

    CHECK(wasm_ref_type_is_subtype_of(&leaf, &node, m), "(ref null $leaf) <: (ref null $node)");
    CHECK(!wasm_ref_type_is_subtype_of(&node, &leaf, m), "not the other way");
    CHECK(!wasm_ref_type_is_subtype_of(&node, &node_nn, m), "nullable is not <: non-nullable");
    CHECK(wasm_ref_type_is_subtype_of(&node_nn, &node, m), "non-nullable <: nullable");
    CHECK(wasm_ref_type_is_subtype_of(&leaf, &structref, m) && wasm_ref_type_is_subtype_of(&leaf, &eqref, m) &&
              wasm_ref_type_is_subtype_of(&leaf, &anyref, m),
          "a struct type sits under struct, eq and any");
    CHECK(!wasm_ref_type_is_subtype_of(&leaf, &funcref, m), "a struct is no function");
    CHECK(wasm_ref_type_is_subtype_of(&binop_nn, &funcref, m) && wasm_ref_type_is_subtype_of(&binop_nn, &funcref2, m),
          "a function type sits under func");
    CHECK(wasm_ref_type_is_subtype_of(&i31ref, &eqref, NULL), "abstract types compare without a module");
    CHECK(!wasm_ref_type_is_subtype_of(&eqref, &i31ref, NULL), "eq is not <: i31");
    CHECK(!wasm_ref_type_is_subtype_of(&leaf, &node, NULL), "concrete types need the module");
    CHECK(wasm_ref_type_equal(&funcref, &funcref, m) && !wasm_ref_type_equal(&funcref, &funcref2, m), "equality");
    CHECK(wasm_ref_type_equal(&i32, &i32, m) && !wasm_ref_type_is_subtype_of(&i32, &anyref, m), "numbers");
    wasm_ref_type_set_type_idx(&node, true, T_COUNT);
    CHECK(!wasm_ref_type_is_subtype_of(&node, &anyref, m), "a type index past the module's types");
}

static void check_i31(void)
{
    wasm_i31_obj_t five = wasm_i31_obj_new(5), max = wasm_i31_obj_new(0x7FFFFFFF), wrap = wasm_i31_obj_new(0x80000001u);
    wasm_ref_type_t t;

    CHECK_EQ_INT(wasm_i31_obj_get_value(five, false), 5, "5");
    CHECK_EQ_INT(wasm_i31_obj_get_value(five, true), 5, "5 signed");
    CHECK_EQ_INT(wasm_i31_obj_get_value(max, false), 0x7FFFFFFF, "max unsigned");
    CHECK_EQ_INT(wasm_i31_obj_get_value(max, true), 0xFFFFFFFF, "max sign-extended is -1");
    CHECK_EQ_INT(wasm_i31_obj_get_value(wrap, false), 1, "the top bit is dropped");
    CHECK_EQ_INT(wasm_i31_obj_get_value(wasm_i31_obj_new(0x40000000), true), 0xC0000000, "bit 30 sign-extends");
    CHECK(wasm_obj_is_i31_obj((wasm_obj_t)five) && wasm_obj_is_eq_obj((wasm_obj_t)five) &&
              wasm_obj_is_internal_obj((wasm_obj_t)five),
          "an i31 is an internal eq object");
    CHECK(!wasm_obj_is_struct_obj((wasm_obj_t)five) && !wasm_obj_is_func_obj((wasm_obj_t)five) &&
              !wasm_obj_is_externref_obj((wasm_obj_t)five) && !wasm_obj_is_anyref_obj((wasm_obj_t)five),
          "and nothing else");
    wasm_ref_type_set_heap_type(&t, true, HEAP_TYPE_I31);
    CHECK(wasm_obj_is_instance_of_ref_type((wasm_obj_t)five, &t), "i31 is an i31ref");
    wasm_ref_type_set_heap_type(&t, false, HEAP_TYPE_ANY);
    CHECK(wasm_obj_is_instance_of_ref_type((wasm_obj_t)five, &t), "i31 is a (ref any)");
    wasm_ref_type_set_heap_type(&t, true, HEAP_TYPE_STRUCT);
    CHECK(!wasm_obj_is_instance_of_ref_type((wasm_obj_t)five, &t), "i31 is no structref");
}

static void check_func_objs(wasm_module_t m, wasm_module_inst_t inst, wasm_exec_env_t env, wasm_exec_env_t env2)
{
    wasm_func_obj_t add, twice, other, trap;
    uint32_t argv[2] = { 20, 22 };
    wasm_val_t args[2], results[1];
    wasm_ref_type_t t;

    add = wasm_func_obj_new_with_typeidx(env, T_BINOP, 0);
    CHECK(add != NULL, "a function object for $add");
    CHECK_EQ_INT(wasm_func_obj_get_func_idx_bound(add), 0, "bound index");
    CHECK(wasm_func_obj_get_func_type(add) == (wasm_func_type_t)wasm_get_defined_type(m, T_BINOP), "its type");
    CHECK(wasm_obj_get_defined_type((wasm_obj_t)add) == wasm_get_defined_type(m, T_BINOP), "its defined type");
    CHECK_EQ_INT(wasm_obj_get_defined_type_idx(m, (wasm_obj_t)add), T_BINOP, "its type index");
    CHECK(wasm_obj_is_func_obj((wasm_obj_t)add) && !wasm_obj_is_internal_obj((wasm_obj_t)add), "a function");
    CHECK(wasm_obj_is_instance_of_type_idx((wasm_obj_t)add, T_BINOP, m), "instance of $binop");
    CHECK(!wasm_obj_is_instance_of_type_idx((wasm_obj_t)add, T_SUB, m), "not of $sub_t");
    CHECK(wasm_obj_is_instance_of_defined_type((wasm_obj_t)add, wasm_get_defined_type(m, T_BINOP), m), "defined");
    wasm_ref_type_set_heap_type(&t, true, HEAP_TYPE_FUNC);
    CHECK(wasm_obj_is_instance_of_ref_type((wasm_obj_t)add, &t), "a funcref");
    wasm_ref_type_set_type_idx(&t, false, T_BINOP);
    CHECK(wasm_obj_is_instance_of_ref_type((wasm_obj_t)add, &t), "a (ref $binop)");
    wasm_ref_type_set_heap_type(&t, true, HEAP_TYPE_ANY);
    CHECK(!wasm_obj_is_instance_of_ref_type((wasm_obj_t)add, &t), "no anyref");

    /* Only a function of a subtype of the given type is bound. */
    CHECK(wasm_func_obj_new_with_typeidx(env, T_SUB, 0) == NULL, "$add is no $sub_t");
    CHECK(wasm_func_obj_new_with_typeidx(env, T_NODE, 0) == NULL, "a struct type is no function type");
    CHECK(wasm_func_obj_new_with_typeidx(env, T_BINOP, 99) == NULL, "no function 99");
    CHECK(wasm_func_obj_new_with_typeidx(env, T_COUNT, 0) == NULL, "no type past the end");
    twice = wasm_func_obj_new_with_type(env, (wasm_func_type_t)wasm_get_defined_type(m, T_SUB), 1);
    CHECK(twice != NULL, "a $final_sub function bound as its supertype");
    CHECK(wasm_obj_is_instance_of_type_idx((wasm_obj_t)twice, T_SUB, m), "instance of $sub_t");

    /* Calls: cells, wasm_val_t's and variadic arguments. */
    CHECK(wasm_runtime_call_func_ref(env, add, 2, argv), "call_func_ref: %s", exception(inst));
    CHECK_EQ_INT(argv[0], 42, "20 + 22");
    args[0].kind = WASM_I64;
    args[0].of.i64 = 21000000000LL;
    CHECK(wasm_runtime_call_func_ref_a(env, twice, 1, results, 1, args), "call_func_ref_a: %s", exception(inst));
    CHECK(results[0].kind == WASM_I64 && results[0].of.i64 == 42000000000LL, "twice");
    CHECK(wasm_runtime_call_func_ref_v(env, add, 1, results, 2, 3, 4), "call_func_ref_v: %s", exception(inst));
    CHECK(results[0].kind == WASM_I32 && results[0].of.i32 == 7, "3 + 4");
    CHECK(!wasm_runtime_call_func_ref_a(env, add, 1, results, 1, args), "argument count checked");

    trap = wasm_func_obj_new_with_typeidx(env, T_BINOP, 3);
    argv[0] = 1;
    argv[1] = 0;
    CHECK(!wasm_runtime_call_func_ref(env, trap, 2, argv), "a trap fails the call");
    CHECK_EXCEPTION(inst, "Exception: integer divide by zero");
    wasm_runtime_clear_exception(inst);

    CHECK(!wasm_runtime_call_func_ref(env, (wasm_func_obj_t)wasm_i31_obj_new(1), 2, argv), "an i31 is no function");
    CHECK_EXCEPTION(inst, "Exception: invalid function object");
    wasm_runtime_clear_exception(inst);
    other = wasm_func_obj_new_with_typeidx(env2, T_BINOP, 0);
    CHECK(other != NULL, "a function object of the other instance");
    CHECK(!wasm_runtime_call_func_ref(env, other, 2, argv), "not through this instance's exec env");
    CHECK_EXCEPTION(inst, "Exception: the function object does not belong to the instance of the exec env");
    wasm_runtime_clear_exception(inst);
}

static void check_extern_any(wasm_exec_env_t env)
{
    static int host;
    wasm_externref_obj_t e, e2, ei;
    wasm_anyref_obj_t a;
    wasm_obj_t inner;
    wasm_i31_obj_t i31 = wasm_i31_obj_new(77);
    wasm_ref_type_t t;

    e = wasm_externref_obj_new(env, &host);
    CHECK(e != NULL && wasm_externref_obj_get_value(e) == &host, "externref of a host pointer");
    CHECK(wasm_obj_is_externref_obj((wasm_obj_t)e) && !wasm_obj_is_anyref_obj((wasm_obj_t)e) &&
              !wasm_obj_is_internal_obj((wasm_obj_t)e),
          "an externref object");
    wasm_ref_type_set_heap_type(&t, true, HEAP_TYPE_EXTERN);
    CHECK(wasm_obj_is_instance_of_ref_type((wasm_obj_t)e, &t), "an externref");

    /* any.convert_extern gives the anyref object holding the pointer;
     * extern.convert_any wraps it again. */
    inner = wasm_externref_obj_to_internal_obj(e);
    CHECK(wasm_obj_is_anyref_obj(inner) && wasm_anyref_obj_get_value((wasm_anyref_obj_t)inner) == &host, "inner");
    e2 = wasm_internal_obj_to_externref_obj(env, inner);
    CHECK(e2 != NULL && e2 != e && wasm_externref_obj_get_value(e2) == &host, "round trip keeps the pointer");
    CHECK(wasm_externref_obj_to_internal_obj(e2) == inner, "and the internal object");

    /* An i31 made external comes back intact. */
    ei = wasm_internal_obj_to_externref_obj(env, (wasm_obj_t)i31);
    CHECK(ei != NULL && wasm_externref_obj_to_internal_obj(ei) == (wasm_obj_t)i31, "i31 round trip");
    CHECK_EQ_INT(wasm_i31_obj_get_value((wasm_i31_obj_t)wasm_externref_obj_to_internal_obj(ei), false), 77, "77");

    a = wasm_anyref_obj_new(env, &host);
    CHECK(a != NULL && wasm_anyref_obj_get_value(a) == &host, "anyref of a host pointer");
    CHECK(wasm_obj_is_internal_obj((wasm_obj_t)a) && !wasm_obj_is_eq_obj((wasm_obj_t)a), "internal, not eq (WAMR)");
    wasm_ref_type_set_heap_type(&t, true, HEAP_TYPE_ANY);
    CHECK(wasm_obj_is_instance_of_ref_type((wasm_obj_t)a, &t), "an anyref");
    wasm_ref_type_set_heap_type(&t, true, HEAP_TYPE_EQ);
    CHECK(!wasm_obj_is_instance_of_ref_type((wasm_obj_t)a, &t), "an internalised host value is no eqref");

    CHECK(wasm_internal_obj_to_externref_obj(env, (wasm_obj_t)e) == NULL, "an externref is not internal");
    CHECK(wasm_internal_obj_to_externref_obj(env, NULL) == NULL, "NULL");
    CHECK(wasm_externref_obj_new(NULL, &host) == NULL, "no exec env, no object");
    CHECK(wasm_externref_obj_get_value((wasm_externref_obj_t)a) == NULL, "an anyref object is no externref");

    /* Pins count; an i31 needs none. */
    CHECK(wasm_runtime_pin_object(env, (wasm_obj_t)e) && wasm_runtime_pin_object(env, (wasm_obj_t)e), "pin twice");
    CHECK(wasm_runtime_unpin_object(env, (wasm_obj_t)e) && wasm_runtime_unpin_object(env, (wasm_obj_t)e), "unpin");
    CHECK(!wasm_runtime_unpin_object(env, (wasm_obj_t)e), "not pinned any more");
    CHECK(wasm_runtime_pin_object(env, (wasm_obj_t)i31) && wasm_runtime_unpin_object(env, (wasm_obj_t)i31), "i31");
    CHECK(!wasm_runtime_pin_object(NULL, (wasm_obj_t)e) && !wasm_runtime_pin_object(env, NULL), "bad arguments");
}

static void check_local_refs(wasm_exec_env_t env)
{
    wasm_local_obj_ref_t r1, r2, r3;

    r1.val = (wasm_obj_t)wasm_i31_obj_new(9);
    CHECK(wasm_runtime_get_cur_local_obj_ref(env) == NULL, "an empty chain");
    wasm_runtime_push_local_obj_ref(env, &r1);
    CHECK(r1.val == NULL && r1.prev == NULL, "pushing clears the value");
    r1.val = (wasm_obj_t)wasm_i31_obj_new(9);
    wasm_runtime_push_local_obj_ref(env, &r2);
    wasm_runtime_push_local_obj_ref(env, &r3);
    CHECK(wasm_runtime_get_cur_local_obj_ref(env) == &r3 && r3.prev == &r2 && r2.prev == &r1, "the chain");
    CHECK(wasm_runtime_pop_local_obj_ref(env) == &r3, "pop gives the top");
    CHECK(wasm_runtime_get_cur_local_obj_ref(env) == &r2, "and removes it");
    wasm_runtime_pop_local_obj_refs(env, 2);
    CHECK(wasm_runtime_get_cur_local_obj_ref(env) == NULL, "popped all");
    CHECK(wasm_runtime_pop_local_obj_ref(env) == NULL, "popping an empty chain gives NULL");
    CHECK(wasm_obj_is_i31_obj(r1.val), "the client's link is left as it was");
}

static wasm_value_t i32v(int32_t v)
{
    wasm_value_t x;
    memset(&x, 0, sizeof x);
    x.i32 = v;
    return x;
}

static wasm_value_t objv(void *o)
{
    wasm_value_t x;
    memset(&x, 0, sizeof x);
    x.gc_obj = (wasm_obj_t)o;
    return x;
}

static void check_structs(wasm_module_t m, wasm_exec_env_t env, wasm_exec_env_t env2)
{
    static int host;
    wasm_struct_obj_t n, n2, leaf, w, a, other;
    wasm_value_t v;
    wasm_ref_type_t t;

    n = wasm_struct_obj_new_with_typeidx(env, T_NODE);
    CHECK(n != NULL, "a $node");
    CHECK_EQ_INT(wasm_struct_obj_get_field_count(n), 2, "node fields");
    wasm_struct_obj_get_field(n, 0, false, &v);
    CHECK_EQ_INT(v.i32, 0, "fields start at zero");
    wasm_struct_obj_get_field(n, 1, false, &v);
    CHECK(v.gc_obj == NULL, "and null");
    v = i32v(41);
    wasm_struct_obj_set_field(n, 0, &v);
    wasm_struct_obj_get_field(n, 0, true, &v);
    CHECK_EQ_INT(v.i32, 41, "set, then read");
    CHECK(wasm_obj_is_struct_obj((wasm_obj_t)n) && !wasm_obj_is_array_obj((wasm_obj_t)n), "a struct object");
    CHECK(wasm_obj_is_eq_obj((wasm_obj_t)n) && wasm_obj_is_internal_obj((wasm_obj_t)n), "an internal eq object");
    wasm_ref_type_set_heap_type(&t, true, HEAP_TYPE_STRUCT);
    CHECK(wasm_obj_is_instance_of_ref_type((wasm_obj_t)n, &t), "a structref");
    wasm_ref_type_set_heap_type(&t, true, HEAP_TYPE_ARRAY);
    CHECK(!wasm_obj_is_instance_of_ref_type((wasm_obj_t)n, &t), "no arrayref");

    /* A reference field, immutable: set from the host all the same, as
     * in WAMR (a struct made from C has no other way to get a value). */
    n2 = wasm_struct_obj_new_with_type(env, (wasm_struct_type_t)wasm_get_defined_type(m, T_NODE));
    CHECK(n2 != NULL, "a $node by type");
    v = objv(n);
    wasm_struct_obj_set_field(n2, 1, &v);
    wasm_struct_obj_get_field(n2, 1, false, &v);
    CHECK(v.gc_obj != NULL && wasm_obj_is_struct_obj(v.gc_obj), "a struct in a struct");
    wasm_struct_obj_get_field((wasm_struct_obj_t)v.gc_obj, 0, false, &v);
    CHECK_EQ_INT(v.i32, 41, "the same object: its field");
    v = i32v(-7);
    wasm_struct_obj_set_field(n, 0, &v);
    wasm_struct_obj_get_field(n2, 1, false, &v);
    wasm_struct_obj_get_field((wasm_struct_obj_t)v.gc_obj, 0, false, &v);
    CHECK_EQ_INT(v.i32, -7, "a write through one handle shows through the other");

    /* A subtype's object fits a field of its supertype; others do not. */
    leaf = wasm_struct_obj_new_with_typeidx(env, T_LEAF);
    v = objv(leaf);
    wasm_struct_obj_set_field(n, 1, &v);
    wasm_struct_obj_get_field(n, 1, false, &v);
    CHECK(v.gc_obj != NULL && wasm_struct_obj_get_field_count((wasm_struct_obj_t)v.gc_obj) == 3, "a $leaf in it");
    a = wasm_struct_obj_new_with_typeidx(env, T_A);
    v = objv(a);
    wasm_struct_obj_set_field(n, 1, &v);
    wasm_struct_obj_get_field(n, 1, false, &v);
    CHECK(v.gc_obj != NULL && wasm_struct_obj_get_field_count((wasm_struct_obj_t)v.gc_obj) == 3,
          "an $a is refused: the $leaf stays");
    v = objv(NULL);
    wasm_struct_obj_set_field(n, 1, &v);
    wasm_struct_obj_get_field(n, 1, false, &v);
    CHECK(v.gc_obj == NULL, "null goes in");

    /* Defined types: declared subtyping, and equal types of one module. */
    CHECK(wasm_obj_get_defined_type((wasm_obj_t)n) == wasm_get_defined_type(m, T_NODE), "a $node's type");
    CHECK_EQ_INT(wasm_obj_get_defined_type_idx(m, (wasm_obj_t)leaf), T_LEAF, "a $leaf's index");
    CHECK(wasm_obj_is_instance_of_type_idx((wasm_obj_t)leaf, T_NODE, m), "a $leaf is a $node");
    CHECK(!wasm_obj_is_instance_of_type_idx((wasm_obj_t)n, T_LEAF, m), "a $node is no $leaf");
    CHECK(wasm_obj_is_instance_of_defined_type((wasm_obj_t)leaf, wasm_get_defined_type(m, T_NODE), m), "defined");
    wasm_ref_type_set_type_idx(&t, false, T_NODE);
    CHECK(wasm_obj_is_instance_of_ref_type((wasm_obj_t)leaf, &t), "a (ref $node)");
    wasm_ref_type_set_type_idx(&t, false, T_LEAF);
    CHECK(!wasm_obj_is_instance_of_ref_type((wasm_obj_t)n, &t), "not a (ref $leaf)");
    other = wasm_struct_obj_new_with_typeidx(env, T_A2);
    CHECK_EQ_INT(wasm_obj_get_defined_type_idx(m, (wasm_obj_t)other), T_A, "an $a2 is an $a (the first index)");
    CHECK(wasm_obj_is_instance_of_type_idx((wasm_obj_t)other, T_A, m), "of type $a");
    CHECK(!wasm_obj_is_instance_of_type_idx((wasm_obj_t)other, T_PLAIN, m), "not of $plain");

    /* Packed fields keep their low bits and read sign-extended or not. */
    v = i32v(0x1F0);
    wasm_struct_obj_set_field(leaf, 2, &v);
    wasm_struct_obj_get_field(leaf, 2, false, &v);
    CHECK_EQ_INT(v.i32, 0xF0, "i8 zero-extended");
    wasm_struct_obj_get_field(leaf, 2, true, &v);
    CHECK_EQ_INT(v.i32, -16, "i8 sign-extended");

    /* Every other storage type. */
    w = wasm_struct_obj_new_with_typeidx(env, T_WIDE);
    CHECK(w != NULL, "a $wide");
    v = i32v(0x18000);
    wasm_struct_obj_set_field(w, 0, &v);
    wasm_struct_obj_get_field(w, 0, true, &v);
    CHECK_EQ_INT(v.i32, -32768, "i16 sign-extended");
    wasm_struct_obj_get_field(w, 0, false, &v);
    CHECK_EQ_INT(v.i32, 0x8000, "i16 zero-extended");
    v.i64 = -5000000000LL;
    wasm_struct_obj_set_field(w, 1, &v);
    v.i64 = 0;
    wasm_struct_obj_get_field(w, 1, false, &v);
    CHECK(v.i64 == -5000000000LL, "i64");
    v.f32 = 1.5f;
    wasm_struct_obj_set_field(w, 2, &v);
    v.f64 = 2.25;
    wasm_struct_obj_set_field(w, 3, &v);
    wasm_struct_obj_get_field(w, 2, false, &v);
    CHECK(v.f32 == 1.5f, "f32");
    wasm_struct_obj_get_field(w, 3, false, &v);
    CHECK(v.f64 == 2.25, "f64");
    v = objv(wasm_externref_obj_new(env, &host));
    wasm_struct_obj_set_field(w, 4, &v);
    v = objv(NULL);
    wasm_struct_obj_get_field(w, 4, false, &v);
    CHECK(wasm_obj_is_externref_obj(v.gc_obj) && wasm_externref_obj_get_value((wasm_externref_obj_t)v.gc_obj) == &host,
          "an externref field gives the host pointer back");
    v = objv((void *)wasm_i31_obj_new(123));
    wasm_struct_obj_set_field(w, 5, &v);
    wasm_struct_obj_get_field(w, 5, false, &v);
    CHECK(wasm_obj_is_i31_obj(v.gc_obj) && wasm_i31_obj_get_value((wasm_i31_obj_t)v.gc_obj, false) == 123, "i31");
    v = objv(n);
    wasm_struct_obj_set_field(w, 5, &v);
    wasm_struct_obj_get_field(w, 5, false, &v);
    CHECK(wasm_obj_is_struct_obj(v.gc_obj), "a struct in an anyref field");
    v = objv(wasm_anyref_obj_new(env, &host));
    wasm_struct_obj_set_field(w, 5, &v);
    wasm_struct_obj_get_field(w, 5, false, &v);
    CHECK(wasm_obj_is_struct_obj(v.gc_obj), "an anyref object cannot go in (logged): the struct stays");
    memset(&v, 0, sizeof v);
    v.v128.i64x2[0] = 1;
    v.v128.i64x2[1] = -2;
    wasm_struct_obj_set_field(w, 6, &v);
    memset(&v, 0, sizeof v);
    wasm_struct_obj_get_field(w, 6, false, &v);
    CHECK(v.v128.i64x2[0] == 1 && v.v128.i64x2[1] == -2, "v128");

    /* Refusals: bad indices, types, kinds, another instance's object. */
    v = i32v(5);
    wasm_struct_obj_set_field(n, 9, &v);
    v = i32v(99);
    wasm_struct_obj_get_field(n, 9, false, &v);
    CHECK_EQ_INT(v.i32, 0, "no field 9: zero");
    CHECK(wasm_struct_obj_new_with_typeidx(env, T_BYTES) == NULL, "an array type makes no struct");
    CHECK(wasm_struct_obj_new_with_typeidx(env, T_COUNT) == NULL, "no type past the end");
    CHECK(wasm_struct_obj_new_with_typeidx(env, T_STRICT) == NULL, "a non-nullable field has no default");
    CHECK(wasm_struct_obj_new_with_typeidx(NULL, T_NODE) == NULL, "no exec env");
    CHECK_EQ_INT(wasm_struct_obj_get_field_count((wasm_struct_obj_t)wasm_i31_obj_new(1)), 0, "an i31 is no struct");
    other = wasm_struct_obj_new_with_typeidx(env2, T_NODE);
    CHECK(other != NULL, "a $node of the other instance");
    v = objv(other);
    wasm_struct_obj_set_field(n, 1, &v);
    wasm_struct_obj_get_field(n, 1, false, &v);
    CHECK(v.gc_obj == NULL, "another store's object is refused");
    CHECK(wasm_runtime_pin_object(env, (wasm_obj_t)n) && wasm_runtime_unpin_object(env, (wasm_obj_t)n), "pins");
}

static void check_arrays(wasm_module_t m, wasm_exec_env_t env)
{
    wasm_array_obj_t b, c, nodes, refs, empty;
    wasm_struct_obj_t n;
    wasm_value_t v;
    uint8_t *p;

    v = i32v(0x81);
    b = wasm_array_obj_new_with_typeidx(env, T_BYTES, 6, &v);
    CHECK(b != NULL && wasm_array_obj_length(b) == 6, "six bytes");
    CHECK(wasm_obj_is_array_obj((wasm_obj_t)b) && !wasm_obj_is_struct_obj((wasm_obj_t)b), "an array object");
    wasm_array_obj_get_elem(b, 5, false, &v);
    CHECK_EQ_INT(v.i32, 0x81, "filled, zero-extended");
    wasm_array_obj_get_elem(b, 5, true, &v);
    CHECK_EQ_INT(v.i32, -127, "sign-extended");
    for (int k = 0; k < 6; k++) {
        v = i32v(k);
        wasm_array_obj_set_elem(b, (uint32_t)k, &v);
    }
    /* Elements in place: packed bytes, until the next allocation. */
    p = wasm_array_obj_first_elem_addr(b);
    CHECK(p != NULL && p[0] == 0 && p[5] == 5, "bytes in place");
    CHECK((uint8_t *)wasm_array_obj_elem_addr(b, 2) == p + 2, "element 2's address");
    CHECK((uint8_t *)wasm_array_obj_elem_addr(b, 6) == p + 6, "the end's address");
    CHECK(wasm_array_obj_elem_addr(b, 7) == NULL, "past the end");
    p[3] = 0x33;
    wasm_array_obj_get_elem(b, 3, false, &v);
    CHECK_EQ_INT(v.i32, 0x33, "a write in place shows");

    /* Copies: overlapping, between arrays, refused out of bounds. */
    wasm_array_obj_copy(b, 1, b, 0, 5);
    wasm_array_obj_get_elem(b, 5, false, &v);
    CHECK_EQ_INT(v.i32, 4, "an overlapping copy moves the tail");
    wasm_array_obj_get_elem(b, 1, false, &v);
    CHECK_EQ_INT(v.i32, 0, "and the head");
    c = wasm_array_obj_new_with_type(env, (wasm_array_type_t)wasm_get_defined_type(m, T_BYTES), 2, NULL);
    CHECK(c != NULL && wasm_array_obj_length(c) == 2, "two default bytes");
    v = i32v(9);
    wasm_array_obj_set_elem(c, 0, &v);
    wasm_array_obj_set_elem(c, 1, &v);
    wasm_array_obj_copy(b, 0, c, 0, 2);
    wasm_array_obj_get_elem(b, 1, false, &v);
    CHECK_EQ_INT(v.i32, 9, "copied from another array");
    wasm_array_obj_copy(c, 1, b, 2, 2);
    wasm_array_obj_get_elem(c, 1, false, &v);
    CHECK_EQ_INT(v.i32, 9, "a copy past the end does nothing");
    wasm_array_obj_copy(c, 0, b, 2, 2);
    wasm_array_obj_get_elem(c, 1, false, &v);
    CHECK_EQ_INT(v.i32, 2, "one within bounds does");
    v = i32v(1);
    wasm_array_obj_set_elem(c, 2, &v);
    wasm_array_obj_get_elem(c, 2, false, &v);
    CHECK_EQ_INT(v.i32, 0, "no element 2");

    /* Arrays of references. */
    n = wasm_struct_obj_new_with_typeidx(env, T_NODE);
    v = objv(n);
    nodes = wasm_array_obj_new_with_typeidx(env, T_NODES, 3, &v);
    CHECK(nodes != NULL && wasm_array_obj_length(nodes) == 3, "three nodes");
    wasm_array_obj_get_elem(nodes, 2, false, &v);
    CHECK(wasm_obj_is_struct_obj(v.gc_obj), "each the node");
    v = i32v(8);
    wasm_struct_obj_set_field(n, 0, &v);
    wasm_array_obj_get_elem(nodes, 0, false, &v);
    wasm_struct_obj_get_field((wasm_struct_obj_t)v.gc_obj, 0, false, &v);
    CHECK_EQ_INT(v.i32, 8, "the same node");
    v = objv(b);
    CHECK(wasm_array_obj_new_with_typeidx(env, T_NODES, 1, &v) == NULL, "bytes are no node");
    refs = wasm_array_obj_new_with_typeidx(env, T_REFS, 2, NULL);
    v = objv(b);
    wasm_array_obj_set_elem(refs, 1, &v);
    wasm_array_obj_get_elem(refs, 1, false, &v);
    CHECK(wasm_obj_is_array_obj(v.gc_obj) && wasm_array_obj_length((wasm_array_obj_t)v.gc_obj) == 6, "an array in one");
    wasm_array_obj_get_elem(refs, 0, false, &v);
    CHECK(v.gc_obj == NULL, "and a null");
    wasm_array_obj_copy(refs, 0, nodes, 0, 1);
    wasm_array_obj_get_elem(refs, 0, false, &v);
    CHECK(wasm_obj_is_struct_obj(v.gc_obj), "nodes copy into anyrefs");
    wasm_array_obj_copy(nodes, 0, refs, 1, 1);
    wasm_array_obj_get_elem(nodes, 0, false, &v);
    CHECK(wasm_obj_is_struct_obj(v.gc_obj), "anyrefs do not copy into nodes");

    empty = wasm_array_obj_new_with_typeidx(env, T_BYTES, 0, NULL);
    CHECK(empty != NULL && wasm_array_obj_length(empty) == 0, "an empty array");
    CHECK(wasm_array_obj_first_elem_addr(empty) != NULL, "has an address (its end)");
    CHECK(wasm_array_obj_new_with_typeidx(env, T_NODE, 1, NULL) == NULL, "a struct type makes no array");
    CHECK(wasm_array_obj_new_with_typeidx(env, T_BYTES, 0x7FFFFFFF, NULL) == NULL, "too large for the heap");
    CHECK_EQ_INT(wasm_array_obj_length((wasm_array_obj_t)n), 0, "a struct is no array");
    CHECK(wasm_array_obj_elem_addr((wasm_array_obj_t)n, 0) == NULL, "nor has elements");
}

int main(int argc, char **argv)
{
    wasm_module_t m;
    wasm_module_inst_t i, i2;
    wasm_exec_env_t env, env2;
    wasm_func_obj_t f;
    wasm_externref_obj_t e;
    wasm_struct_obj_t s;
    wasm_defined_type_t node;
    static int host;

    test_init(argc, argv, "export_gc");
    CHECK(wasm_runtime_init(), "wasm_runtime_init");
    m = load_wat(WAT);
    i = instantiate_module(m, 0);
    i2 = instantiate_module(m, 0);
    env = wasm_runtime_create_exec_env(i, 65536);
    env2 = wasm_runtime_create_exec_env(i2, 65536);
    CHECK(env != NULL && env2 != NULL, "exec envs");

    check_types(m);
    check_ref_types(m);
    check_i31();
    check_func_objs(m, i, env, env2);
    check_extern_any(env);
    check_local_refs(env);
    check_structs(m, env, env2);
    check_arrays(m, env);

    /* Objects go with their instance, types with their module: later
     * uses are refused, not read. */
    f = wasm_func_obj_new_with_typeidx(env2, T_BINOP, 0);
    e = wasm_externref_obj_new(env2, &host);
    s = wasm_struct_obj_new_with_typeidx(env2, T_NODE);
    CHECK(f != NULL && e != NULL && s != NULL, "objects of the second instance");
    wasm_runtime_destroy_exec_env(env2);
    wasm_runtime_deinstantiate(i2);
    CHECK(!wasm_obj_is_func_obj((wasm_obj_t)f) && wasm_externref_obj_get_value(e) == NULL, "gone with i2");
    CHECK(!wasm_obj_is_struct_obj((wasm_obj_t)s) && wasm_struct_obj_get_field_count(s) == 0, "a struct too");
    node = wasm_get_defined_type(m, T_NODE);
    wasm_runtime_destroy_exec_env(env);
    wasm_runtime_deinstantiate(i);
    wasm_runtime_unload(m);
    CHECK(!wasm_defined_type_is_struct_type(node), "types go with their module");
    wasm_runtime_destroy();
    test_pass();
    return 0;
}
