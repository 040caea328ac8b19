/* ABI.md: "Every entry point tolerates NULL for every pointer argument: it
 * returns NULL / 0 / false, or does nothing, and never crashes. This is
 * tested for every exported function."
 *
 * One probe per function of the header (symbols.h lists them; a function
 * without a probe fails the test). Each probe passes NULL in each pointer
 * position in turn, with valid objects elsewhere, and checks the result
 * where ABI.md fixes it. Each runs in its own child process so that one
 * crash is reported by name and the other probes still run. API functions
 * are referenced weakly: a function the library lacks is reported as
 * missing instead of failing the link.
 *
 * Constructors and wasm_func_call get one NULL at a time, each result
 * checked against WAMR's (core/iwasm/common/wasm_c_api.c, 2.4.x). Where WAMR
 * dereferences the NULL (a crash) or builds an object it cannot use, ours
 * answers NULL, a trap or the defaults instead: such checks say "WAMR:".
 * Owned arguments given next to a NULL are consumed by ours (valgrind's
 * leak check in run.sh holds us to that); WAMR leaves them to leak.
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#define SYM(name) _Pragma(STR(weak name))
#include "symbols.h"
#undef SYM

/* --- Probe registry. --- */
typedef struct {
    const char *name;
    void (*addr)(void);
    void (*run)(void);
} probe_t;

static probe_t probes[400];
static size_t nprobes;

static void add_probe(const char *name, void (*addr)(void), void (*run)(void))
{
    probes[nprobes].name = name;
    probes[nprobes].addr = addr;
    probes[nprobes].run = run;
    nprobes++;
}

/* PROBE(sym) { body }: the body exercises `sym` with NULL arguments. */
#define PROBE(sym)                                                          \
    static void probe_##sym(void);                                          \
    __attribute__((constructor)) static void register_##sym(void)           \
    {                                                                       \
        add_probe(#sym, (void (*)(void))(uintptr_t)&sym, probe_##sym);      \
    }                                                                       \
    static void probe_##sym(void)

#define IS_NULL(e) CHECK((e) == NULL, "%s is not NULL", #e)
#define IS_ZERO(e) CHECK((e) == 0, "%s is not 0", #e)
#define IS_FALSE(e) CHECK(!(e), "%s is not false", #e)

/* --- Valid objects for the non-NULL positions, made before any probe. --- */
static struct {
    wasm_engine_t *engine;
    wasm_store_t *store;
    wasm_module_t *module;
    wasm_func_t *tick, *bump;
    instance_t inst;
    wasm_memory_t *memory;
    wasm_global_t *global;
    wasm_table_t *table;
    wasm_foreign_t *foreign;
    wasm_trap_t *trap;
    wasm_byte_vec_t bytes;
    wasm_functype_t *functype;
    wasm_globaltype_t *globaltype;
    wasm_tabletype_t *tabletype;
    wasm_memorytype_t *memorytype;
    wasm_importtype_vec_t imports;
    wasm_exporttype_vec_t exports;
    wasm_limits_t limits;
} fx;

static void fixture(void)
{
    wasm_extern_t *imports[1];
    wasm_val_t zero = WASM_I32_VAL(0);
    wasm_message_t msg;

    fx.engine = wasm_engine_new();
    fx.store = wasm_store_new(fx.engine);
    fx.bytes = load_wasm("counter");
    fx.module = compile_module(fx.store, "counter");
    fx.tick = counter_tick(fx.store, NULL);
    imports[0] = wasm_func_as_extern(fx.tick);
    fx.inst = instantiate(fx.store, fx.module, imports, 1);
    fx.bump = export_func(&fx.inst, "bump");
    fx.memory = wasm_extern_as_memory(export_named(&fx.inst, "mem"));
    fx.limits.min = 1;
    fx.limits.max = 2;
    fx.functype = wasm_func_type(fx.bump);
    fx.globaltype = wasm_globaltype_new(wasm_valtype_new(WASM_I32), WASM_VAR);
    fx.tabletype =
        wasm_tabletype_new(wasm_valtype_new(WASM_FUNCREF), &fx.limits);
    fx.memorytype = wasm_memorytype_new(&fx.limits);
    fx.global = wasm_global_new(fx.store, fx.globaltype, &zero);
    fx.table = wasm_table_new(fx.store, fx.tabletype, NULL);
    fx.foreign = wasm_foreign_new(fx.store);
    wasm_name_new_from_string_nt(&msg, "fixture");
    fx.trap = wasm_trap_new(fx.store, &msg);
    wasm_byte_vec_delete(&msg);
    wasm_module_imports(fx.module, &fx.imports);
    wasm_module_exports(fx.module, &fx.exports);
    CHECK(fx.functype && fx.globaltype && fx.tabletype && fx.memorytype &&
              fx.global && fx.table && fx.foreign && fx.trap && fx.memory &&
              fx.imports.num_elems == 1 && fx.exports.num_elems == 3,
          "fixture objects");
}

static void finalizer(void *p)
{
    (void)p;
}

/* --- Vectors: 12 kinds x 5 functions. --- */
#define VEC_PROBES(name)                                                    \
    PROBE(wasm_##name##_vec_new_empty) { wasm_##name##_vec_new_empty(NULL); } \
    PROBE(wasm_##name##_vec_new_uninitialized)                              \
    {                                                                       \
        wasm_##name##_vec_new_uninitialized(NULL, 4);                       \
    }                                                                       \
    PROBE(wasm_##name##_vec_new)                                            \
    {                                                                       \
        wasm_##name##_vec_t v;                                              \
        wasm_##name##_vec_new(NULL, 0, NULL);                               \
        wasm_##name##_vec_new(NULL, 2, NULL);                               \
        memset(&v, 0, sizeof v);                                            \
        wasm_##name##_vec_new(&v, 2, NULL);                                 \
        wasm_##name##_vec_delete(&v);                                       \
    }                                                                       \
    PROBE(wasm_##name##_vec_copy)                                           \
    {                                                                       \
        wasm_##name##_vec_t v, e;                                           \
        wasm_##name##_vec_copy(NULL, NULL);                                 \
        memset(&v, 0, sizeof v);                                            \
        wasm_##name##_vec_copy(&v, NULL);                                   \
        wasm_##name##_vec_delete(&v);                                       \
        wasm_##name##_vec_new_empty(&e);                                    \
        wasm_##name##_vec_copy(NULL, &e);                                   \
        wasm_##name##_vec_delete(&e);                                       \
    }                                                                       \
    PROBE(wasm_##name##_vec_delete) { wasm_##name##_vec_delete(NULL); }

VEC_PROBES(byte)
VEC_PROBES(val)
VEC_PROBES(valtype)
VEC_PROBES(functype)
VEC_PROBES(globaltype)
VEC_PROBES(tabletype)
VEC_PROBES(memorytype)
VEC_PROBES(externtype)
VEC_PROBES(importtype)
VEC_PROBES(exporttype)
VEC_PROBES(frame)
VEC_PROBES(extern)

/* --- _delete(NULL) and _copy(NULL). --- */
#define DELETE_PROBE(name) PROBE(wasm_##name##_delete) { wasm_##name##_delete(NULL); }
#define COPY_PROBE(name) PROBE(wasm_##name##_copy) { IS_NULL(wasm_##name##_copy(NULL)); }

DELETE_PROBE(config)
DELETE_PROBE(engine)
DELETE_PROBE(store)
DELETE_PROBE(valtype)
DELETE_PROBE(functype)
DELETE_PROBE(globaltype)
DELETE_PROBE(tabletype)
DELETE_PROBE(memorytype)
DELETE_PROBE(externtype)
DELETE_PROBE(importtype)
DELETE_PROBE(exporttype)
DELETE_PROBE(ref)
DELETE_PROBE(frame)
DELETE_PROBE(trap)
DELETE_PROBE(foreign)
DELETE_PROBE(func)
DELETE_PROBE(global)
DELETE_PROBE(table)
DELETE_PROBE(memory)
DELETE_PROBE(extern)
DELETE_PROBE(instance)
DELETE_PROBE(shared_module)
PROBE(wasm_module_delete) { wasm_module_delete(NULL); }
PROBE(wasm_val_delete) { wasm_val_delete(NULL); }

COPY_PROBE(valtype)
COPY_PROBE(functype)
COPY_PROBE(globaltype)
COPY_PROBE(tabletype)
COPY_PROBE(memorytype)
COPY_PROBE(externtype)
COPY_PROBE(importtype)
COPY_PROBE(exporttype)
COPY_PROBE(ref)
COPY_PROBE(frame)
COPY_PROBE(trap)
COPY_PROBE(foreign)
COPY_PROBE(func)
COPY_PROBE(global)
COPY_PROBE(table)
COPY_PROBE(memory)
COPY_PROBE(extern)
COPY_PROBE(instance)
PROBE(wasm_val_copy)
{
    wasm_val_t v = WASM_I32_VAL(5), out;
    wasm_val_copy(NULL, NULL);
    wasm_val_copy(NULL, &v);
    memset(&out, 0, sizeof out);
    wasm_val_copy(&out, NULL);
}

/* --- References: same, host info, casts to and from wasm_ref_t. --- */
#define REF_BASE_PROBES(name, obj)                                          \
    PROBE(wasm_##name##_same)                                               \
    {                                                                       \
        wasm_##name##_same(NULL, NULL);                                     \
        IS_FALSE(wasm_##name##_same(NULL, obj));                            \
        IS_FALSE(wasm_##name##_same(obj, NULL));                            \
    }                                                                       \
    PROBE(wasm_##name##_get_host_info)                                      \
    {                                                                       \
        IS_NULL(wasm_##name##_get_host_info(NULL));                         \
    }                                                                       \
    PROBE(wasm_##name##_set_host_info)                                      \
    {                                                                       \
        static int info;                                                    \
        wasm_##name##_set_host_info(NULL, &info);                           \
        wasm_##name##_set_host_info(NULL, NULL);                            \
    }                                                                       \
    PROBE(wasm_##name##_set_host_info_with_finalizer)                       \
    {                                                                       \
        static int info;                                                    \
        wasm_##name##_set_host_info_with_finalizer(NULL, &info, finalizer); \
        wasm_##name##_set_host_info_with_finalizer(NULL, NULL, NULL);       \
    }

#define REF_PROBES(name, obj)                                               \
    REF_BASE_PROBES(name, obj)                                              \
    PROBE(wasm_##name##_as_ref) { IS_NULL(wasm_##name##_as_ref(NULL)); }    \
    PROBE(wasm_##name##_as_ref_const)                                       \
    {                                                                       \
        IS_NULL(wasm_##name##_as_ref_const(NULL));                          \
    }                                                                       \
    PROBE(wasm_ref_as_##name) { IS_NULL(wasm_ref_as_##name(NULL)); }       \
    PROBE(wasm_ref_as_##name##_const)                                       \
    {                                                                       \
        IS_NULL(wasm_ref_as_##name##_const(NULL));                          \
    }

REF_BASE_PROBES(ref, wasm_foreign_as_ref(fx.foreign))
REF_PROBES(trap, fx.trap)
REF_PROBES(foreign, fx.foreign)
REF_PROBES(func, fx.bump)
REF_PROBES(global, fx.global)
REF_PROBES(table, fx.table)
REF_PROBES(memory, fx.memory)
REF_PROBES(extern, wasm_memory_as_extern(fx.memory))
REF_PROBES(instance, fx.inst.instance)

/* --- Configuration, engine, store. --- */
PROBE(wasm_config_new)
{
    wasm_config_t *c = wasm_config_new();
    CHECK(c != NULL, "wasm_config_new");
    wasm_config_delete(c);
}
PROBE(wasm_config_set_mem_alloc_opt)
{
    wasm_config_t *c = wasm_config_new();
    IS_NULL(wasm_config_set_mem_alloc_opt(NULL, Alloc_With_System_Allocator,
                                          NULL));
    /* A NULL option with the system allocator needs no options. */
    wasm_config_set_mem_alloc_opt(c, Alloc_With_System_Allocator, NULL);
    wasm_config_delete(c);
}
PROBE(wasm_config_set_linux_perf_opt)
{
    IS_NULL(wasm_config_set_linux_perf_opt(NULL, true));
}
PROBE(wasm_config_set_segue_flags)
{
    IS_NULL(wasm_config_set_segue_flags(NULL, 0x1f1f));
}
PROBE(wasm_engine_new)
{
    wasm_engine_t *e = wasm_engine_new();
    CHECK(e != NULL, "wasm_engine_new");
    wasm_engine_delete(e);
}
PROBE(wasm_engine_new_with_config)
{
    /* NULL is the default configuration. WAMR: reads the NULL config. */
    wasm_engine_t *e = wasm_engine_new_with_config(NULL);
    CHECK(e == fx.engine, "wasm_engine_new_with_config(NULL) is not the "
                          "process engine");
    wasm_engine_delete(e);
}
PROBE(wasm_store_new) { IS_NULL(wasm_store_new(NULL)); }

/* --- Types. --- */
PROBE(wasm_valtype_new) { IS_NULL(wasm_valtype_new(200)); }
PROBE(wasm_valtype_kind) { wasm_valtype_kind(NULL); }
/* A vector of one i32, owned by the caller. */
static wasm_valtype_vec_t one_i32(void)
{
    wasm_valtype_vec_t v;
    wasm_valtype_t *t = wasm_valtype_new(WASM_I32);
    wasm_valtype_vec_new(&v, 1, &t);
    return v;
}
PROBE(wasm_functype_new)
{
    /* As in WAMR, a NULL vector is an empty one; the other is taken. */
    wasm_valtype_vec_t v = one_i32();
    wasm_functype_t *f = wasm_functype_new(NULL, &v);
    CHECK(f != NULL && wasm_functype_params(f)->num_elems == 0 &&
              wasm_functype_results(f)->num_elems == 1,
          "wasm_functype_new(NULL, [i32]) is not [] -> [i32]");
    wasm_functype_delete(f);
    v = one_i32();
    f = wasm_functype_new(&v, NULL);
    CHECK(f != NULL && wasm_functype_params(f)->num_elems == 1 &&
              wasm_functype_results(f)->num_elems == 0,
          "wasm_functype_new([i32], NULL) is not [i32] -> []");
    wasm_functype_delete(f);
}
PROBE(wasm_functype_params) { IS_NULL(wasm_functype_params(NULL)); }
PROBE(wasm_functype_results) { IS_NULL(wasm_functype_results(NULL)); }
PROBE(wasm_globaltype_new) { IS_NULL(wasm_globaltype_new(NULL, WASM_VAR)); }
PROBE(wasm_globaltype_content) { IS_NULL(wasm_globaltype_content(NULL)); }
PROBE(wasm_globaltype_mutability) { wasm_globaltype_mutability(NULL); }
PROBE(wasm_tabletype_new)
{
    IS_NULL(wasm_tabletype_new(NULL, &fx.limits));
    /* The valtype is given up even when construction fails. */
    IS_NULL(wasm_tabletype_new(wasm_valtype_new(WASM_FUNCREF), NULL));
}
PROBE(wasm_tabletype_element) { IS_NULL(wasm_tabletype_element(NULL)); }
PROBE(wasm_tabletype_limits) { IS_NULL(wasm_tabletype_limits(NULL)); }
PROBE(wasm_memorytype_new) { IS_NULL(wasm_memorytype_new(NULL)); }
PROBE(wasm_memorytype_limits) { IS_NULL(wasm_memorytype_limits(NULL)); }
PROBE(wasm_externtype_kind) { wasm_externtype_kind(NULL); }
#define EXTERNTYPE_CAST_PROBES(name)                                        \
    PROBE(wasm_##name##_as_externtype)                                      \
    {                                                                       \
        IS_NULL(wasm_##name##_as_externtype(NULL));                         \
    }                                                                       \
    PROBE(wasm_##name##_as_externtype_const)                                \
    {                                                                       \
        IS_NULL(wasm_##name##_as_externtype_const(NULL));                   \
    }                                                                       \
    PROBE(wasm_externtype_as_##name)                                        \
    {                                                                       \
        IS_NULL(wasm_externtype_as_##name(NULL));                           \
    }                                                                       \
    PROBE(wasm_externtype_as_##name##_const)                                \
    {                                                                       \
        IS_NULL(wasm_externtype_as_##name##_const(NULL));                   \
    }
EXTERNTYPE_CAST_PROBES(functype)
EXTERNTYPE_CAST_PROBES(globaltype)
EXTERNTYPE_CAST_PROBES(tabletype)
EXTERNTYPE_CAST_PROBES(memorytype)
/* An owned name and an owned extern type, to give away. */
static wasm_name_t *new_name(wasm_name_t *n, const char *s)
{
    wasm_name_new_from_string(n, s);
    return n;
}
static wasm_externtype_t *new_externtype(void)
{
    return wasm_functype_as_externtype(wasm_functype_new(NULL, NULL));
}
/* A failed constructor takes nothing, as in WAMR: the caller deletes what
   it passed. */
PROBE(wasm_importtype_new)
{
    wasm_name_t a, b;
    wasm_externtype_t *t = new_externtype();
    IS_NULL(wasm_importtype_new(NULL, new_name(&b, "f"), t));
    IS_NULL(wasm_importtype_new(new_name(&a, "m"), NULL, t));
    CHECK(wasm_externtype_kind(t) == WASM_EXTERN_FUNC && a.size == 1
              && b.size == 1,
          "a failed wasm_importtype_new took its arguments");
    wasm_byte_vec_delete(&a);
    wasm_byte_vec_delete(&b);
    IS_NULL(wasm_importtype_new(new_name(&a, "m"), new_name(&b, "f"), NULL));
    wasm_byte_vec_delete(&a);
    wasm_byte_vec_delete(&b);
    wasm_externtype_delete(t);
}
PROBE(wasm_importtype_module) { IS_NULL(wasm_importtype_module(NULL)); }
PROBE(wasm_importtype_name) { IS_NULL(wasm_importtype_name(NULL)); }
PROBE(wasm_importtype_type) { IS_NULL(wasm_importtype_type(NULL)); }
PROBE(wasm_importtype_is_linked) { IS_FALSE(wasm_importtype_is_linked(NULL)); }
PROBE(wasm_exporttype_new)
{
    wasm_name_t n;
    wasm_externtype_t *t = new_externtype();
    IS_NULL(wasm_exporttype_new(NULL, t));
    IS_NULL(wasm_exporttype_new(new_name(&n, "f"), NULL));
    CHECK(wasm_externtype_kind(t) == WASM_EXTERN_FUNC && n.size == 1,
          "a failed wasm_exporttype_new took its arguments");
    wasm_byte_vec_delete(&n);
    wasm_externtype_delete(t);
}
PROBE(wasm_exporttype_name) { IS_NULL(wasm_exporttype_name(NULL)); }
PROBE(wasm_exporttype_type) { IS_NULL(wasm_exporttype_type(NULL)); }

/* --- Frames and traps. --- */
PROBE(wasm_frame_instance) { IS_NULL(wasm_frame_instance(NULL)); }
PROBE(wasm_frame_func_index) { wasm_frame_func_index(NULL); }
PROBE(wasm_frame_func_offset) { wasm_frame_func_offset(NULL); }
PROBE(wasm_frame_module_offset) { wasm_frame_module_offset(NULL); }
PROBE(wasm_trap_new)
{
    wasm_message_t m;
    wasm_trap_t *t;
    wasm_name_new_from_string_nt(&m, "x");
    IS_NULL(wasm_trap_new(NULL, &m));
    wasm_byte_vec_delete(&m);
    /* As in WAMR, a trap without a message: wasm_trap_message leaves *out
       alone. */
    t = wasm_trap_new(fx.store, NULL);
    CHECK(t != NULL, "wasm_trap_new(store, NULL) gave no trap");
    memset(&m, 0, sizeof m);
    wasm_trap_message(t, &m);
    CHECK(m.size == 0 && m.data == NULL,
          "wasm_trap_new(store, NULL) has a message");
    wasm_byte_vec_delete(&m);
    wasm_trap_delete(t);
}
PROBE(wasm_trap_message)
{
    wasm_message_t out;
    memset(&out, 0, sizeof out);
    wasm_trap_message(NULL, &out);
    wasm_byte_vec_delete(&out);
    wasm_trap_message(fx.trap, NULL);
}
PROBE(wasm_trap_origin) { IS_NULL(wasm_trap_origin(NULL)); }
PROBE(wasm_trap_trace)
{
    wasm_frame_vec_t out;
    memset(&out, 0, sizeof out);
    wasm_trap_trace(NULL, &out);
    wasm_frame_vec_delete(&out);
    wasm_trap_trace(fx.trap, NULL);
}
PROBE(wasm_foreign_new) { IS_NULL(wasm_foreign_new(NULL)); }

/* --- Modules. --- */
PROBE(wasm_module_new)
{
    IS_NULL(wasm_module_new(NULL, &fx.bytes));
    IS_NULL(wasm_module_new(fx.store, NULL));
}
PROBE(wasm_module_new_ex)
{
    LoadArgs args;
    wasm_module_t *m;
    memset(&args, 0, sizeof args);
    args.clone_wasm_binary = true;
    IS_NULL(wasm_module_new_ex(NULL, &fx.bytes, &args));
    IS_NULL(wasm_module_new_ex(fx.store, NULL, &args));
    /* NULL arguments are the defaults. WAMR: reads them. */
    m = wasm_module_new_ex(fx.store, &fx.bytes, NULL);
    CHECK(m != NULL, "wasm_module_new_ex(store, bytes, NULL)");
    wasm_module_delete(m);
}
PROBE(wasm_module_validate)
{
    IS_FALSE(wasm_module_validate(NULL, &fx.bytes));
    IS_FALSE(wasm_module_validate(fx.store, NULL));
}
PROBE(wasm_module_imports)
{
    wasm_importtype_vec_t out;
    memset(&out, 0, sizeof out);
    wasm_module_imports(NULL, &out);
    IS_ZERO(out.num_elems);
    wasm_importtype_vec_delete(&out);
    wasm_module_imports(fx.module, NULL);
}
PROBE(wasm_module_exports)
{
    wasm_exporttype_vec_t out;
    memset(&out, 0, sizeof out);
    wasm_module_exports(NULL, &out);
    IS_ZERO(out.num_elems);
    wasm_exporttype_vec_delete(&out);
    wasm_module_exports(fx.module, NULL);
}
PROBE(wasm_module_serialize)
{
    wasm_byte_vec_t out;
    memset(&out, 0, sizeof out);
    wasm_module_serialize(NULL, &out);
    IS_ZERO(out.num_elems);
    wasm_byte_vec_delete(&out);
    wasm_module_serialize(fx.module, NULL);
}
PROBE(wasm_module_deserialize)
{
    IS_NULL(wasm_module_deserialize(NULL, &fx.bytes));
    IS_NULL(wasm_module_deserialize(fx.store, NULL));
}
PROBE(wasm_module_share) { IS_NULL(wasm_module_share(NULL)); }
PROBE(wasm_module_obtain)
{
    wasm_shared_module_t *s = wasm_module_share(fx.module);
    IS_NULL(wasm_module_obtain(fx.store, NULL));
    IS_NULL(wasm_module_obtain(NULL, s));
    wasm_shared_module_delete(s);
}
PROBE(wasm_module_set_name)
{
    IS_FALSE(wasm_module_set_name(NULL, "name"));
    wasm_module_set_name(fx.module, NULL);
}
PROBE(wasm_module_get_name)
{
    /* As in WAMR: the empty name. */
    const char *n = wasm_module_get_name(NULL);
    CHECK(n != NULL && n[0] == 0, "wasm_module_get_name(NULL) is not \"\"");
}
PROBE(wasm_module_is_underlying_binary_freeable)
{
    IS_FALSE(wasm_module_is_underlying_binary_freeable(NULL));
}

/* --- Instances. --- */
/* The three ways to instantiate, one NULL at a time: `make` is called with
   store, module, imports, trap (and NULL for the last argument of _ex, so
   that a NULL there is tested by its own probe). */
typedef wasm_instance_t *(*make_instance_t)(wasm_store_t *,
                                            const wasm_module_t *,
                                            const wasm_extern_vec_t *,
                                            wasm_trap_t **);
static wasm_instance_t *make_plain(wasm_store_t *s, const wasm_module_t *m,
                                   const wasm_extern_vec_t *v, wasm_trap_t **t)
{
    return wasm_instance_new(s, m, v, t);
}
static wasm_instance_t *make_args(wasm_store_t *s, const wasm_module_t *m,
                                  const wasm_extern_vec_t *v, wasm_trap_t **t)
{
    return wasm_instance_new_with_args(s, m, v, t, 0, 0);
}
static wasm_instance_t *make_args_ex(wasm_store_t *s, const wasm_module_t *m,
                                     const wasm_extern_vec_t *v,
                                     wasm_trap_t **t)
{
    InstantiationArgs args;
    memset(&args, 0, sizeof args);
    return wasm_instance_new_with_args_ex(s, m, v, t, &args);
}
static void instantiate_with_nulls(make_instance_t make)
{
    wasm_extern_t *imports[1];
    wasm_extern_vec_t vec = { 1, imports, 1, sizeof(wasm_extern_t *), NULL };
    wasm_trap_t *trap = NULL;
    wasm_instance_t *i;
    wasm_extern_vec_t exports;
    wasm_name_t msg;
    imports[0] = wasm_func_as_extern(fx.tick);
    /* No store or no module: nothing made, and no trap either. WAMR: a NULL
       store goes on into the store's use. */
    IS_NULL(make(NULL, fx.module, &vec, &trap));
    IS_NULL(trap);
    IS_NULL(make(fx.store, NULL, &vec, &trap));
    IS_NULL(trap);
    /* No imports vector: as in WAMR, the instance is made with its import
       unlinked, and calling through it traps. */
    i = make(fx.store, fx.module, NULL, &trap);
    CHECK(i != NULL, "instantiation without an imports vector");
    IS_NULL(trap);
    if (i) {
        wasm_val_t a[1] = { WASM_I32_VAL(1) }, r[1];
        wasm_trap_t *t;
        wasm_instance_exports(i, &exports);
        CHECK(exports.num_elems == 3, "%zu exports", exports.num_elems);
        t = call(wasm_extern_as_func(exports.data[1]), a, 1, r, 1);
        CHECK(t != NULL, "bump with its import unlinked did not trap");
        wasm_trap_message(t, &msg);
        CHECK(strcmp(msg.data, "Exception: failed to call unlinked import "
                               "function (host, tick)") == 0,
              "trap message \"%s\"", msg.data);
        wasm_byte_vec_delete(&msg);
        wasm_trap_delete(t);
        wasm_extern_vec_delete(&exports);
        wasm_instance_delete(i);
    }
    /* No trap out-parameter: the instance is made all the same. */
    i = make(fx.store, fx.module, &vec, NULL);
    CHECK(i != NULL, "instantiation without a trap pointer");
    wasm_instance_delete(i);
}
PROBE(wasm_instance_new) { instantiate_with_nulls(make_plain); }
PROBE(wasm_instance_new_with_args) { instantiate_with_nulls(make_args); }
PROBE(wasm_instance_new_with_args_ex)
{
    wasm_extern_t *imports[1];
    wasm_extern_vec_t vec = { 1, imports, 1, sizeof(wasm_extern_t *), NULL };
    wasm_trap_t *trap = NULL;
    wasm_instance_t *i;
    instantiate_with_nulls(make_args_ex);
    /* NULL arguments are the defaults. WAMR: reads them. */
    imports[0] = wasm_func_as_extern(fx.tick);
    i = wasm_instance_new_with_args_ex(fx.store, fx.module, &vec, &trap, NULL);
    CHECK(i != NULL, "wasm_instance_new_with_args_ex(..., NULL)");
    IS_NULL(trap);
    wasm_instance_delete(i);
}
PROBE(wasm_instance_exports)
{
    wasm_extern_vec_t out;
    memset(&out, 0, sizeof out);
    wasm_instance_exports(NULL, &out);
    IS_ZERO(out.num_elems);
    wasm_extern_vec_delete(&out);
    wasm_instance_exports(fx.inst.instance, NULL);
}
/* As in WAMR without profiling: -1, NULL arguments included. */
PROBE(wasm_instance_sum_wasm_exec_time)
{
    CHECK(wasm_instance_sum_wasm_exec_time(NULL) == -1.0, "sum of NULL");
}
PROBE(wasm_instance_get_wasm_func_exec_time)
{
    CHECK(wasm_instance_get_wasm_func_exec_time(NULL, "bump") == -1.0,
          "NULL instance");
    CHECK(wasm_instance_get_wasm_func_exec_time(fx.inst.instance, NULL)
              == -1.0,
          "NULL name");
}

/* --- Functions. --- */
static wasm_trap_t *cb(const wasm_val_vec_t *a, wasm_val_vec_t *r)
{
    (void)a;
    (void)r;
    return NULL;
}
static wasm_trap_t *cb_env(void *e, const wasm_val_vec_t *a, wasm_val_vec_t *r)
{
    (void)e;
    (void)a;
    (void)r;
    return NULL;
}
/* Store constructors given no store make an object of no store, as WAMR
   does (capi/README.md; wamr_lifetime.c links them into an instance). */
PROBE(wasm_func_new)
{
    wasm_func_t *f = wasm_func_new(NULL, fx.functype, cb);
    CHECK(f != NULL && wasm_func_param_arity(f) == 1,
          "wasm_func_new(NULL store) makes a function of no store");
    wasm_func_delete(f);
    IS_NULL(wasm_func_new(fx.store, NULL, cb));
    IS_NULL(wasm_func_new(fx.store, fx.functype, NULL));
}
static void env_finalizer(void *env)
{
    (*(int *)env)++;
}
PROBE(wasm_func_new_with_env)
{
    static int finalized;
    wasm_func_t *f;
    /* A function of no store that no instance linked: its finalizer runs
       when it is deleted. */
    f = wasm_func_new_with_env(NULL, fx.functype, cb_env, &finalized,
                               env_finalizer);
    CHECK(f != NULL, "wasm_func_new_with_env(NULL store)");
    wasm_func_delete(f);
    CHECK_EQ_INT(finalized, 1, "finalizer of a deleted function of no store");
    finalized = 0;
    IS_NULL(wasm_func_new_with_env(fx.store, NULL, cb_env, &finalized,
                                   env_finalizer));
    IS_NULL(wasm_func_new_with_env(fx.store, fx.functype, NULL, &finalized,
                                   env_finalizer));
    /* Neither a NULL env nor a NULL finalizer is an error. */
    f = wasm_func_new_with_env(fx.store, fx.functype, cb_env, NULL,
                               env_finalizer);
    CHECK(f != NULL, "wasm_func_new_with_env with a NULL env");
    wasm_func_delete(f);
    f = wasm_func_new_with_env(fx.store, fx.functype, cb_env, &finalized,
                               NULL);
    CHECK(f != NULL, "wasm_func_new_with_env with a NULL finalizer");
    wasm_func_delete(f);
    /* A failed construction never runs the finalizer. */
    CHECK_EQ_INT(finalized, 0, "finalizer runs");
}
PROBE(wasm_func_type) { IS_NULL(wasm_func_type(NULL)); }
PROBE(wasm_func_param_arity) { IS_ZERO(wasm_func_param_arity(NULL)); }
PROBE(wasm_func_result_arity) { IS_ZERO(wasm_func_result_arity(NULL)); }
static int nullary_calls;
static wasm_trap_t *count_call(const wasm_val_vec_t *a, wasm_val_vec_t *r)
{
    (void)a;
    (void)r;
    nullary_calls++;
    return NULL;
}
/* The i32 that bump stores at memory[0]: its call count. */
static int32_t bump_count(void)
{
    int32_t n;
    memcpy(&n, wasm_memory_data(fx.memory), sizeof n);
    return n;
}
PROBE(wasm_func_call)
{
    wasm_val_t a[1] = { WASM_I32_VAL(1) }, r[1];
    wasm_val_vec_t args = { 1, a, 1, sizeof(wasm_val_t), NULL };
    wasm_val_vec_t res = { 1, r, 0, sizeof(wasm_val_t), NULL };
    wasm_val_vec_t none = WASM_EMPTY_VEC;
    wasm_functype_t *unit = wasm_functype_new(NULL, NULL);
    wasm_func_t *nullary = wasm_func_new(fx.store, unit, count_call);
    wasm_trap_t *t;
    int32_t before;
    wasm_functype_delete(unit);

    /* No function: NULL (no trap, nothing run). WAMR: reads the NULL. */
    IS_NULL(wasm_func_call(NULL, &args, &res));

    /* No arguments: bump takes one, so an arity error, as a trap. WAMR
       reads the NULL vector. */
    before = bump_count();
    t = wasm_func_call(fx.bump, NULL, &res);
    CHECK(t != NULL, "bump called without arguments did not trap");
    wasm_trap_delete(t);
    CHECK_EQ_INT(bump_count(), before, "bump ran without its argument");
    /* ... but a function without parameters needs none. */
    IS_NULL(wasm_func_call(nullary, NULL, &none));
    CHECK_EQ_INT(nullary_calls, 1, "calls of the nullary function");

    /* No results vector: as in WAMR, a function without results runs and
       returns NULL. */
    IS_NULL(wasm_func_call(nullary, &none, NULL));
    CHECK_EQ_INT(nullary_calls, 2, "calls of the nullary function");
    /* bump has a result and nowhere to put it: as in WAMR it runs first;
       then, where WAMR writes through the NULL, ours traps. */
    before = bump_count();
    t = wasm_func_call(fx.bump, &args, NULL);
    CHECK(t != NULL, "bump with no results vector did not trap");
    wasm_trap_delete(t);
    CHECK_EQ_INT(bump_count(), before + 1, "bump ran with no results vector");
    wasm_func_delete(nullary);
}

/* --- Globals, tables, memories, externs. --- */
PROBE(wasm_global_new)
{
    wasm_val_t v = WASM_I32_VAL(1);
    wasm_global_t *g = wasm_global_new(NULL, fx.globaltype, &v);
    CHECK(g != NULL, "wasm_global_new(NULL store) makes a global of no store");
    wasm_global_delete(g);
    IS_NULL(wasm_global_new(fx.store, NULL, &v));
    IS_NULL(wasm_global_new(fx.store, fx.globaltype, NULL));
}
PROBE(wasm_global_type) { IS_NULL(wasm_global_type(NULL)); }
PROBE(wasm_global_get)
{
    wasm_val_t out;
    memset(&out, 0, sizeof out);
    wasm_global_get(NULL, &out);
    wasm_global_get(fx.global, NULL);
}
PROBE(wasm_global_set)
{
    wasm_val_t v = WASM_I32_VAL(3);
    wasm_global_set(NULL, &v);
    wasm_global_set(fx.global, NULL);
}
PROBE(wasm_table_new)
{
    wasm_table_t *t = wasm_table_new(NULL, fx.tabletype, NULL);
    /* Of no store, not backed (as WAMR's tables before linking). */
    CHECK(t != NULL && wasm_table_size(t) == 0 && wasm_table_get(t, 0) == NULL,
          "wasm_table_new(NULL store) makes an unbacked table");
    wasm_table_delete(t);
    IS_NULL(wasm_table_new(fx.store, NULL, NULL));
    /* A NULL initial element is the null reference, not an error. */
    t = wasm_table_new(fx.store, fx.tabletype, NULL);
    CHECK(t != NULL && wasm_table_size(t) == 1 && wasm_table_get(t, 0) == NULL,
          "wasm_table_new(store, type, NULL) is not a table of one null");
    wasm_table_delete(t);
}
PROBE(wasm_table_type) { IS_NULL(wasm_table_type(NULL)); }
PROBE(wasm_table_get) { IS_NULL(wasm_table_get(NULL, 0)); }
PROBE(wasm_table_set) { IS_FALSE(wasm_table_set(NULL, 0, NULL)); }
PROBE(wasm_table_size) { IS_ZERO(wasm_table_size(NULL)); }
PROBE(wasm_table_grow) { IS_FALSE(wasm_table_grow(NULL, 1, NULL)); }
PROBE(wasm_memory_new)
{
    wasm_memory_t *m = wasm_memory_new(NULL, fx.memorytype);
    CHECK(m != NULL && wasm_memory_data(m) == NULL && wasm_memory_size(m) == 0,
          "wasm_memory_new(NULL store) makes an unbacked memory");
    wasm_memory_delete(m);
    IS_NULL(wasm_memory_new(fx.store, NULL));
}
PROBE(wasm_memory_type) { IS_NULL(wasm_memory_type(NULL)); }
PROBE(wasm_memory_data) { IS_NULL(wasm_memory_data(NULL)); }
PROBE(wasm_memory_data_size) { IS_ZERO(wasm_memory_data_size(NULL)); }
PROBE(wasm_memory_size) { IS_ZERO(wasm_memory_size(NULL)); }
PROBE(wasm_memory_grow) { IS_FALSE(wasm_memory_grow(NULL, 1)); }
PROBE(wasm_extern_kind) { wasm_extern_kind(NULL); }
PROBE(wasm_extern_type) { IS_NULL(wasm_extern_type(NULL)); }
PROBE(wasm_extern_new_empty)
{
    wasm_extern_t *e = wasm_extern_new_empty(NULL, WASM_EXTERN_FUNC);
    CHECK(e != NULL, "a function placeholder of no store");
    wasm_extern_delete(e);
    /* As in WAMR, only functions and globals have placeholders. */
    IS_NULL(wasm_extern_new_empty(fx.store, WASM_EXTERN_TABLE));
    IS_NULL(wasm_extern_new_empty(fx.store, WASM_EXTERN_MEMORY));
    IS_NULL(wasm_extern_new_empty(fx.store, 9));
}
#define EXTERN_CAST_PROBES(name)                                            \
    PROBE(wasm_##name##_as_extern) { IS_NULL(wasm_##name##_as_extern(NULL)); } \
    PROBE(wasm_##name##_as_extern_const)                                    \
    {                                                                       \
        IS_NULL(wasm_##name##_as_extern_const(NULL));                       \
    }                                                                       \
    PROBE(wasm_extern_as_##name) { IS_NULL(wasm_extern_as_##name(NULL)); } \
    PROBE(wasm_extern_as_##name##_const)                                    \
    {                                                                       \
        IS_NULL(wasm_extern_as_##name##_const(NULL));                       \
    }
EXTERN_CAST_PROBES(func)
EXTERN_CAST_PROBES(global)
EXTERN_CAST_PROBES(table)
EXTERN_CAST_PROBES(memory)

/* --- Driver. --- */

/* Runs one probe in a child; returns 0 when it passed, else prints why. */
static int run_probe(const probe_t *p)
{
    pid_t pid;
    int status;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0) {
        alarm(60);
        p->run();
        fflush(stdout);
        _exit(test_failures ? 1 : 0);
    }
    CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
    if (WIFSIGNALED(status)) {
        fprintf(stderr, "  %s: crashed (signal %d, %s)\n", p->name,
                WTERMSIG(status), strsignal(WTERMSIG(status)));
        return 1;
    }
    if (WEXITSTATUS(status) != 0) {
        fprintf(stderr, "  %s: failed (exit %d, see above)\n", p->name,
                WEXITSTATUS(status));
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    static const char *const declared[] = {
#define SYM(name) #name,
#include "symbols.h"
#undef SYM
    };
    size_t i, j, missing = 0, unprobed = 0;
    int failed = 0;

    test_init(argc, argv, "null_args");
    /* A child reports its failed checks and exits; no keep-going there. */
    test_keep_going = 1;
    fixture();
    CHECK(test_failures == 0, "fixture failed");

    for (i = 0; i < sizeof declared / sizeof declared[0]; i++) {
        for (j = 0; j < nprobes; j++)
            if (strcmp(probes[j].name, declared[i]) == 0)
                break;
        if (j == nprobes) {
            fprintf(stderr, "  %s: no probe\n", declared[i]);
            unprobed++;
        }
    }
    for (i = 0; i < nprobes; i++) {
        if (!probes[i].addr) {
            fprintf(stderr, "  %s: not exported, NULL tolerance untested\n",
                    probes[i].name);
            missing++;
            continue;
        }
        failed += run_probe(&probes[i]);
    }
    printf("%zu probes: %d failed, %zu functions missing, %zu without a "
           "probe\n",
           nprobes, failed, missing, unprobed);
    if (failed || missing || unprobed) {
        fprintf(stderr, "FAIL null_args: %d probes failed, %zu functions "
                "missing, %zu without a probe\n",
                failed, missing, unprobed);
        return 1;
    }
    test_pass();
    return 0;
}
