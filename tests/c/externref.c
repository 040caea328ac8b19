/* externref / host references: a wasm_foreign_t with host info, passed into
   wasm as an externref, comes back (from wasm, through a host function,
   through a table and a global) as the same foreign with the same host info.
   Null externrefs stay null. A host-info finalizer runs exactly once.

   As in WAMR, wasm_X_as_ref / wasm_ref_as_X return new objects (the handles
   of one foreign share its host info, as WAMR's wasm_ref_as_foreign returns
   the foreign itself); the test leaves them to the store, as WAMR clients
   do. Reference results of wasm_func_call are not deleted either (in WAMR
   they are the very pointers passed in); ABI.md makes the store free
   whatever the client did not. */
#include "common.h"

static int marker1, marker2, marker3;
static int echo_calls, fin_calls;

static void *host_info_of(const wasm_ref_t *r)
{
    wasm_foreign_t *f;
    CHECK(r != NULL, "reference is null");
    f = wasm_ref_as_foreign((wasm_ref_t *)r);
    CHECK(f != NULL, "reference is not a foreign");
    return wasm_foreign_get_host_info(f);
}

static wasm_trap_t *echo_cb(const wasm_val_vec_t *args,
                            wasm_val_vec_t *results)
{
    echo_calls++;
    CHECK(args->data[0].kind == WASM_EXTERNREF, "echo arg kind %d",
          args->data[0].kind);
    CHECK(host_info_of(args->data[0].of.ref) == &marker1,
          "the host function sees the foreign's host info");
    results->data[0] = args->data[0];
    return NULL;
}

static void fin(void *p)
{
    CHECK(p == &marker3, "finalizer got the host info");
    fin_calls++;
}

static wasm_val_t ref_val(wasm_ref_t *r)
{
    wasm_val_t v = WASM_REF_VAL(r);
    return v;
}

static wasm_ref_t *call_ref(const instance_t *inst, const char *name,
                            wasm_ref_t *arg)
{
    wasm_val_t a[1] = { ref_val(arg) }, r[1];
    memset(r, 0x5c, sizeof r);
    EXPECT_NO_TRAP(call(export_func(inst, name), a, 1, r, 1));
    CHECK(r[0].kind == WASM_EXTERNREF, "%s result kind %d", name, r[0].kind);
    return r[0].of.ref;
}

int main(int argc, char **argv)
{
    wasm_engine_t *engine;
    wasm_store_t *store;
    wasm_module_t *module;
    wasm_func_t *echo;
    wasm_extern_t *imports[1];
    instance_t inst;
    wasm_foreign_t *f1, *f2, *f3;
    wasm_ref_t *r1, *r2, *back;

    test_init(argc, argv, "externref");
    engine = wasm_engine_new();
    store = wasm_store_new(engine);
    module = compile_module(store, "externref");
    {
        const wasm_valkind_t k[1] = { WASM_EXTERNREF };
        wasm_functype_t *ft = functype_of(k, 1, k, 1);
        echo = wasm_func_new(store, ft, echo_cb);
        wasm_functype_delete(ft);
    }
    imports[0] = wasm_func_as_extern(echo);
    inst = instantiate(store, module, imports, 1);

    f1 = wasm_foreign_new(store);
    f2 = wasm_foreign_new(store);
    CHECK(f1 && f2, "wasm_foreign_new");
    wasm_foreign_set_host_info(f1, &marker1);
    wasm_foreign_set_host_info(f2, &marker2);
    CHECK(wasm_foreign_get_host_info(f1) == &marker1, "host info set");
    CHECK(!wasm_foreign_same(f1, f2), "two foreigns are not the same");
    r1 = wasm_foreign_as_ref(f1);
    r2 = wasm_foreign_as_ref(f2);
    CHECK(r1 && r2, "wasm_foreign_as_ref");
    CHECK(host_info_of(r1) == &marker1, "host info through the ref");

    /* Straight through wasm. */
    back = call_ref(&inst, "id", r1);
    CHECK(back != NULL, "id(foreign) returned null");
    CHECK(host_info_of(back) == &marker1, "id kept the host info");
    CHECK(wasm_ref_same(back, r1), "id returned the same reference");
    back = call_ref(&inst, "id", r2);
    CHECK(host_info_of(back) == &marker2, "second foreign kept its info");

    /* Nulls. */
    back = call_ref(&inst, "id", NULL);
    CHECK(back == NULL, "id(null) is null");
    {
        wasm_val_t a[1] = { ref_val(NULL) }, r[1] = { WASM_INIT_VAL };
        EXPECT_NO_TRAP(call(export_func(&inst, "is_null"), a, 1, r, 1));
        CHECK_EQ_INT(r[0].of.i32, 1, "ref.is_null(null)");
        a[0] = ref_val(r1);
        EXPECT_NO_TRAP(call(export_func(&inst, "is_null"), a, 1, r, 1));
        CHECK_EQ_INT(r[0].of.i32, 0, "ref.is_null(foreign)");
    }

    /* Through a host function. */
    back = call_ref(&inst, "through_host", r1);
    CHECK_EQ_INT(echo_calls, 1, "echo called");
    CHECK(host_info_of(back) == &marker1, "through the host and back");

    /* Kept in a table by wasm, read back by wasm and by the host. */
    {
        wasm_val_t a[2] = { WASM_I32_VAL(1), ref_val(r2) };
        wasm_val_t i[1] = { WASM_I32_VAL(1) }, r[1];
        wasm_table_t *t = wasm_extern_as_table(export_named(&inst, "refs"));
        wasm_tabletype_t *tt;
        wasm_ref_t *got;
        EXPECT_NO_TRAP(call(export_func(&inst, "stash"), a, 2, NULL, 0));
        a[0].of.i32 = 2;
        a[1] = ref_val(r1);
        EXPECT_NO_TRAP(call(export_func(&inst, "stash"), a, 2, NULL, 0));
        EXPECT_NO_TRAP(call(export_func(&inst, "fetch"), i, 1, r, 1));
        CHECK(r[0].kind == WASM_EXTERNREF && host_info_of(r[0].of.ref) ==
                                                  &marker2,
              "table slot 1 holds the second foreign");
        i[0].of.i32 = 0;
        EXPECT_NO_TRAP(call(export_func(&inst, "fetch"), i, 1, r, 1));
        CHECK(r[0].of.ref == NULL, "table slot 0 is null");
        CHECK(t != NULL, "export refs is a table");
        tt = wasm_table_type(t);
        CHECK_EQ_INT(wasm_valtype_kind(wasm_tabletype_element(tt)),
                     WASM_EXTERNREF, "externref table element type");
        wasm_tabletype_delete(tt);
        got = wasm_table_get(t, 2);
        CHECK(got != NULL && host_info_of(got) == &marker1,
              "host reads the foreign wasm put in slot 2");
        /* As in WAMR, an externref comes back as the very pointer the host
           passed in (here f1 itself), so it is not deleted. */
        CHECK(got == r1, "wasm_table_get returns the host's own pointer");
    }

    /* Kept in a global by wasm, read by the host. */
    {
        wasm_val_t a[1] = { ref_val(r2) }, v;
        wasm_global_t *g = wasm_extern_as_global(export_named(&inst, "gref"));
        EXPECT_NO_TRAP(call(export_func(&inst, "set_g"), a, 1, NULL, 0));
        back = NULL;
        {
            wasm_val_t r[1];
            EXPECT_NO_TRAP(call(export_func(&inst, "get_g"), NULL, 0, r, 1));
            back = r[0].of.ref;
        }
        CHECK(host_info_of(back) == &marker2, "wasm reads its global");
        CHECK(g != NULL, "export gref is a global");
        memset(&v, 0, sizeof v);
        wasm_global_get(g, &v);
        CHECK(v.kind == WASM_EXTERNREF, "global value kind %d", v.kind);
        CHECK(host_info_of(v.of.ref) == &marker2,
              "host reads the foreign in the global");
        v = ref_val(r1);
        wasm_global_set(g, &v);
        {
            wasm_val_t r[1];
            EXPECT_NO_TRAP(call(export_func(&inst, "get_g"), NULL, 0, r, 1));
            CHECK(host_info_of(r[0].of.ref) == &marker1,
                  "wasm reads the foreign the host put in the global");
        }
    }

    /* Host info with a finalizer: runs once, by the end of the store. */
    f3 = wasm_foreign_new(store);
    CHECK(f3 != NULL, "wasm_foreign_new");
    wasm_foreign_set_host_info_with_finalizer(f3, &marker3, fin);
    CHECK(wasm_foreign_get_host_info(f3) == &marker3, "host info");
    back = call_ref(&inst, "id", wasm_foreign_as_ref(f3));
    CHECK(host_info_of(back) == &marker3, "third foreign through wasm");
    CHECK_EQ_INT(fin_calls, 0, "finalizer ran early");

    instance_release(&inst);
    wasm_func_delete(echo);
    wasm_foreign_delete(f1);
    wasm_foreign_delete(f2);
    wasm_foreign_delete(f3);
    wasm_module_delete(module);
    wasm_store_delete(store);
    CHECK_EQ_INT(fin_calls, 1, "host-info finalizer runs exactly once");
    wasm_engine_delete(engine);
    test_pass();
    return 0;
}
