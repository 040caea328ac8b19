/* Tables through the C API: wasm_table_get/set/grow/size on an exported
   funcref table, funcref values handed between the host and wasm, and
   call_indirect through a table the host created and filled (with a host
   function and with a wasm export); wasm_table_set takes the function
   reference it is given, as WAMR's does. */
#include "common.h"

static void count_finalizer(void *p)
{
    (*(int *)p)++;
}

static int32_t call2(const instance_t *inst, const char *name, int32_t a,
                     int32_t b)
{
    wasm_val_t args[2] = { WASM_I32_VAL(a), WASM_I32_VAL(b) };
    wasm_val_t r[1] = { WASM_INIT_VAL };
    EXPECT_NO_TRAP(call(export_func(inst, name), args, 2, r, 1));
    CHECK(r[0].kind == WASM_I32, "%s result kind %d", name, r[0].kind);
    return r[0].of.i32;
}

static wasm_trap_t *call2_trap(const instance_t *inst, const char *name,
                               int32_t a, int32_t b)
{
    wasm_val_t args[2] = { WASM_I32_VAL(a), WASM_I32_VAL(b) };
    wasm_val_t r[1] = { WASM_INIT_VAL };
    return call(export_func(inst, name), args, 2, r, 1);
}

static int32_t call1(const instance_t *inst, const char *name, int32_t a)
{
    wasm_val_t args[1] = { WASM_I32_VAL(a) };
    wasm_val_t r[1] = { WASM_INIT_VAL };
    EXPECT_NO_TRAP(call(export_func(inst, name), args, 1, r, 1));
    return r[0].of.i32;
}

static int32_t call0(const instance_t *inst, const char *name)
{
    wasm_val_t r[1] = { WASM_INIT_VAL };
    EXPECT_NO_TRAP(call(export_func(inst, name), NULL, 0, r, 1));
    return r[0].of.i32;
}

/* Calls the function stored in a table slot directly from the host. */
static int32_t call_slot(const wasm_table_t *t, uint32_t i, int32_t arg,
                         size_t nparams)
{
    wasm_ref_t *ref = wasm_table_get(t, i);
    wasm_func_t *f;
    wasm_val_t a[1] = { WASM_I32_VAL(arg) }, r[1] = { WASM_INIT_VAL };
    CHECK(ref != NULL, "table slot %u is null", i);
    f = wasm_ref_as_func(ref);
    CHECK(f != NULL, "table slot %u does not hold a func", i);
    CHECK_EQ_INT(wasm_func_param_arity(f), nparams, "arity of table func");
    EXPECT_NO_TRAP(call(f, a, nparams, r, 1));
    /* Two objects, as in WAMR: the reference and the func made from it. */
    wasm_ref_delete(ref);
    wasm_func_delete(f);
    return r[0].of.i32;
}

static void check_type(const wasm_table_t *t, uint32_t min, uint32_t max)
{
    wasm_tabletype_t *tt = wasm_table_type(t);
    const wasm_limits_t *l;
    CHECK(tt != NULL, "wasm_table_type");
    CHECK_EQ_INT(wasm_valtype_kind(wasm_tabletype_element(tt)), WASM_FUNCREF,
                 "table element kind");
    l = wasm_tabletype_limits(tt);
    CHECK(l->min == min && l->max == max, "limits {%u, %u}, expected "
          "{%u, %u}", l->min, l->max, min, max);
    wasm_tabletype_delete(tt);
}

static wasm_trap_t *plus1000_cb(const wasm_val_vec_t *args,
                                wasm_val_vec_t *results)
{
    results->data[0].kind = WASM_I32;
    results->data[0].of.i32 = args->data[0].of.i32 + 1000;
    return NULL;
}

int main(int argc, char **argv)
{
    wasm_engine_t *engine;
    wasm_store_t *store;
    wasm_module_t *module, *module2;
    wasm_table_t *ht, *t;
    wasm_func_t *hf;
    wasm_extern_t *imports[1];
    instance_t inst, inst2;
    wasm_ref_t *ref;
    const wasm_valkind_t i32[1] = { WASM_I32 };

    test_init(argc, argv, "tables");
    engine = wasm_engine_new();
    store = wasm_store_new(engine);
    module = compile_module(store, "tables_export");
    inst = instantiate(store, module, NULL, 0);
    t = wasm_extern_as_table(export_named(&inst, "tab"));
    CHECK(t != NULL, "export tab is not a table");

    /* --- The exported table, as the element segment filled it. --- */
    check_type(t, 3, 6);
    CHECK_EQ_INT(wasm_table_size(t), 3, "table size");
    CHECK_EQ_INT(call0(&inst, "size_t"), 3, "table.size");
    ref = wasm_table_get(t, 0);
    CHECK(ref == NULL, "slot 0 is null");
    CHECK_EQ_INT(call_slot(t, 1, 5, 1), 105, "slot 1 holds add100");
    CHECK_EQ_INT(call_slot(t, 2, 5, 1), 10, "slot 2 holds double");
    CHECK(wasm_table_get(t, 3) == NULL, "get past the end returns NULL");
    CHECK(wasm_table_get(t, 0xffffffffu) == NULL, "get at 2^32-1");
    CHECK_EQ_INT(call2(&inst, "call_t", 1, 5), 105, "call_indirect slot 1");
    CHECK_EQ_INT(call2(&inst, "call_t", 2, 5), 10, "call_indirect slot 2");
    EXPECT_TRAP(call2_trap(&inst, "call_t", 0, 5),
                "Exception: uninitialized element");
    EXPECT_TRAP(call2_trap(&inst, "call_t", 3, 5),
                "Exception: undefined element");

    /* --- The host sets funcrefs; wasm calls them. --- */
    CHECK(wasm_table_set(t, 0, wasm_func_as_ref(export_func(&inst, "double"))),
          "set slot 0 to double");
    CHECK_EQ_INT(call2(&inst, "call_t", 0, 21), 42, "call through slot 0");
    CHECK_EQ_INT(call1(&inst, "is_null_t", 0), 0, "slot 0 not null");
    CHECK(wasm_table_set(t, 0, wasm_func_as_ref(export_func(&inst, "seven"))),
          "set slot 0 to seven");
    EXPECT_TRAP(call2_trap(&inst, "call_t", 0, 1),
                "Exception: indirect call type mismatch");
    /* As in WAMR, a funcref table takes the reference it was set to (it is
       deleted: its host info finalized); a failed set leaves it to the
       caller. */
    {
        static int taken;
        wasm_ref_t *r = wasm_func_as_ref(export_func(&inst, "seven"));
        wasm_ref_set_host_info_with_finalizer(r, &taken, count_finalizer);
        CHECK(!wasm_table_set(t, 3, r), "set past the end fails");
        CHECK_EQ_INT(taken, 0, "a failed set took the reference");
        CHECK(wasm_table_set(t, 0, r), "set slot 0 to seven again");
        CHECK_EQ_INT(taken, 1, "the reference taken by a set");
    }
    CHECK(wasm_table_set(t, 0, NULL), "set slot 0 to null");
    CHECK_EQ_INT(call1(&inst, "is_null_t", 0), 1, "slot 0 null again");
    CHECK(wasm_table_get(t, 0) == NULL, "host sees the null");

    /* --- Wasm sets a funcref; the host reads and calls it. --- */
    {
        wasm_val_t a[1] = { WASM_I32_VAL(2) };
        wasm_functype_t *ft;
        wasm_func_t *f;
        EXPECT_NO_TRAP(call(export_func(&inst, "set_t_seven"), a, 1, NULL,
                            0));
        ref = wasm_table_get(t, 2);
        CHECK(ref != NULL, "slot 2 set by wasm");
        f = wasm_ref_as_func(ref);
        CHECK(f != NULL, "slot 2 holds a func");
        ft = wasm_func_type(f);
        CHECK(wasm_functype_params(ft)->num_elems == 0 &&
                  wasm_functype_results(ft)->num_elems == 1,
              "slot 2's func has seven's type () -> i32");
        wasm_functype_delete(ft);
        wasm_ref_delete(ref);
        CHECK_EQ_INT(call_slot(t, 2, 0, 0), 7, "host calls seven");
    }

    /* --- Growing. --- */
    CHECK(wasm_table_grow(t, 2, NULL), "grow 3 -> 5 with nulls");
    CHECK_EQ_INT(wasm_table_size(t), 5, "size after grow");
    CHECK_EQ_INT(call0(&inst, "size_t"), 5, "wasm sees the grow");
    CHECK(wasm_table_get(t, 4) == NULL, "grown slot is null");
    CHECK(!wasm_table_grow(t, 2, NULL), "grow 5 -> 7 past max 6");
    CHECK_EQ_INT(wasm_table_size(t), 5, "size after failed grow");
    CHECK(wasm_table_grow(t, 1, wasm_func_as_ref(export_func(&inst, "double"))),
          "grow by 1 with an initial funcref");
    CHECK_EQ_INT(wasm_table_size(t), 6, "at the maximum");
    CHECK_EQ_INT(call2(&inst, "call_t", 5, 8), 16, "grown slot's funcref");
    CHECK(wasm_table_grow(t, 0, NULL), "grow by 0 succeeds");
    check_type(t, 3, 6);

    /* --- A host table (2 entries, at most 10) holding a host function in
       slot 1 before any instance sees it; call_indirect through it. --- */
    {
        wasm_limits_t lim = { 2, 10 };
        wasm_tabletype_t *tt =
            wasm_tabletype_new(wasm_valtype_new(WASM_FUNCREF), &lim);
        wasm_functype_t *ft = functype_of(i32, 1, i32, 1);
        CHECK(tt != NULL, "wasm_tabletype_new");
        ht = wasm_table_new(store, tt, NULL);
        wasm_tabletype_delete(tt);
        CHECK(ht != NULL, "wasm_table_new");
        hf = wasm_func_new(store, ft, plus1000_cb);
        wasm_functype_delete(ft);
        CHECK(hf != NULL, "wasm_func_new");
    }
    CHECK_EQ_INT(wasm_table_size(ht), 2, "host table size");
    CHECK(wasm_table_get(ht, 0) == NULL, "host table starts null");
    CHECK(wasm_table_set(ht, 1, wasm_func_as_ref(hf)), "host table slot 1");
    module2 = compile_module(store, "tables_import");
    imports[0] = wasm_table_as_extern(ht);
    inst2 = instantiate(store, module2, imports, 1);
    CHECK_EQ_INT(call0(&inst2, "size_ht"), 2, "imported table size");
    CHECK_EQ_INT(call2(&inst2, "call_ht", 1, 5), 1005,
                 "call_indirect reaches a host function in a host table");
    EXPECT_TRAP(call2_trap(&inst2, "call_ht", 0, 5),
                "Exception: uninitialized element");
    CHECK(wasm_table_set(ht, 0, wasm_func_as_ref(export_func(&inst, "double"))),
          "host table slot 0 = another instance's export");
    CHECK_EQ_INT(call2(&inst2, "call_ht", 0, 4), 8,
                 "call_indirect reaches a wasm export in a host table");
    CHECK(wasm_table_grow(ht, 3, wasm_func_as_ref(hf)), "grow host table");
    CHECK_EQ_INT(wasm_table_size(ht), 5, "host table size");
    CHECK_EQ_INT(call0(&inst2, "size_ht"), 5, "wasm sees host grow");
    CHECK_EQ_INT(call2(&inst2, "call_ht", 4, 1), 1001, "grown host slot");
    EXPECT_TRAP(call2_trap(&inst2, "call_ht", 5, 1),
                "Exception: undefined element");

    /* --- A host table created with an initial value in every slot. --- */
    {
        wasm_limits_t lim = { 3, 3 };
        wasm_tabletype_t *tt =
            wasm_tabletype_new(wasm_valtype_new(WASM_FUNCREF), &lim);
        wasm_table_t *full = wasm_table_new(store, tt, wasm_func_as_ref(hf));
        uint32_t i;
        wasm_tabletype_delete(tt);
        CHECK(full != NULL, "wasm_table_new with init");
        CHECK_EQ_INT(wasm_table_size(full), 3, "size");
        for (i = 0; i < 3; i++)
            CHECK_EQ_INT(call_slot(full, i, (int32_t)i, 1), 1000 + (int32_t)i,
                         "initial funcref in every slot");
        CHECK(!wasm_table_grow(full, 1, NULL), "grow past max 3");
        wasm_table_delete(full);
    }

    instance_release(&inst2);
    instance_release(&inst);
    wasm_table_delete(ht);
    wasm_func_delete(hf);
    wasm_module_delete(module2);
    wasm_module_delete(module);
    wasm_store_delete(store);
    wasm_engine_delete(engine);
    test_pass();
    return 0;
}
