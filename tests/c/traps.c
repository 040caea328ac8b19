/* Traps: every trap kind wasm code can raise gives a trap whose message is
   exactly "Exception: " + the spec's wording (ABI.md), NUL-terminated and
   counted; frames from wasm_trap_origin / wasm_trap_trace carry the
   function index (imports counted); a host function's trap makes the call
   trap with its message after WAMR's "Exception: "; stack exhaustion gives
   WAMR's "wasm operand stack overflow"; and after every trap the store
   keeps working. */
#include "common.h"

static wasm_store_t *the_store;
static int host_msg_nul = 1;

static wasm_trap_t *fail_cb(const wasm_val_vec_t *args,
                            wasm_val_vec_t *results)
{
    wasm_message_t msg;
    wasm_trap_t *trap;
    (void)args;
    (void)results;
    if (host_msg_nul)
        wasm_name_new_from_string_nt(&msg, "host failure");
    else
        wasm_name_new_from_string(&msg, "host failure");
    trap = wasm_trap_new(the_store, &msg);
    wasm_byte_vec_delete(&msg);
    return trap;
}

static void check_ok(const instance_t *inst, const char *after)
{
    wasm_val_t r[1] = { WASM_INIT_VAL };
    EXPECT_NO_TRAP(call(export_func(inst, "ok"), NULL, 0, r, 1));
    CHECK(r[0].kind == WASM_I32 && r[0].of.i32 == 1,
          "store unusable after %s", after);
}

/* Calls an export with no arguments and a result slot, returns the trap. */
static wasm_trap_t *call_export(const instance_t *inst, const char *name)
{
    wasm_val_t r[1] = { WASM_INIT_VAL };
    wasm_func_t *f = export_func(inst, name);
    return call(f, NULL, 0, r, wasm_func_result_arity(f));
}

static uint32_t origin_index(const wasm_trap_t *trap)
{
    wasm_frame_t *origin = wasm_trap_origin(trap);
    wasm_frame_t *copy;
    uint32_t idx;
    CHECK(origin != NULL, "trap from wasm code has no origin frame");
    idx = wasm_frame_func_index(origin);
    copy = wasm_frame_copy(origin);
    CHECK(copy != NULL, "wasm_frame_copy");
    CHECK(wasm_frame_func_index(copy) == idx &&
              wasm_frame_func_offset(copy) == wasm_frame_func_offset(origin) &&
              wasm_frame_module_offset(copy) ==
                  wasm_frame_module_offset(origin),
          "a frame's copy differs from it");
    wasm_frame_delete(copy);
    wasm_frame_delete(origin);
    return idx;
}

static const struct {
    const char *export;
    const char *message;
    uint32_t func_index;
} kinds[] = {
    { "unreachable", "Exception: unreachable", 2 },
    { "oob_load", "Exception: out of bounds memory access", 3 },
    { "oob_store", "Exception: out of bounds memory access", 4 },
    { "div_zero", "Exception: integer divide by zero", 5 },
    { "rem_zero", "Exception: integer divide by zero", 6 },
    { "overflow", "Exception: integer overflow", 7 },
    { "nan_to_int", "Exception: invalid conversion to integer", 8 },
    { "big_to_int", "Exception: integer overflow", 9 },
    { "sig_mismatch", "Exception: indirect call type mismatch", 10 },
    { "undefined_elem", "Exception: undefined element", 11 },
    { "uninit_elem", "Exception: uninitialized element", 12 },
    { "table_oob", "Exception: out of bounds table access", 13 },
    { "table_fill_oob", "Exception: out of bounds table access", 14 },
    { "memory_fill_oob", "Exception: out of bounds memory access", 15 },
    { "memory_init_oob", "Exception: out of bounds memory access", 16 },
};

int main(int argc, char **argv)
{
    wasm_engine_t *engine;
    wasm_module_t *module;
    wasm_func_t *fail;
    wasm_extern_t *imports[1];
    instance_t inst;
    wasm_trap_t *trap;
    size_t i;

    test_init(argc, argv, "traps");
    engine = wasm_engine_new();
    the_store = wasm_store_new(engine);
    module = compile_module(the_store, "traps");
    {
        wasm_functype_t *ft = functype_of(NULL, 0, NULL, 0);
        fail = wasm_func_new(the_store, ft, fail_cb);
        wasm_functype_delete(ft);
    }
    imports[0] = wasm_func_as_extern(fail);
    inst = instantiate(the_store, module, imports, 1);
    check_ok(&inst, "instantiation");

    /* Every kind, twice over (a trap must not poison the next call). */
    for (i = 0; i < 2 * sizeof kinds / sizeof kinds[0]; i++) {
        size_t k = i % (sizeof kinds / sizeof kinds[0]);
        trap = call_export(&inst, kinds[k].export);
        CHECK(trap != NULL, "%s did not trap", kinds[k].export);
        CHECK_EQ_INT(origin_index(trap), kinds[k].func_index,
                     kinds[k].export);
        EXPECT_TRAP(trap, kinds[k].message);
        check_ok(&inst, kinds[k].export);
    }

    /* Frames of a three-deep chain: innermost first. */
    trap = call_export(&inst, "nested");
    CHECK(trap != NULL, "nested did not trap");
    CHECK_EQ_INT(origin_index(trap), 17, "origin of nested");
    {
        wasm_frame_vec_t trace;
        wasm_trap_trace(trap, &trace);
        CHECK(trace.num_elems >= 3, "trace has %zu frames, expected >= 3",
              trace.num_elems);
        CHECK_EQ_INT(wasm_frame_func_index(trace.data[0]), 17, "frame 0");
        CHECK_EQ_INT(wasm_frame_func_index(trace.data[1]), 18, "frame 1");
        CHECK_EQ_INT(wasm_frame_func_index(trace.data[2]), 19, "frame 2");
        wasm_frame_vec_delete(&trace);
    }
    EXPECT_TRAP(trap, "Exception: unreachable");
    check_ok(&inst, "nested trap");

    /* A trap the host made has no wasm frames: no origin, empty trace. */
    {
        wasm_message_t msg;
        wasm_frame_vec_t trace;
        wasm_name_new_from_string_nt(&msg, "made by the host");
        trap = wasm_trap_new(the_store, &msg);
        wasm_byte_vec_delete(&msg);
        CHECK(trap != NULL, "wasm_trap_new");
        CHECK(wasm_trap_origin(trap) == NULL, "host trap has an origin");
        memset(&trace, 0x5c, sizeof trace);
        wasm_trap_trace(trap, &trace);
        CHECK(trace.num_elems == 0, "host trap trace has %zu frames",
              trace.num_elems);
        wasm_frame_vec_delete(&trace);
        EXPECT_TRAP(trap, "made by the host");
    }

    /* A host function's trap fails the whole call with its message, after
       the "Exception: " prefix WAMR gives it, whether or not the message
       ends in a NUL. */
    for (i = 0; i < 2; i++) {
        host_msg_nul = (int)i == 0;
        trap = call_export(&inst, "host_fail");
        CHECK(trap != NULL, "host_fail did not trap");
        EXPECT_TRAP(trap, "Exception: host failure");
        check_ok(&inst, "host trap");
    }

    /* A client's message comes back as it was given, as in WAMR: a name
       without NUL stays without one (wamr_traps.c covers the rest). */
    {
        wasm_message_t msg, out;
        wasm_name_new_from_string(&msg, "no nul");
        trap = wasm_trap_new(the_store, &msg);
        wasm_byte_vec_delete(&msg);
        wasm_trap_message(trap, &out);
        CHECK(out.size == 6 && out.num_elems == 6
                  && memcmp(out.data, "no nul", 6) == 0,
              "the message's 6 bytes: size %zu", out.size);
        wasm_byte_vec_delete(&out);
        wasm_trap_delete(trap);
    }

    /* Stack exhaustion, several times over: each a clean trap, with WAMR's
       text, and then the stack is whole again (a deep but finite recursion
       works). */
    for (i = 0; i < 3; i++) {
        EXPECT_TRAP(call_export(&inst, "recurse"),
                    "Exception: wasm operand stack overflow");
        check_ok(&inst, "stack exhaustion");
        {
            int32_t depth = 0;
            EXPECT_NO_TRAP(call_i32(export_func(&inst, "depth"), 1000,
                                    &depth));
            CHECK_EQ_INT(depth, 1000, "recursion 1000 deep after overflow");
        }
    }

    instance_release(&inst);
    wasm_func_delete(fail);
    wasm_module_delete(module);
    wasm_store_delete(the_store);
    wasm_engine_delete(engine);
    test_pass();
    return 0;
}
