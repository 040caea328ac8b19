/* WAMR's rules for references in wasm_runtime_call_wasm (32-bit cells),
 * _call_wasm_a (wasm_val_t) and _call_wasm_v (variadic), issue 30 #1
 * (WAMR's ref-types sample), on wat/export_wamr_refs.wat.
 *
 * Every expected value here was recorded from a run of WAMR 2.4.3
 * (product-mini build with reference types, its default, fast
 * interpreter; see export_wamr.h), then checked against its source
 * (wasm_runtime_prepare_call_function, parse_args_to_uint32_array,
 * parse_uint32_array_to_results in wasm_runtime_common.c):
 *  - argc counts an externref as one cell (the interpreter's), argv holds
 *    it in two (a host pointer): (i32, externref) runs with argc 2 and 3
 *    cells;
 *  - parameters are read while their first cell lies below argc: in
 *    (externref, i32) with argc 2 the i32 reads as 0;
 *  - externref results come back in two cells, a host pointer;
 *  - a funcref is the function's index in one cell (0xffffffff: null),
 *    both ways; _a gives a funcref result with the kind WASM_I32; an index
 *    past the instance's functions fails with "unknown function";
 *  - a NULL host pointer is not ref.null in wasm.
 * OURS: WAMR's default build ignores an argc below the function's cell
 * count and reads on (its build without reference types refuses with the
 * message checked here); _a reads a value of another width than the
 * parameter's and shifts the later ones; ours refuses both. */
#include "export_wamr.h"

static uint32_t cells[8];

static void put_ptr(uint32_t *c, const void *p)
{
    memcpy(c, &p, sizeof p);
}

static void *get_ptr(const uint32_t *c)
{
    void *p;
    memcpy(&p, c, sizeof p);
    return p;
}

int main(int argc, char **argv)
{
    void *obj = (void *)(uintptr_t)0x123456789abcULL, *other = (void *)(uintptr_t)0x5555aaaa7777ULL;
    wasm_module_t m;
    wasm_module_inst_t i;
    wasm_exec_env_t env;
    wasm_val_t args[2], results[1];
    uint32_t index_f1, index_f2;

    test_init(argc, argv, "export_wamr_calls");
    CHECK(wasm_runtime_init(), "wasm_runtime_init");
    m = load("export_wamr_refs");
    i = new_instance(m, 0);
    env = wasm_runtime_create_exec_env(i, 65536);
    CHECK(env != NULL, "create_exec_env");

    /* (i32, externref): argc 2, three cells. */
    cells[0] = 1;
    put_ptr(&cells[1], obj);
    CHECK(wasm_runtime_call_wasm(env, func(i, "set"), 2, cells), "set(1, obj) with argc 2: %s", exception_of(i));
    cells[0] = 1;
    CHECK(wasm_runtime_call_wasm(env, func(i, "get"), 1, cells), "get(1)");
    CHECK(get_ptr(cells) == obj, "the externref result comes back in two cells: %p", get_ptr(cells));

    /* (externref, i32): the i32 starts at cell 2, past argc 2. */
    put_ptr(&cells[0], obj);
    cells[2] = 77;
    CHECK(wasm_runtime_call_wasm(env, func(i, "ext_then_i32"), 2, cells), "argc 2: %s", exception_of(i));
    CHECK_EQ_INT(cells[0], 0, "a parameter starting at or past argc reads as 0");
    put_ptr(&cells[0], obj);
    cells[2] = 77;
    CHECK(wasm_runtime_call_wasm(env, func(i, "ext_then_i32"), 3, cells), "argc 3");
    CHECK_EQ_INT(cells[0], 77, "with argc 3 the i32 is read");

    /* A NULL host pointer is a reference in wasm, not ref.null. */
    put_ptr(&cells[0], NULL);
    CHECK(wasm_runtime_call_wasm(env, func(i, "is_null"), 1, cells), "is_null(NULL)");
    CHECK_EQ_INT(cells[0], 0, "NULL is not ref.null");

    /* Funcrefs are function indices. */
    cells[0] = 1;
    CHECK(wasm_runtime_call_wasm(env, func(i, "get_funcref"), 1, cells), "get_funcref(1)");
    index_f1 = cells[0];
    cells[0] = 2;
    CHECK(wasm_runtime_call_wasm(env, func(i, "get_funcref"), 1, cells), "get_funcref(2)");
    index_f2 = cells[0];
    CHECK(index_f1 == 0 && index_f2 == 1, "funcref results are function indices: %u, %u", index_f1, index_f2);
    cells[0] = 3;
    CHECK(wasm_runtime_call_wasm(env, func(i, "get_funcref"), 1, cells), "get_funcref(3)");
    CHECK_EQ_INT(cells[0], 0xffffffffu, "null is 0xffffffff");
    cells[0] = index_f2;
    CHECK(wasm_runtime_call_wasm(env, func(i, "call_funcref"), 1, cells), "call_funcref(1): %s", exception_of(i));
    CHECK_EQ_INT(cells[0], 22, "the funcref of index 1 calls $f2");
    cells[0] = 0xffffffffu;
    CHECK(!wasm_runtime_call_wasm(env, func(i, "call_funcref"), 1, cells), "calling null fails");
    CHECK_EXC(i, "Exception: uninitialized element");
    wasm_runtime_clear_exception(i);
    cells[0] = 99;
    CHECK(!wasm_runtime_call_wasm(env, func(i, "call_funcref"), 1, cells), "an index past the functions fails");
    CHECK_EXC(i, "Exception: unknown function");
    wasm_runtime_clear_exception(i);

    /* _a: externref as a pointer (wasm_export.h's of.foreign; of.i64 here,
       where wasm_c_api.h defines wasm_val_t), funcref as of.i32 with WASM_FUNCREF,
       a funcref result with the kind WASM_I32. */
    args[0].kind = WASM_EXTERNREF;
    args[0].of.i64 = (int64_t)(uintptr_t)other;
    args[1].kind = WASM_I32;
    args[1].of.i32 = 9;
    CHECK(wasm_runtime_call_wasm_a(env, func(i, "ext_then_i32"), 1, results, 2, args), "_a (externref, i32)");
    CHECK(results[0].kind == WASM_I32 && results[0].of.i32 == 9, "_a: i32 after an externref");
    args[0].kind = WASM_I32;
    args[0].of.i32 = 1;
    CHECK(wasm_runtime_call_wasm_a(env, func(i, "get"), 1, results, 1, args), "_a get(1)");
    CHECK(results[0].kind == WASM_EXTERNREF && results[0].of.i64 == (int64_t)(uintptr_t)obj, "_a: externref result");
    args[0].of.i32 = 2;
    CHECK(wasm_runtime_call_wasm_a(env, func(i, "get_funcref"), 1, results, 1, args), "_a get_funcref(2)");
    CHECK(results[0].kind == WASM_I32 && results[0].of.i32 == 1, "_a: a funcref result is an index of kind WASM_I32 (%d, %d)",
          results[0].kind, results[0].of.i32);
    args[0].kind = WASM_FUNCREF;
    args[0].of.i32 = (int32_t)index_f1;
    CHECK(wasm_runtime_call_wasm_a(env, func(i, "call_funcref"), 1, results, 1, args), "_a call_funcref: %s",
          exception_of(i));
    CHECK_EQ_INT(results[0].of.i32, 11, "_a: a funcref argument is an index");

    /* _v: externref as a pointer, funcref as a uint32_t index. */
    CHECK(wasm_runtime_call_wasm_v(env, func(i, "ext_then_i32"), 1, results, 2, obj, 5), "_v (externref, i32)");
    CHECK_EQ_INT(results[0].of.i32, 5, "_v: i32 after an externref");
    CHECK(wasm_runtime_call_wasm_v(env, func(i, "call_funcref"), 1, results, 1, index_f2), "_v call_funcref: %s",
          exception_of(i));
    CHECK_EQ_INT(results[0].of.i32, 22, "_v: a funcref argument is an index");

    if (OURS("WAMR's default build reads past argc (its build without reference types refuses so)")) {
        cells[0] = 5;
        cells[1] = 6;
        CHECK(!wasm_runtime_call_wasm(env, func(i, "add"), 1, cells), "argc below the cell count");
        CHECK_EXC(i, "Exception: invalid argument count 1, must be no smaller than 2");
        wasm_runtime_clear_exception(i);
        put_ptr(&cells[0], obj);
        CHECK(!wasm_runtime_call_wasm(env, func(i, "ext_then_i32"), 1, cells), "argc 1 for (externref, i32)");
        CHECK_EXC(i, "Exception: invalid argument count 1, must be no smaller than 2");
        wasm_runtime_clear_exception(i);
    }
    if (OURS("WAMR lays an argument out by its own kind: one of another width shifts the later ones")) {
        args[0].kind = WASM_I64;
        args[0].of.i64 = 3;
        args[1].kind = WASM_I32;
        args[1].of.i32 = 4;
        CHECK(!wasm_runtime_call_wasm_a(env, func(i, "add"), 1, results, 2, args), "an i64 for an i32 is refused");
    }
    /* A value of another kind of the same width passes its bits, as in
       WAMR: an f32 for an i32. */
    args[0].kind = WASM_F32;
    args[0].of.f32 = 1.0f;
    args[1].kind = WASM_I32;
    args[1].of.i32 = 1;
    CHECK(wasm_runtime_call_wasm_a(env, func(i, "add"), 1, results, 2, args), "an f32 for an i32 passes its bits");
    CHECK_EQ_INT(results[0].of.i32, 0x3f800001, "1.0f's bits plus 1");

    wasm_runtime_destroy_exec_env(env);
    wasm_runtime_deinstantiate(i);
    unload(m);
    wasm_runtime_destroy();
    test_pass();
    return 0;
}
