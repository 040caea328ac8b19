/* RuntimeInitArgs.gc_heap_size (wasm_export.h) bounds each instance's GC
   heap, as in WAMR: a program whose live objects pass it fails with
   "out of memory", while one that only makes garbage runs to its answer,
   the collector freeing as it goes; the instance stays usable after the
   failure. Without the setting the default bound (1 GiB) holds the same
   live objects. */
#include "export_common.h"

static const char *const WAT =
    "(module\n"
    "  (type $bytes (array (mut i8)))\n"
    "  (type $list (struct (field (ref null $list)) (field (ref $bytes))))\n"
    "  ;; `n` arrays of 64 KiB kept alive in a list; returns n.\n"
    "  (func (export \"keep\") (param $n i32) (result i32)\n"
    "    (local $l (ref null $list)) (local $i i32)\n"
    "    (loop $more\n"
    "      (local.set $l (struct.new $list (local.get $l) (array.new_default $bytes (i32.const 65536))))\n"
    "      (br_if $more (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))\n"
    "    (local.get $i))\n"
    "  ;; `n` arrays of 64 KiB, each garbage at once.\n"
    "  (func (export \"churn\") (param $n i32) (result i32)\n"
    "    (local $i i32)\n"
    "    (loop $more\n"
    "      (drop (array.new_default $bytes (i32.const 65536)))\n"
    "      (br_if $more (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))\n"
    "    (local.get $i)))\n";

/* Calls `name` with `n`; whether it returned (with n) or failed. */
static int run(wasm_module_inst_t inst, const char *name, uint32_t n)
{
    wasm_exec_env_t env = wasm_runtime_create_exec_env(inst, 65536);
    wasm_function_inst_t f = wasm_runtime_lookup_function(inst, name);
    uint32_t argv[1] = { n };
    int ok;
    CHECK(env != NULL && f != NULL, "exec env and %s", name);
    ok = wasm_runtime_call_wasm(env, f, 1, argv);
    if (ok)
        CHECK_EQ_INT(argv[0], n, name);
    wasm_runtime_destroy_exec_env(env);
    return ok;
}

int main(int argc, char **argv)
{
    RuntimeInitArgs init;
    wasm_module_t m;
    wasm_module_inst_t inst;

    test_init(argc, argv, "export_gc_heap");
    memset(&init, 0, sizeof init);
    init.mem_alloc_type = Alloc_With_System_Allocator;
    init.gc_heap_size = 8 << 20;
    CHECK(wasm_runtime_full_init(&init), "full_init with an 8 MiB GC heap");
    m = load_wat(WAT);
    inst = instantiate_module(m, 0);

    /* 64 MiB of garbage through 8 MiB: collected as it goes. */
    CHECK(run(inst, "churn", 1024), "churn runs: %s", exception(inst));
    /* 16 MiB kept alive does not fit. */
    CHECK(!run(inst, "keep", 256), "keeping 16 MiB fails");
    CHECK(strstr(exception(inst), "out of memory") != NULL, "exception \"%s\"", exception(inst));
    wasm_runtime_clear_exception(inst);
    /* The same instance still runs what fits. */
    CHECK(run(inst, "keep", 32), "keeping 2 MiB: %s", exception(inst));
    wasm_runtime_deinstantiate(inst);
    wasm_runtime_unload(m);
    wasm_runtime_destroy();

    /* The default bound holds 16 MiB. */
    CHECK(wasm_runtime_init(), "init");
    m = load_wat(WAT);
    inst = instantiate_module(m, 0);
    CHECK(run(inst, "keep", 256), "keeping 16 MiB with the default bound: %s", exception(inst));
    wasm_runtime_deinstantiate(inst);
    wasm_runtime_unload(m);
    wasm_runtime_destroy();
    test_pass();
    return 0;
}
