/* gc_export.h without heap objects (issue 40): reflection on a module's
 * defined types (rec groups, struct/array/func types, packed and mutable
 * fields, declared subtyping, iso-recursive equality), reference types,
 * i31 round trips, function objects and wasm_runtime_call_func_ref{,_a,_v},
 * externref/anyref objects and their conversions, the object predicates,
 * pin/unpin, local object refs, and what a deinstantiation and an unload
 * take with them. */
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
    "  (func $add (export \"add\") (type $binop) (i32.add (local.get 0) (local.get 1)))\n"
    "  (func $twice (type $final_sub) (i64.mul (local.get 0) (i64.const 2)))\n"
    "  (func $takes_fn (type $takes) (ref.null $bytes) (ref.null eq))\n"
    "  (func (export \"trap\") (type $binop) (i32.div_s (local.get 0) (local.get 1))))";

enum { T_NODE, T_LEAF, T_BYTES, T_NODES, T_BINOP, T_SUB, T_FINAL_SUB, T_A, T_B, T_A2, T_B2, T_PLAIN, T_TAKES,
       T_COUNT };

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

int main(int argc, char **argv)
{
    wasm_module_t m;
    wasm_module_inst_t i, i2;
    wasm_exec_env_t env, env2;
    wasm_func_obj_t f;
    wasm_externref_obj_t e;
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

    /* Objects go with their instance, types with their module: later
     * uses are refused, not read. */
    f = wasm_func_obj_new_with_typeidx(env2, T_BINOP, 0);
    e = wasm_externref_obj_new(env2, &host);
    CHECK(f != NULL && e != NULL, "objects of the second instance");
    wasm_runtime_destroy_exec_env(env2);
    wasm_runtime_deinstantiate(i2);
    CHECK(!wasm_obj_is_func_obj((wasm_obj_t)f) && wasm_externref_obj_get_value(e) == NULL, "gone with i2");
    node = wasm_get_defined_type(m, T_NODE);
    wasm_runtime_destroy_exec_env(env);
    wasm_runtime_deinstantiate(i);
    wasm_runtime_unload(m);
    CHECK(!wasm_defined_type_is_struct_type(node), "types go with their module");
    wasm_runtime_destroy();
    test_pass();
    return 0;
}
