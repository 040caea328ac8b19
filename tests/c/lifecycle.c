/* Deleting objects in every order, then the store (ABI.md: objects belong
   to their store; deleting the store frees what the client has not
   deleted, and deleting them first is fine too); engines created more than
   once (ABI.md: reference counted); a trap and types outliving what made
   them. Valgrind (run.sh) turns any leak or use after free into a failure.

   WAMR fails scenario "store frees the rest": its store does not own host
   functions, globals, tables, memories or foreigns (they leak), so only the
   valgrind pass catches it there. */
#include "common.h"

typedef struct {
    wasm_module_t *module;
    wasm_func_t *tick;
    instance_t inst;
    int ticks;
} world_t;

static wasm_trap_t *nop_cb(const wasm_val_vec_t *a, wasm_val_vec_t *r)
{
    (void)a;
    (void)r;
    return NULL;
}

static void build(wasm_store_t *store, world_t *w)
{
    wasm_extern_t *imports[1];
    w->ticks = 0;
    w->module = compile_module(store, "counter");
    w->tick = counter_tick(store, &w->ticks);
    imports[0] = wasm_func_as_extern(w->tick);
    w->inst = instantiate(store, w->module, imports, 1);
}

static void bump(const world_t *w, int32_t expected)
{
    int32_t out = 0;
    EXPECT_NO_TRAP(call_i32(export_func(&w->inst, "bump"), 0, &out));
    CHECK_EQ_INT(out, expected, "bump(0) = call count");
}

static void drop_exports(world_t *w)
{
    wasm_extern_vec_delete(&w->inst.externs);
    wasm_exporttype_vec_delete(&w->inst.types);
}

int main(int argc, char **argv)
{
    wasm_engine_t *engine;

    test_init(argc, argv, "lifecycle");
    engine = wasm_engine_new();
    CHECK(engine != NULL, "wasm_engine_new");

    /* 1. Instance, exports, module, host func, store. */
    {
        wasm_store_t *s = wasm_store_new(engine);
        world_t w;
        build(s, &w);
        bump(&w, 1);
        instance_release(&w.inst);
        wasm_module_delete(w.module);
        wasm_func_delete(w.tick);
        wasm_store_delete(s);
    }

    /* 2. Module first: the instance keeps working without it. */
    {
        wasm_store_t *s = wasm_store_new(engine);
        world_t w;
        build(s, &w);
        wasm_module_delete(w.module);
        bump(&w, 1);
        bump(&w, 2);
        wasm_func_delete(w.tick);
        bump(&w, 3);
        drop_exports(&w);
        wasm_instance_delete(w.inst.instance);
        wasm_store_delete(s);
        CHECK_EQ_INT(w.ticks, 3, "tick calls");
    }

    /* 3. Exports first: the instance hands out fresh ones. */
    {
        wasm_store_t *s = wasm_store_new(engine);
        world_t w;
        size_t i;
        build(s, &w);
        for (i = 0; i < w.inst.externs.num_elems; i++) {
            wasm_extern_delete(w.inst.externs.data[i]);
            w.inst.externs.data[i] = NULL;
        }
        wasm_extern_vec_delete(&w.inst.externs);
        wasm_instance_exports(w.inst.instance, &w.inst.externs);
        bump(&w, 1);
        wasm_func_delete(w.tick);
        wasm_module_delete(w.module);
        instance_release(&w.inst);
        wasm_store_delete(s);
    }

    /* 4. The store frees the rest: nothing deleted by the client except
       the export vector's own buffer (ABI.md: buffers come from malloc). */
    {
        wasm_store_t *s = wasm_store_new(engine);
        world_t w;
        wasm_limits_t lim = { 1, 2 };
        wasm_memorytype_t *mt = wasm_memorytype_new(&lim);
        wasm_tabletype_t *tt =
            wasm_tabletype_new(wasm_valtype_new(WASM_FUNCREF), &lim);
        wasm_globaltype_t *gt =
            wasm_globaltype_new(wasm_valtype_new(WASM_I32), WASM_VAR);
        wasm_val_t zero = WASM_I32_VAL(0);
        build(s, &w);
        bump(&w, 1);
        CHECK(wasm_memory_new(s, mt) != NULL, "wasm_memory_new");
        CHECK(wasm_table_new(s, tt, NULL) != NULL, "wasm_table_new");
        CHECK(wasm_global_new(s, gt, &zero) != NULL, "wasm_global_new");
        CHECK(wasm_foreign_new(s) != NULL, "wasm_foreign_new");
        CHECK(wasm_extern_new_empty(s, WASM_EXTERN_FUNC) != NULL,
              "wasm_extern_new_empty");
        wasm_memorytype_delete(mt);
        wasm_tabletype_delete(tt);
        wasm_globaltype_delete(gt);
        free(w.inst.externs.data);
        wasm_exporttype_vec_delete(&w.inst.types);
        wasm_store_delete(s);
    }

    /* 5. Several stores on one engine, deleted out of creation order; types
       outlive the instance and store that made them, and a trap left
       undeleted is freed with its store. */
    {
        wasm_store_t *a = wasm_store_new(engine), *b = wasm_store_new(engine),
                     *c = wasm_store_new(engine);
        world_t wa, wb;
        wasm_trap_t *trap;
        wasm_functype_t *ft;
        wasm_valtype_t *vt;
        build(a, &wa);
        build(c, &wb);
        bump(&wa, 1);
        bump(&wb, 1);
        {
            wasm_message_t m;
            wasm_name_new_from_string_nt(&m, "kept");
            trap = wasm_trap_new(b, &m);
            wasm_byte_vec_delete(&m);
        }
        ft = wasm_func_type(export_func(&wa.inst, "bump"));
        vt = wasm_valtype_copy(wasm_functype_params(ft)->data[0]);
        /* The trap belongs to store b (ABI.md: objects belong to their
           store): read it, then leave it to b, which frees it. */
        {
            wasm_message_t m;
            wasm_trap_message(trap, &m);
            CHECK(m.size == 5 && strcmp(m.data, "kept") == 0,
                  "message of a trap made by wasm_trap_new");
            wasm_byte_vec_delete(&m);
        }
        wasm_store_delete(b);
        instance_release(&wb.inst);
        wasm_func_delete(wb.tick);
        wasm_module_delete(wb.module);
        wasm_store_delete(c);
        bump(&wa, 2);
        instance_release(&wa.inst);
        wasm_func_delete(wa.tick);
        wasm_module_delete(wa.module);
        wasm_store_delete(a);
        CHECK_EQ_INT(wasm_functype_params(ft)->num_elems, 1,
                     "a func type outlives its store");
        CHECK_EQ_INT(wasm_valtype_kind(vt), WASM_I32, "valtype outlives");
        wasm_functype_delete(ft);
        wasm_valtype_delete(vt);
    }

    /* 6. A trap from wasm outlives its instance and module. */
    {
        wasm_store_t *s = wasm_store_new(engine);
        wasm_module_t *m = compile_module(s, "traps");
        wasm_func_t *fail;
        wasm_extern_t *imports[1];
        instance_t inst;
        wasm_trap_t *trap;
        wasm_frame_vec_t trace;
        {
            wasm_functype_t *ft = functype_of(NULL, 0, NULL, 0);
            fail = wasm_func_new(s, ft, nop_cb);
            wasm_functype_delete(ft);
        }
        imports[0] = wasm_func_as_extern(fail);
        inst = instantiate(s, m, imports, 1);
        trap = call(export_func(&inst, "nested"), NULL, 0, NULL, 0);
        CHECK(trap != NULL, "nested traps");
        instance_release(&inst);
        wasm_module_delete(m);
        wasm_func_delete(fail);
        wasm_trap_trace(trap, &trace);
        CHECK(trace.num_elems >= 1 &&
                  wasm_frame_func_index(trace.data[0]) == 17,
              "the trace survives its instance");
        wasm_frame_vec_delete(&trace);
        EXPECT_TRAP(trap, "Exception: unreachable");
        wasm_store_delete(s);
    }

    /* 7. Engines: a second wasm_engine_new works alongside the first; the
       first delete leaves the second usable; a new engine after all are
       gone works again. */
    {
        wasm_engine_t *e2 = wasm_engine_new();
        wasm_store_t *s;
        world_t w;
        CHECK(e2 != NULL, "second wasm_engine_new");
        wasm_engine_delete(engine);
        s = wasm_store_new(e2);
        CHECK(s != NULL, "store on the second engine");
        build(s, &w);
        bump(&w, 1);
        instance_release(&w.inst);
        wasm_func_delete(w.tick);
        wasm_module_delete(w.module);
        wasm_store_delete(s);
        wasm_engine_delete(e2);

        engine = wasm_engine_new();
        CHECK(engine != NULL, "wasm_engine_new after all were deleted");
        s = wasm_store_new(engine);
        build(s, &w);
        bump(&w, 1);
        instance_release(&w.inst);
        wasm_func_delete(w.tick);
        wasm_module_delete(w.module);
        wasm_store_delete(s);
    }

    /* 8. An engine from a config; options are accepted. The header does
       not mark the config `own` in wasm_engine_new_with_config, so the
       client still deletes it. */
    {
        wasm_config_t *cfg = wasm_config_new();
        wasm_engine_t *e3;
        CHECK(cfg != NULL, "wasm_config_new");
        cfg = wasm_config_set_linux_perf_opt(cfg, false);
        CHECK(cfg != NULL, "wasm_config_set_linux_perf_opt");
        cfg = wasm_config_set_segue_flags(cfg, 0);
        CHECK(cfg != NULL, "wasm_config_set_segue_flags");
        e3 = wasm_engine_new_with_config(cfg);
        CHECK(e3 != NULL, "wasm_engine_new_with_config");
        wasm_config_delete(cfg);
        wasm_engine_delete(e3);
    }

    wasm_engine_delete(engine);
    test_pass();
    return 0;
}
