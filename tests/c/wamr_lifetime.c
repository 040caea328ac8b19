/* WAMR's object lifetimes (wasm_module_delete, wasm_instance_delete,
 * wasm_store_delete, and the constructors that take a store). Rows
 * "lifetime: ..." of the table in capi/README.md.
 *
 *  - wasm_module_delete and wasm_instance_delete free nothing in WAMR: the
 *    module or instance stays usable until its store is deleted. Not
 *    followed (a long-lived store that instantiates in a loop would grow
 *    without bound): ours frees them, and a deleted module or instance is
 *    refused like NULL by the live-object table, never read. An instance
 *    lives on while the objects of its exports do.
 *  - wasm_store_delete frees the store's modules and instances only.
 *    Functions, globals, memories, tables, traps and extern vectors the
 *    client holds are the client's: deleting them after the store is
 *    deleted is fine (and our library must also free them when the client
 *    never does, for the valgrind run: at the latest with the engine).
 *  - wasm_func_new, wasm_func_new_with_env, wasm_global_new,
 *    wasm_memory_new, wasm_table_new and wasm_extern_new_empty accept a
 *    NULL store: the object is made, and can be linked into an instance.
 *  - wasm_val_delete frees the wasm_val_t it is given (which must come
 *    from malloc); valgrind's leak check sees whether it did.
 *  - wasm_instance_sum_wasm_exec_time and wasm_instance_get_wasm_func_
 *    exec_time answer -1 when calls are not timed, for any arguments.
 */
#include "wamr.h"
#include "export_wamr_capture.h"

static wasm_trap_t *seven_cb(const wasm_val_vec_t *args, wasm_val_vec_t *results)
{
    (void)args;
    results->data[0].kind = WASM_I32;
    results->data[0].of.i32 = 7;
    return NULL;
}

static wasm_trap_t *env_cb(void *env, const wasm_val_vec_t *args,
                           wasm_val_vec_t *results)
{
    (void)env;
    return seven_cb(args, results);
}

static void module_refused_after_delete(void)
{
    if (NOT_FOLLOWED("WAMR keeps a deleted module usable until its store "
                     "goes")) {
        wasm_module_t *m = compile_module(store, "wamr_funcs");
        wasm_exporttype_vec_t exports;
        wasm_importtype_vec_t imports;
        wasm_trap_t *trap = NULL;
        wasm_instance_t *inst;

        wasm_module_delete(m);
        memset(&exports, 0x5a, sizeof exports);
        wasm_module_exports(m, &exports);
        CHECK(exports.size == 0 && exports.data == NULL
                  && exports.num_elems == 0,
              "exports of a deleted module: an empty vector, got %zu",
              exports.num_elems);
        memset(&imports, 0x5a, sizeof imports);
        wasm_module_imports(m, &imports);
        CHECK(imports.size == 0 && imports.num_elems == 0,
              "imports of a deleted module: an empty vector");
        inst = wasm_instance_new(store, m, NULL, &trap);
        CHECK(inst == NULL && trap == NULL,
              "a deleted module is not instantiated (NULL, no trap)");
        CHECK(wasm_module_share(m) == NULL, "nor shared");
        CHECK(!wasm_module_is_underlying_binary_freeable(m),
              "a deleted module answers as NULL");
        wasm_module_delete(m); /* a second delete is ignored */
    }
}

static void instance_refused_after_delete(void)
{
    if (NOT_FOLLOWED("WAMR keeps a deleted instance usable until its store "
                     "goes")) {
        wasm_functype_t *ft =
            wasm_functype_new_0_1(wasm_valtype_new(WASM_I32));
        wasm_extern_t *imports[2];
        wasm_module_t *m = compile_module(store, "wamr_funcs");
        wasm_trap_t *trap;
        wasm_instance_t *inst;
        wasm_extern_t *kept;
        wasm_extern_vec_t exports;
        imports[0] = wasm_func_as_extern(wasm_func_new(store, ft, seven_cb));
        imports[1] = imports[0];
        wasm_functype_delete(ft);
        inst = try_instantiate(store, m, imports, 2, &trap);
        EXPECT_NO_TRAP(trap);
        if (!inst)
            return;
        kept = export_of(m, inst, "call_f2");
        wasm_instance_delete(inst);
        memset(&exports, 0x5a, sizeof exports);
        wasm_instance_exports(inst, &exports);
        CHECK(exports.size == 0 && exports.data == NULL
                  && exports.num_elems == 0,
              "exports of a deleted instance: an empty vector");
        CHECK(wasm_instance_sum_wasm_exec_time(inst) == -1.0,
              "a deleted instance answers as NULL");
        wasm_instance_delete(inst); /* a second delete is ignored */
        /* An export taken before the delete keeps the instance alive. */
        {
            wasm_val_t r[1] = { WASM_INIT_VAL };
            EXPECT_NO_TRAP(call(wasm_extern_as_func(kept), NULL, 0, r, 1));
            CHECK(r[0].kind == WASM_I32 && r[0].of.i32 == 7,
                  "an export taken before the delete still calls: %d",
                  r[0].of.i32);
        }
        wasm_extern_delete(kept);
        wasm_module_delete(m);
    }
}

/* One type of each kind, for objects made in the parts below. */
typedef struct {
    wasm_functype_t *ft; /* () -> i32 */
    wasm_globaltype_t *gt;
    wasm_memorytype_t *mt;
    wasm_tabletype_t *tt;
} types_t;

static types_t make_types(wasm_mutability_t mut)
{
    wasm_limits_t l = { 1, 2 };
    types_t t;
    t.ft = wasm_functype_new_0_1(wasm_valtype_new(WASM_I32));
    t.gt = wasm_globaltype_new(wasm_valtype_new(WASM_I32), mut);
    t.mt = wasm_memorytype_new(&l);
    t.tt = wasm_tabletype_new(wasm_valtype_new(WASM_FUNCREF), &l);
    return t;
}

static void delete_types(types_t *t)
{
    wasm_functype_delete(t->ft);
    wasm_globaltype_delete(t->gt);
    wasm_memorytype_delete(t->mt);
    wasm_tabletype_delete(t->tt);
}

static void objects_deleted_after_their_store(void)
{
    wasm_store_t *s = wasm_store_new(engine);
    types_t t = make_types(WASM_VAR);
    wasm_val_t zero = WASM_I32_VAL(0);
    wasm_message_t msg = name_of("late");
    wasm_func_t *f = wasm_func_new(s, t.ft, seven_cb);
    wasm_global_t *g = wasm_global_new(s, t.gt, &zero);
    wasm_memory_t *mem = wasm_memory_new(s, t.mt);
    wasm_table_t *tab = wasm_table_new(s, t.tt, NULL);
    wasm_trap_t *trap = wasm_trap_new(s, &msg);
    wasm_module_t *m = compile_module(s, "wamr_funcs");
    wasm_extern_t *imports[2] = { wasm_func_as_extern(f),
                                  wasm_func_as_extern(f) };
    wasm_extern_vec_t exports = WASM_EMPTY_VEC;
    wasm_trap_t *t2;
    wasm_instance_t *inst = try_instantiate(s, m, imports, 2, &t2);

    EXPECT_NO_TRAP(t2);
    CHECK(f && g && mem && tab && trap && inst, "objects made");
    if (inst)
        wasm_instance_exports(inst, &exports);
    wasm_store_delete(s);

    /* The client's objects outlive the store; deleting them now is fine,
       and says nothing (ours freed them with the store: their deletes are
       refused, silently). */
    capture_start();
    wasm_extern_vec_delete(&exports);
    wasm_func_delete(f);
    wasm_global_delete(g);
    wasm_memory_delete(mem);
    wasm_table_delete(tab);
    wasm_trap_delete(trap);
    wasm_module_delete(m);
    {
        const char *out = capture_stop();
        CHECK(*out == 0, "nothing printed: \"%s\"", out);
    }
    delete_types(&t);
    wasm_byte_vec_delete(&msg);
}

static void null_store_constructors(void)
{
    types_t ty = make_types(WASM_CONST);
    wasm_val_t v = WASM_I32_VAL(3);
    wasm_func_t *f = wasm_func_new(NULL, ty.ft, seven_cb);
    wasm_func_t *fe = wasm_func_new_with_env(NULL, ty.ft, env_cb, NULL, NULL);
    wasm_global_t *g = wasm_global_new(NULL, ty.gt, &v);
    wasm_memory_t *mem = wasm_memory_new(NULL, ty.mt);
    wasm_table_t *tab = wasm_table_new(NULL, ty.tt, NULL);
    wasm_extern_t *empty = wasm_extern_new_empty(NULL, WASM_EXTERN_FUNC);
    wasm_module_t *m = compile_module(store, "wamr_funcs");
    wasm_extern_t *imports[2];
    wasm_trap_t *trap;
    wasm_instance_t *inst;

    CHECK(f != NULL, "wasm_func_new(NULL store)");
    CHECK(fe != NULL, "wasm_func_new_with_env(NULL store)");
    CHECK(g != NULL, "wasm_global_new(NULL store)");
    CHECK(mem != NULL, "wasm_memory_new(NULL store)");
    CHECK(tab != NULL, "wasm_table_new(NULL store)");
    CHECK(empty != NULL, "wasm_extern_new_empty(NULL store)");
    if (f && fe) {
        wasm_functype_t *t = wasm_func_type(f);
        CHECK(t && wasm_functype_results(t)->num_elems == 1, "its type");
        wasm_functype_delete(t);
        imports[0] = wasm_func_as_extern(f);
        imports[1] = wasm_func_as_extern(fe);
        inst = try_instantiate(store, m, imports, 2, &trap);
        EXPECT_NO_TRAP(trap);
        CHECK(inst != NULL, "linked into an instance of a store");
        if (inst) {
            CHECK_EQ_INT(call_i32_export(m, inst, "call_f1", NULL, 0), 7, "f");
            CHECK_EQ_INT(call_i32_export(m, inst, "call_f2", NULL, 0), 7, "fe");
        }
    }
    wasm_func_delete(f);
    wasm_func_delete(fe);
    wasm_global_delete(g);
    wasm_memory_delete(mem);
    wasm_table_delete(tab);
    wasm_extern_delete(empty);
    delete_types(&ty);
}

static void exec_time_without_timing(void)
{
    wasm_module_t *m = compile_module(store, "wamr_funcs");
    wasm_trap_t *trap = NULL;
    wasm_instance_t *inst = wasm_instance_new(store, m, NULL, &trap);
    EXPECT_NO_TRAP(trap);
    CHECK(wasm_instance_sum_wasm_exec_time(inst) == -1.0, "sum, untimed");
    CHECK(wasm_instance_sum_wasm_exec_time(NULL) == -1.0, "sum of NULL");
    CHECK(wasm_instance_get_wasm_func_exec_time(inst, "call_f1") == -1.0,
          "per function, untimed");
    CHECK(wasm_instance_get_wasm_func_exec_time(inst, NULL) == -1.0,
          "NULL name");
    CHECK(wasm_instance_get_wasm_func_exec_time(NULL, "call_f1") == -1.0,
          "NULL instance");
}

static void val_delete_frees_the_value(void)
{
    wasm_val_t *v = malloc(sizeof *v);
    CHECK(v != NULL, "malloc");
    *v = (wasm_val_t)WASM_I32_VAL(1);
    wasm_val_delete(v);
    wasm_val_delete(NULL);
    if (NOT_FOLLOWED("WAMR has no v128 values")) {
        /* Our v128 extension: a v128 value's 16 bytes (from malloc, as the
           ones the runtime hands out) are freed with the value. */
        v = malloc(sizeof *v);
        CHECK(v != NULL, "malloc");
        memset(v, 0, sizeof *v);
        v->kind = WASM_V128;
        v->of.ref = malloc(16);
        wasm_val_delete(v);
    }
}

int main(int argc, char **argv)
{
    test_init(argc, argv, "wamr_lifetime");
    RUN_PART(module_refused_after_delete);
    RUN_PART(instance_refused_after_delete);
    RUN_PART(objects_deleted_after_their_store);
    RUN_PART(null_store_constructors);
    RUN_PART(exec_time_without_timing);
    RUN_PART(val_delete_frees_the_value);
    test_pass();
    return 0;
}
