/* Bad calls and bad links give a trap or NULL, never a crash, and leave the
   store usable:
   - wasm_func_call with too few arguments, arguments of the wrong kind, a
     missing argument vector, or a results vector too small for the
     function's results (a trap; WAMR reads and writes past the vectors
     there). As in WAMR, extra arguments are ignored, and an argument of
     the other kind of the same width passes its bits (capi/README.md,
     rows on wasm_func_call);
   - calling a function that was never linked: a placeholder from
     wasm_extern_new_empty, or a missing import ("failed to call unlinked
     function"; a module with missing imports still instantiates, as in
     WAMR);
   - instantiating with imports of the wrong kind or signature
     (wasm_instance_new returns NULL). */
#include "common.h"

static int maybe_calls;

static wasm_trap_t *maybe_cb(const wasm_val_vec_t *args,
                             wasm_val_vec_t *results)
{
    (void)args;
    maybe_calls++;
    results->data[0].kind = WASM_I32;
    results->data[0].of.i32 = 77;
    return NULL;
}

static wasm_trap_t *nop_cb(const wasm_val_vec_t *args,
                           wasm_val_vec_t *results)
{
    (void)args;
    (void)results;
    return NULL;
}

/* A trap whose message is non-empty and NUL-terminated (its wording is the
   runtime's choice). */
static void expect_some_trap_at(int line, wasm_trap_t *trap, const char *what)
{
    wasm_message_t msg;
    if (!trap) {
        test_fail(__FILE__, line, "trap != NULL", "%s: no trap", what);
        return;
    }
    wasm_trap_message(trap, &msg);
    if (!(msg.num_elems >= 2 && msg.data &&
          msg.data[msg.num_elems - 1] == '\0'))
        test_fail(__FILE__, line, "trap message", "%s: message \"%.*s\" "
                  "(num_elems %zu) is empty or not NUL-terminated", what,
                  (int)msg.num_elems, msg.data ? msg.data : "",
                  msg.num_elems);
    printf("  %s -> trap \"%s\"\n", what, msg.data);
    wasm_byte_vec_delete(&msg);
    wasm_trap_delete(trap);
}
#define EXPECT_SOME_TRAP(trap, what) expect_some_trap_at(__LINE__, trap, what)

/* The trap of a call that reaches a function never linked. */
static void expect_unlinked(wasm_trap_t *trap)
{
    CHECK(trap != NULL, "call through an unlinked import did not trap");
    if (trap)
        EXPECT_TRAP(trap, "Exception: failed to call unlinked import "
                          "function (host, maybe)");
}

static void check_add_works(const instance_t *inst, const char *after)
{
    wasm_val_t a[2] = { WASM_I32_VAL(40), WASM_I32_VAL(2) };
    wasm_val_t r[1] = { WASM_INIT_VAL };
    EXPECT_NO_TRAP(call(export_func(inst, "add"), a, 2, r, 1));
    CHECK(r[0].kind == WASM_I32 && r[0].of.i32 == 42,
          "add(40, 2) after %s", after);
}

static wasm_instance_t *try_instantiate(wasm_store_t *store,
                                        const wasm_module_t *module,
                                        wasm_extern_t **imports, size_t n)
{
    wasm_extern_vec_t vec = { n, imports, n, sizeof(wasm_extern_t *), NULL };
    wasm_trap_t *trap = NULL;
    wasm_instance_t *i = wasm_instance_new(store, module, &vec, &trap);
    if (trap)
        wasm_trap_delete(trap);
    return i;
}

int main(int argc, char **argv)
{
    wasm_engine_t *engine;
    wasm_store_t *store;
    wasm_module_t *module;
    wasm_func_t *maybe, *nop;
    wasm_extern_t *imports[1];
    instance_t inst;
    wasm_func_t *add, *mix;

    test_init(argc, argv, "call_errors");
    engine = wasm_engine_new();
    store = wasm_store_new(engine);
    module = compile_module(store, "calls");
    {
        const wasm_valkind_t i32[1] = { WASM_I32 };
        wasm_functype_t *ft = functype_of(NULL, 0, i32, 1);
        wasm_functype_t *ft0 = functype_of(NULL, 0, NULL, 0);
        maybe = wasm_func_new(store, ft, maybe_cb);
        nop = wasm_func_new(store, ft0, nop_cb);
        wasm_functype_delete(ft);
        wasm_functype_delete(ft0);
    }
    imports[0] = wasm_func_as_extern(maybe);
    inst = instantiate(store, module, imports, 1);
    add = export_func(&inst, "add");
    mix = export_func(&inst, "mix");
    check_add_works(&inst, "instantiation");

    /* --- Arity. --- */
    {
        wasm_val_t a[3] = { WASM_I32_VAL(1), WASM_I32_VAL(2),
                            WASM_I32_VAL(3) };
        wasm_val_t r[1] = { WASM_INIT_VAL };
        EXPECT_SOME_TRAP(call(add, a, 1, r, 1), "add with 1 argument");
        check_add_works(&inst, "too few arguments");
        EXPECT_SOME_TRAP(call(add, a, 0, r, 1), "add with 0 arguments");
        /* WAMR reads one argument per parameter: the third is ignored. */
        EXPECT_NO_TRAP(call(add, a, 3, r, 1));
        CHECK(r[0].kind == WASM_I32 && r[0].of.i32 == 3,
              "add(1, 2, 3) adds the first two: %d", r[0].of.i32);
        check_add_works(&inst, "too many arguments");
        {
            wasm_val_vec_t res = { 1, r, 0, sizeof(wasm_val_t), NULL };
            EXPECT_SOME_TRAP(wasm_func_call(add, NULL, &res),
                             "add with a NULL argument vector");
        }
        check_add_works(&inst, "NULL arguments");
    }

    /* --- Kinds. --- */
    {
        wasm_val_t a[2] = { WASM_I64_VAL(1), WASM_I32_VAL(2) };
        wasm_val_t m[3] = { WASM_I64_VAL(1), WASM_F32_VAL(2.0f),
                            WASM_F64_VAL(0.5) };
        wasm_val_t r[1] = { WASM_INIT_VAL };
        EXPECT_SOME_TRAP(call(add, a, 2, r, 1), "add(i64, i32)");
        a[0] = (wasm_val_t)WASM_I32_VAL(1);
        a[1] = (wasm_val_t)WASM_F32_VAL(2.0f);
        /* Same width: WAMR passes the f32's bits as the i32. */
        EXPECT_NO_TRAP(call(add, a, 2, r, 1));
        CHECK(r[0].kind == WASM_I32 && r[0].of.i32 == 0x40000001,
              "add(1, 2.0f) adds 2.0f's bits: %#x", (unsigned)r[0].of.i32);
        a[1].kind = WASM_EXTERNREF;
        a[1].of.ref = NULL;
        EXPECT_SOME_TRAP(call(add, a, 2, r, 1), "add(i32, externref)");
        a[1].kind = 7; /* not a value kind at all */
        EXPECT_SOME_TRAP(call(add, a, 2, r, 1), "add(i32, kind 7)");
        check_add_works(&inst, "wrong kinds");
        EXPECT_NO_TRAP(call(mix, m, 3, r, 1));
        CHECK(r[0].kind == WASM_F64 && r[0].of.f64 == 3.5, "mix(1, 2, 0.5)");
        m[1] = (wasm_val_t)WASM_F64_VAL(2.0);
        EXPECT_SOME_TRAP(call(mix, m, 3, r, 1), "mix(i64, f64, f64)");
        m[1] = (wasm_val_t)WASM_F32_VAL(2.0f);
        m[2] = (wasm_val_t)WASM_F32_VAL(0.5f);
        EXPECT_SOME_TRAP(call(mix, m, 3, r, 1), "mix(i64, f32, f32)");
    }

    /* --- Results vector too small for the results. --- */
    {
        wasm_val_t a[2] = { WASM_I32_VAL(1), WASM_I32_VAL(2) };
        wasm_val_vec_t args = { 2, a, 2, sizeof(wasm_val_t), NULL };
        wasm_val_vec_t none = WASM_EMPTY_VEC;
        EXPECT_SOME_TRAP(wasm_func_call(add, &args, &none),
                         "add with an empty results vector");
        EXPECT_SOME_TRAP(wasm_func_call(add, &args, NULL),
                         "add with a NULL results vector");
        check_add_works(&inst, "missing results space");
        /* No parameters and no results: NULL vectors are fine. */
        EXPECT_NO_TRAP(wasm_func_call(export_func(&inst, "none"), NULL,
                                      NULL));
    }

    /* --- Unlinked functions. --- */
    {
        wasm_extern_t *empty = wasm_extern_new_empty(store, WASM_EXTERN_FUNC);
        wasm_func_t *f;
        wasm_val_t r[1] = { WASM_INIT_VAL };
        CHECK(empty != NULL, "wasm_extern_new_empty(FUNC)");
        CHECK_EQ_INT(wasm_extern_kind(empty), WASM_EXTERN_FUNC, "kind");
        f = wasm_extern_as_func(empty);
        CHECK(f != NULL, "placeholder is a func");
        EXPECT_TRAP(call(f, NULL, 0, r, 0), "failed to call unlinked function");

        /* A module linked against the placeholder instantiates; calling
           through the missing import traps, with WAMR's "Exception: failed
           to call unlinked import function (host, maybe)" (a direct call
           of the placeholder says "failed to call unlinked function"). */
        {
            instance_t inst2;
            imports[0] = empty;
            inst2 = instantiate(store, module, imports, 1);
            expect_unlinked(call(export_func(&inst2, "call_maybe"), NULL, 0,
                                 r, 1));
            check_add_works(&inst2, "unlinked import call");
            instance_release(&inst2);
        }
        wasm_extern_delete(empty);
    }

    /* --- Bad links. --- */
    {
        wasm_globaltype_t *gt =
            wasm_globaltype_new(wasm_valtype_new(WASM_I32), WASM_CONST);
        wasm_val_t zero = WASM_I32_VAL(0);
        wasm_global_t *g = wasm_global_new(store, gt, &zero);
        wasm_extern_t *bad[2];
        wasm_globaltype_delete(gt);

        /* ABI.md: a missing import is "a function that was never linked":
           the module instantiates and the call traps. */
        {
            instance_t inst3 = instantiate(store, module, NULL, 0);
            wasm_val_t r[1] = { WASM_INIT_VAL };
            expect_unlinked(call(export_func(&inst3, "call_maybe"), NULL, 0,
                                 r, 1));
            check_add_works(&inst3, "instantiation without imports");
            instance_release(&inst3);
        }
        bad[0] = wasm_global_as_extern(g);
        CHECK(try_instantiate(store, module, bad, 1) == NULL,
              "a global satisfied a function import");
        bad[0] = wasm_func_as_extern(nop);
        CHECK(try_instantiate(store, module, bad, 1) == NULL,
              "a () -> () function satisfied a () -> i32 import");
        check_add_works(&inst, "failed instantiations");
        CHECK_EQ_INT(maybe_calls, 0, "the host import was never called");
        wasm_global_delete(g);
    }

    instance_release(&inst);
    wasm_func_delete(maybe);
    wasm_func_delete(nop);
    wasm_module_delete(module);
    wasm_store_delete(store);
    wasm_engine_delete(engine);
    test_pass();
    return 0;
}
