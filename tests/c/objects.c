/* The object model, as WAMR's wasm_c_api.c implements it (capi/README.md
   lists where that differs from a plain reading of wasm.h):

   - wasm_X_as_ref and wasm_ref_as_X (and their _const forms) return NEW
     objects for the same entity, which the caller may delete on its own, in
     any order with the original and with the store; deleting one never
     frees another (WAMR: WASM_DEFINE_REF's wasm_ref_new_internal and
     wasm_X_new_internal);
   - copies and references start without host info; host info set on one
     handle is that handle's (a finalizer runs once, when it is deleted),
     except that the handles of one foreign object share the foreign's host
     info (WAMR's wasm_ref_as_foreign returns the foreign itself), while a
     reference keeps its own;
   - wasm_X_as_extern / wasm_extern_as_X are casts: the same pointer;
   - a deleted object, and a pointer the library never handed out (here a
     one-byte block, like the zero-sized ctypes structs bindings pass), are
     refused like NULL by every kind of entry point, never read: valgrind
     checks that no byte of them is. */
#include "common.h"

static int finalized[8];

static void fin(void *p)
{
    finalized[(int *)p - finalized]++;
}
#define INFO(i) ((void *)&finalized[i])

static int32_t twice(const wasm_func_t *f, int32_t x)
{
    int32_t out = 0;
    EXPECT_NO_TRAP(call_i32(f, x, &out));
    return out;
}

/* A func, its reference and the func made back from it: three objects,
   deleted here in every order, with the entity usable until the last. */
static void func_references(const instance_t *inst)
{
    static const int orders[6][3] = { { 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 },
                                      { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 } };
    int o, k;
    for (o = 0; o < 6; o++) {
        wasm_func_t *f = wasm_func_copy(export_func(inst, "twice"));
        wasm_ref_t *r = wasm_func_as_ref(f);
        wasm_func_t *g = wasm_ref_as_func(r);
        void *objs[3] = { f, r, g };
        CHECK(f && r && g, "copy, as_ref, ref_as");
        CHECK((void *)r != (void *)f && g != f && (void *)g != (void *)r,
              "as_ref and ref_as make new objects");
        CHECK(wasm_func_same(f, g), "the same function");
        CHECK(wasm_ref_as_global(r) == NULL, "a func reference is no global");
        for (k = 0; k < 3; k++) {
            int i, which = orders[o][k];
            switch (which) {
            case 0: wasm_func_delete(f); break;
            case 1: wasm_ref_delete(r); break;
            default: wasm_func_delete(g); break;
            }
            objs[which] = NULL;
            /* What is left still works. */
            for (i = 0; i < 3; i++) {
                if (!objs[i])
                    continue;
                if (i == 1) {
                    wasm_func_t *h = wasm_ref_as_func(r);
                    CHECK_EQ_INT(twice(h, 4), 8, "through the reference");
                    wasm_func_delete(h);
                } else {
                    CHECK_EQ_INT(twice(objs[i], 5), 10, "through a handle");
                }
            }
        }
    }
}

/* The other reference kinds: each deleted in its own order, some left to
   the store. */
static void other_references(wasm_store_t *store, const instance_t *inst)
{
    wasm_global_t *g = wasm_global_copy(
        wasm_extern_as_global(export_named(inst, "g")));
    wasm_table_t *t = wasm_table_copy(
        wasm_extern_as_table(export_named(inst, "t")));
    wasm_memory_t *m = wasm_memory_copy(
        wasm_extern_as_memory(export_named(inst, "m")));
    wasm_instance_t *i = wasm_instance_copy(inst->instance);
    wasm_trap_t *trap = call(export_func(inst, "boom"), NULL, 0, NULL, 0);
    wasm_extern_t *e = wasm_extern_copy(export_named(inst, "twice"));
    wasm_ref_t *gr, *tr, *mr, *ir, *trr, *er;
    wasm_global_t *g2;
    wasm_table_t *t2;
    wasm_memory_t *m2;
    wasm_instance_t *i2;
    wasm_trap_t *trap2;
    wasm_extern_t *e2;
    wasm_val_t v;
    char buf[64];

    CHECK(g && t && m && i && trap && e, "objects of every kind");
    gr = wasm_global_as_ref(g);
    tr = wasm_table_as_ref(t);
    mr = (wasm_ref_t *)wasm_memory_as_ref_const(m);
    ir = wasm_instance_as_ref(i);
    trr = wasm_trap_as_ref(trap);
    er = wasm_extern_as_ref(e);
    CHECK(gr && tr && mr && ir && trr && er, "as_ref of every kind");
    CHECK((void *)gr != (void *)g && (void *)tr != (void *)t
              && (void *)mr != (void *)m && (void *)ir != (void *)i
              && (void *)trr != (void *)trap && (void *)er != (void *)e,
          "references are new objects");
    g2 = wasm_ref_as_global(gr);
    t2 = wasm_ref_as_table(tr);
    m2 = (wasm_memory_t *)wasm_ref_as_memory_const(mr);
    i2 = wasm_ref_as_instance(ir);
    trap2 = wasm_ref_as_trap(trr);
    e2 = wasm_ref_as_extern(er);
    CHECK(g2 && t2 && m2 && i2 && trap2 && e2, "ref_as of every kind");
    CHECK(wasm_global_same(g, g2) && wasm_table_same(t, t2)
              && wasm_memory_same(m, m2) && wasm_instance_same(i, i2)
              && wasm_trap_same(trap, trap2) && wasm_extern_same(e, e2),
          "the same entities");
    CHECK(wasm_ref_same(gr, wasm_global_as_ref(g2)), "equal references");
    CHECK(!wasm_ref_same(gr, tr), "a global is not a table");
    CHECK(!wasm_ref_as_func(gr) && !wasm_ref_as_table(gr)
              && !wasm_ref_as_trap(ir) && !wasm_ref_as_instance(trr)
              && !wasm_ref_as_foreign(er),
          "ref_as of another kind is NULL");

    /* Originals first: the rest stays usable. */
    wasm_global_delete(g);
    wasm_ref_delete(tr);
    wasm_memory_delete(m);
    wasm_instance_delete(i);
    wasm_trap_delete(trap);
    wasm_extern_delete(e);
    memset(&v, 0, sizeof v);
    wasm_global_get(g2, &v);
    CHECK_EQ_INT(v.of.i32, 7, "global through ref_as after its deletes");
    CHECK_EQ_INT(wasm_table_size(t), 2, "the table after its reference");
    CHECK_EQ_INT(wasm_table_size(t2), 2, "and the one made from it");
    CHECK_EQ_INT(wasm_memory_size(m2), 1, "the memory lives on");
    {
        wasm_extern_vec_t ex;
        wasm_instance_exports(i2, &ex);
        CHECK_EQ_INT(ex.num_elems, 5, "the instance lives on");
        CHECK_EQ_INT(twice(wasm_extern_as_func(ex.data[0]), 3), 6,
                     "and runs");
        wasm_extern_vec_delete(&ex);
    }
    CHECK(strcmp(trap_text(trap2, buf, sizeof buf), "Exception: unreachable")
              == 0,
          "the trap lives on: %s", buf);
    CHECK_EQ_INT(twice(wasm_extern_as_func(e2), 6), 12, "the extern lives on");
    /* Then the references, and the rest left to the store. */
    wasm_ref_delete(gr);
    wasm_ref_delete(trr);
    wasm_ref_delete(ir);
    wasm_instance_delete(i2);
    wasm_trap_delete(trap2);
    (void)store;
}

/* Copies and references have host info of their own; the handles of a
   foreign share the foreign's. */
static void host_info(wasm_store_t *store, const instance_t *inst)
{
    wasm_func_t *f = wasm_func_copy(export_func(inst, "twice"));
    wasm_func_t *c = wasm_func_copy(f);
    wasm_ref_t *r;
    wasm_foreign_t *fo, *fo2, *fo3;
    wasm_ref_t *fr;

    wasm_func_set_host_info_with_finalizer(f, INFO(0), fin);
    CHECK(wasm_func_get_host_info(c) == NULL, "a copy made before");
    c = (wasm_func_delete(c), wasm_func_copy(f));
    CHECK(wasm_func_get_host_info(c) == NULL, "a copy starts without");
    r = wasm_func_as_ref(f);
    CHECK(wasm_ref_get_host_info(r) == NULL, "a reference starts without");
    wasm_ref_set_host_info_with_finalizer(r, INFO(1), fin);
    CHECK(wasm_func_get_host_info(f) == INFO(0), "the func keeps its own");
    wasm_func_delete(c);
    CHECK_EQ_INT(finalized[0], 0, "deleting a copy keeps the info");
    wasm_ref_delete(r);
    CHECK_EQ_INT(finalized[1], 1, "the reference's finalizer, once");
    CHECK_EQ_INT(finalized[0], 0, "not the func's");
    wasm_func_delete(f);
    CHECK_EQ_INT(finalized[0], 1, "the func's finalizer, once");
    wasm_func_delete(f);
    CHECK_EQ_INT(finalized[0], 1, "a second delete is refused");

    fo = wasm_foreign_new(store);
    wasm_foreign_set_host_info_with_finalizer(fo, INFO(2), fin);
    fr = wasm_foreign_as_ref(fo);
    CHECK(wasm_ref_get_host_info(fr) == NULL, "a reference has its own");
    fo2 = wasm_ref_as_foreign(fr);
    fo3 = wasm_foreign_copy(fo);
    CHECK(fo2 && fo2 != fo && fo3 && fo3 != fo, "new handles");
    CHECK(wasm_foreign_get_host_info(fo2) == INFO(2)
              && wasm_foreign_get_host_info(fo3) == INFO(2),
          "the handles of a foreign share its host info");
    CHECK(wasm_foreign_same(fo, fo2) && wasm_foreign_same(fo3, fo2),
          "one foreign");
    wasm_foreign_delete(fo);
    wasm_foreign_delete(fo2);
    CHECK_EQ_INT(finalized[2], 0, "a handle of the foreign is left");
    wasm_ref_delete(fr);
    wasm_foreign_delete(fo3);
    CHECK_EQ_INT(finalized[2], 1, "finalized with its last handle, once");
}

/* Host functions: copies are handles on one function, whose env finalizer
   runs once, with the store (WAMR's wasm_func_copy copies the env and its
   finalizer, which then runs once per copy). A callback returning a pointer
   that is not a trap makes the call trap, and that pointer is not read. */
static int env_finalized;
static void *not_a_trap;

static void env_fin(void *env)
{
    CHECK(env == &env_finalized, "the env");
    env_finalized++;
}

static wasm_trap_t *odd_cb(void *env, const wasm_val_vec_t *args,
                           wasm_val_vec_t *results)
{
    (void)env;
    (void)args;
    (void)results;
    return not_a_trap;
}

static void host_funcs(wasm_engine_t *engine)
{
    wasm_store_t *store = wasm_store_new(engine);
    wasm_functype_t *ft = wasm_functype_new_0_0();
    wasm_func_t *f = wasm_func_new_with_env(store, ft, odd_cb, &env_finalized,
                                            env_fin);
    wasm_func_t *c = wasm_func_copy(f);
    wasm_ref_t *r = wasm_func_as_ref(c);
    CHECK(f && c && r && wasm_func_same(f, c), "copies of a host function");
    wasm_functype_delete(ft);
    not_a_trap = malloc(1);
    EXPECT_TRAP(call(c, NULL, 0, NULL, 0),
                "host function returned a pointer that is not a trap");
    free(not_a_trap);
    wasm_func_delete(f);
    wasm_func_delete(c);
    wasm_ref_delete(r);
    CHECK_EQ_INT(env_finalized, 0, "the env lives as long as the store");
    wasm_store_delete(store);
    CHECK_EQ_INT(env_finalized, 1, "and is finalized once with it");
}

/* Casts to and from wasm_extern_t keep the pointer, as WAMR's do. */
static void extern_casts(const instance_t *inst)
{
    wasm_extern_t *e = export_named(inst, "g");
    wasm_global_t *g = wasm_extern_as_global(e);
    CHECK((void *)g == (void *)e, "wasm_extern_as_global is a cast");
    CHECK(wasm_global_as_extern(g) == e, "wasm_global_as_extern is a cast");
    CHECK(wasm_extern_as_func(e) == NULL, "a global is no func");
    CHECK(wasm_extern_as_memory_const(e) == NULL, "nor a memory");
}

/* Deleted objects and pointers never handed out are refused by every kind
   of entry point. `p` stands for an object of any type. */
static void refused_everywhere(void *p, const wasm_val_vec_t *args)
{
    wasm_val_t v[1] = { WASM_I32_VAL(3) };
    wasm_val_vec_t res = { 1, v, 0, sizeof v[0], NULL };
    wasm_extern_vec_t ex;
    wasm_importtype_vec_t im;

    wasm_func_delete(p);
    wasm_ref_delete(p);
    wasm_trap_delete(p);
    wasm_module_delete(p);
    wasm_store_delete(p);
    wasm_engine_delete(p);
    wasm_config_delete(p);
    wasm_valtype_delete(p);
    wasm_functype_delete(p);
    wasm_importtype_delete(p);
    CHECK(!wasm_func_copy(p) && !wasm_ref_copy(p) && !wasm_trap_copy(p)
              && !wasm_valtype_copy(p) && !wasm_externtype_copy(p)
              && !wasm_frame_copy(p) && !wasm_foreign_copy(p),
          "copy");
    /* As in WAMR, NULL is the same only as NULL; such a pointer only as
       itself. */
    CHECK(!wasm_func_same(p, NULL) && !wasm_ref_same(NULL, p)
              && wasm_instance_same(p, p) && wasm_func_same(NULL, NULL),
          "same");
    CHECK(!wasm_func_get_host_info(p) && !wasm_ref_get_host_info(p)
              && !wasm_foreign_get_host_info(p),
          "get host info");
    wasm_func_set_host_info_with_finalizer(p, INFO(7), fin);
    wasm_ref_set_host_info(p, INFO(7));
    wasm_foreign_set_host_info(p, INFO(7));
    /* Conversions that make objects, and down-casts, give NULL; up-casts
       are plain casts, as in WAMR (every use checks the pointer). */
    CHECK(!wasm_func_as_ref(p) && !wasm_ref_as_func(p)
              && !wasm_instance_as_ref_const(p) && !wasm_ref_as_foreign(p)
              && !wasm_extern_as_table(p)
              && !wasm_externtype_as_memorytype_const(p),
          "casts");
    CHECK((void *)wasm_func_as_extern(p) == p
              && (void *)wasm_functype_as_externtype(p) == p,
          "up-casts");
    CHECK(wasm_func_call(p, args, &res) == NULL, "call does nothing");
    CHECK(!wasm_func_type(p) && wasm_func_param_arity(p) == 0
              && !wasm_global_type(p) && !wasm_memory_data(p)
              && wasm_table_size(p) == 0 && wasm_valtype_kind(p) == WASM_I32
              && !wasm_functype_params(p) && !wasm_importtype_name(p)
              && wasm_extern_kind(p) == WASM_EXTERN_FUNC
              && wasm_frame_func_index(p) == 0
              && !wasm_module_get_name(p)[0]
              && !wasm_store_new(p) && !wasm_foreign_new(p)
              && !wasm_module_share(p),
          "accessors");
    wasm_global_set(p, &v[0]);
    wasm_instance_exports(p, &ex);
    CHECK(ex.size == 0 && ex.data == NULL, "exports of nothing");
    wasm_module_imports(p, &im);
    CHECK(im.size == 0 && im.data == NULL, "imports of nothing");
    CHECK(wasm_config_set_linux_perf_opt(p, true) == NULL, "config");
}

int main(int argc, char **argv)
{
    wasm_engine_t *engine;
    wasm_store_t *store, *gone;
    wasm_module_t *module;
    instance_t inst;
    int i;

    test_init(argc, argv, "objects");
    engine = wasm_engine_new();
    store = wasm_store_new(engine);
    module = compile_module(store, "objects");
    inst = instantiate(store, module, NULL, 0);

    func_references(&inst);
    other_references(store, &inst);
    host_info(store, &inst);
    extern_casts(&inst);
    host_funcs(engine);

    {
        /* Pointers never handed out: one byte, like the empty ctypes
           structs a binding passes; a zeroed block; and deleted objects of
           every kind. */
        wasm_val_t a[1] = { WASM_I32_VAL(1) };
        wasm_val_vec_t args = WASM_ARRAY_VEC(a);
        void *one = malloc(1), *zeros = calloc(1, 256);
        wasm_config_t *config = wasm_config_new();
        wasm_valtype_t *vt = wasm_valtype_new(WASM_I64);
        wasm_functype_t *ft = wasm_functype_new_0_0();
        wasm_func_t *f = wasm_func_copy(export_func(&inst, "twice"));
        wasm_ref_t *r = wasm_func_as_ref(f);
        wasm_foreign_t *fo = wasm_foreign_new(store);
        wasm_trap_t *t = wasm_trap_new(store, NULL);
        wasm_frame_t *frame;
        wasm_module_t *m2 = compile_module(store, "objects");
        wasm_importtype_vec_t none;
        void *dead[11];
        {
            wasm_trap_t *boom = call(export_func(&inst, "boom"), NULL, 0,
                                     NULL, 0);
            frame = wasm_trap_origin(boom);
            CHECK(frame != NULL, "a frame");
            wasm_trap_delete(boom);
        }
        wasm_module_imports(m2, &none);
        wasm_config_delete(config);
        wasm_valtype_delete(vt);
        wasm_functype_delete(ft);
        wasm_func_delete(f);
        wasm_ref_delete(r);
        wasm_foreign_delete(fo);
        wasm_trap_delete(t);
        wasm_frame_delete(frame);
        wasm_module_delete(m2);
        dead[0] = config; dead[1] = vt; dead[2] = ft; dead[3] = f;
        dead[4] = r; dead[5] = fo; dead[6] = t; dead[7] = frame;
        dead[8] = m2; dead[9] = one; dead[10] = zeros;
        for (i = 0; i < 11; i++)
            refused_everywhere(dead[i], &args);
        CHECK_EQ_INT(finalized[7], 0, "no host info was set on them");
        free(one);
        free(zeros);
        wasm_importtype_vec_delete(&none);
    }

    /* Objects of a deleted store are refused too. */
    gone = wasm_store_new(engine);
    {
        wasm_limits_t limits = { 1, 1 };
        wasm_memorytype_t *mt = wasm_memorytype_new(&limits);
        wasm_memory_t *m = wasm_memory_new(gone, mt);
        wasm_foreign_t *fo = wasm_foreign_new(gone);
        wasm_ref_t *r = wasm_foreign_as_ref(fo);
        wasm_val_vec_t none = WASM_EMPTY_VEC;
        CHECK(m && fo && r, "objects of a second store");
        wasm_memorytype_delete(mt);
        wasm_store_delete(gone);
        CHECK(wasm_memory_data(m) == NULL && wasm_memory_size(m) == 0,
              "a memory of a deleted store");
        refused_everywhere(m, &none);
        refused_everywhere(fo, &none);
        refused_everywhere(r, &none);
        refused_everywhere(gone, &none);
    }

    for (i = 0; i < 7; i++)
        CHECK(finalized[i] <= 1, "finalizer %d ran %d times", i, finalized[i]);
    instance_release(&inst);
    wasm_module_delete(module);
    wasm_store_delete(store);
    wasm_engine_delete(engine);
    CHECK(wasm_store_new(engine) == NULL, "the engine is gone");
    wasm_engine_delete(engine);
    test_pass();
    return 0;
}
