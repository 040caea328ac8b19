/* Instances: the instantiation arguments (max_memory_pages really
 * limiting memory.grow, the host-managed heap in each of WAMR's
 * placements, InstantiationArgs2 and its setters), instantiation
 * failures, custom data, context keys and their destructors, exceptions,
 * memories, exported globals and tables, and deinstantiation. */
#include "export_common.h"

static const char *GROW =
    "(module (memory (export \"memory\") 1 10)\n"
    "  (func (export \"grow\") (param i32) (result i32) (memory.grow (local.get 0)))\n"
    "  (func (export \"size\") (result i32) (memory.size))\n"
    "  (global (export \"g\") (mut i32) (i32.const 5))\n"
    "  (func (export \"get_g\") (result i32) (global.get 0))\n"
    "  (table (export \"t\") 3 funcref)\n"
    "  (func $seven (result i32) (i32.const 7))\n"
    "  (elem (i32.const 1) $seven))";
static const char *ONE_PAGE = "(module (memory (export \"memory\") 1 1) (func (export \"size\") (result i32) (memory.size)))";
static const char *HEAP_BASE =
    "(module (memory (export \"memory\") 2)\n"
    "  (global $hb (export \"__heap_base\") i32 (i32.const 70000))\n"
    "  (func (export \"hb\") (result i32) (global.get $hb)))";
static const char *OWN_MALLOC =
    "(module (memory (export \"memory\") 1)\n"
    "  (global $next (mut i32) (i32.const 4096)) (global $frees (export \"frees\") (mut i32) (i32.const 0))\n"
    "  (func (export \"malloc\") (param i32) (result i32) (global.get $next)\n"
    "    (global.set $next (i32.add (global.get $next) (local.get 0))))\n"
    "  (func (export \"free\") (param i32) (global.set $frees (i32.add (global.get $frees) (i32.const 1)))))";
static const char *TRAPPING_START = "(module (func $s unreachable) (start $s))";

static int dtor_calls;
static void *dtor_ctx;
static wasm_module_inst_t dtor_inst;
static void dtor(wasm_module_inst_t inst, void *ctx)
{
    if (ctx) {
        dtor_calls++;
        dtor_ctx = ctx;
        dtor_inst = inst;
    }
}

static int enlarge_calls;
static enlarge_memory_error_reason_t enlarge_reason;
static void on_enlarge_error(uint32_t inc, uint64_t size, uint32_t index, enlarge_memory_error_reason_t reason,
                             wasm_module_inst_t inst, wasm_exec_env_t env, void *user)
{
    enlarge_calls++;
    enlarge_reason = reason;
    CHECK(user == &enlarge_calls && inc == 100 && index == 0 && inst != NULL, "the callback's arguments");
}

static int32_t run_i32(wasm_module_inst_t inst, const char *name, int32_t arg, int nargs)
{
    uint32_t cells[1] = { (uint32_t)arg };
    CHECK(wasm_runtime_call_wasm(wasm_runtime_get_exec_env_singleton(inst), wasm_runtime_lookup_function(inst, name),
                                 (uint32_t)nargs, cells),
          "%s: %s", name, exception(inst));
    return (int32_t)cells[0];
}

int main(int argc, char **argv)
{
    wasm_module_t grow, one, hb, own, trapping;
    wasm_module_inst_t i, j;
    InstantiationArgs args1;
    struct InstantiationArgs2 *args2 = NULL;
    char err[256];
    wasm_memory_inst_t mem;
    void *key, *keys[8];
    wasm_global_inst_t g;
    wasm_table_inst_t t, forged;
    uint64_t a, b;
    int k;

    test_init(argc, argv, "export_instance");
    CHECK(wasm_runtime_init(), "init");
    grow = load_wat(GROW);

    /* max_memory_pages is the memory's maximum: memory.grow stops there. */
    memset(&args1, 0, sizeof args1);
    args1.max_memory_pages = 3;
    i = wasm_runtime_instantiate_ex(grow, &args1, err, sizeof err);
    CHECK(i != NULL, "instantiate_ex: %s", err);
    CHECK_EQ_INT(run_i32(i, "grow", 2, 1), 1, "grow by 2 from 1");
    CHECK_EQ_INT(run_i32(i, "grow", 1, 1), -1, "past max_memory_pages");
    mem = wasm_runtime_get_default_memory(i);
    CHECK_EQ_INT(wasm_memory_get_max_page_count(mem), 3, "the memory's maximum");
    CHECK_EQ_INT(wasm_memory_get_cur_page_count(mem), 3, "its size");
    wasm_runtime_set_enlarge_mem_error_callback(on_enlarge_error, &enlarge_calls);
    CHECK(!wasm_memory_enlarge(mem, 100), "enlarging past the maximum");
    CHECK(enlarge_calls == 1 && enlarge_reason == MAX_SIZE_REACHED, "the callback was told why");
    wasm_runtime_set_enlarge_mem_error_callback(NULL, NULL);
    wasm_runtime_deinstantiate(i);
    args1.max_memory_pages = 20;
    i = wasm_runtime_instantiate_ex(grow, &args1, err, sizeof err);
    CHECK_EQ_INT(wasm_memory_get_max_page_count(wasm_runtime_get_default_memory(i)), 10,
                 "never above the declared maximum");
    wasm_runtime_deinstantiate(i);
    CHECK(wasm_runtime_instantiate_ex(grow, NULL, err, sizeof err) == NULL, "NULL arguments");

    /* InstantiationArgs2. */
    CHECK(!wasm_runtime_instantiation_args_create(NULL), "NULL out pointer");
    CHECK(wasm_runtime_instantiation_args_create(&args2) && args2, "create");
    wasm_runtime_instantiation_args_set_default_stack_size(args2, 16384);
    wasm_runtime_instantiation_args_set_host_managed_heap_size(args2, 4096);
    wasm_runtime_instantiation_args_set_max_memory_pages(args2, 2);
    wasm_runtime_instantiation_args_set_custom_data(args2, &k);
    i = wasm_runtime_instantiate_ex2(grow, args2, err, sizeof err);
    CHECK(i != NULL, "instantiate_ex2: %s", err);
    wasm_runtime_instantiation_args_destroy(args2);
    wasm_runtime_instantiation_args_destroy(args2);
    CHECK(wasm_runtime_get_custom_data(i) == &k, "custom data from the arguments");
    /* The heap took a page beyond the cap, which grows with it (as in WAMR). */
    CHECK_EQ_INT(run_i32(i, "size", 0, 0), 2, "one page and the heap's");
    a = wasm_runtime_module_malloc(i, 100, NULL);
    CHECK(a >= 65536 && a < 131072, "the heap is in the new page: %llu", (unsigned long long)a);
    CHECK_EQ_INT(run_i32(i, "grow", 1, 1), 2, "one more page to the new maximum");
    CHECK_EQ_INT(run_i32(i, "grow", 1, 1), -1, "and no more");
    wasm_runtime_set_custom_data(i, NULL);
    CHECK(wasm_runtime_get_custom_data(i) == NULL, "custom data changed");

    /* Context keys: 7 for the client (WASI has the first, as in WAMR). */
    key = wasm_runtime_create_context_key(dtor);
    CHECK(key != NULL, "a key");
    wasm_runtime_set_context(i, key, &a);
    CHECK(wasm_runtime_get_context(i, key) == &a, "the context");
    wasm_runtime_set_context_spread(i, key, &b);
    CHECK(wasm_runtime_get_context(i, key) == &b, "spread (one thread)");
    CHECK(wasm_runtime_get_context(i, (void *)1) == NULL && wasm_runtime_get_context(i, (void *)99) == NULL,
          "WASI's slot and bad keys");
    for (k = 0; k < 6; k++)
        CHECK((keys[k] = wasm_runtime_create_context_key(NULL)) != NULL, "key %d", k);
    CHECK(wasm_runtime_create_context_key(NULL) == NULL, "no eighth key");
    for (k = 0; k < 6; k++)
        wasm_runtime_destroy_context_key(keys[k]);

    /* Exceptions. */
    CHECK(wasm_runtime_get_exception(i) == NULL, "none yet");
    wasm_runtime_set_exception(i, "my failure");
    CHECK_EXCEPTION(i, "Exception: my failure");
    wasm_runtime_clear_exception(i);
    wasm_runtime_terminate(i);
    CHECK_EXCEPTION(i, "Exception: terminated by user");
    wasm_runtime_set_exception(i, NULL);
    CHECK(wasm_runtime_get_exception(i) == NULL, "set NULL clears");
    CHECK(wasm_runtime_is_bounds_checks_enabled(i), "bounds checks on");
    wasm_runtime_set_bounds_checks(i, false);
    CHECK(!wasm_runtime_is_bounds_checks_enabled(i), "the flag is kept");
    CHECK(wasm_runtime_get_module(i) == grow, "get_module");

    /* Memories, globals and tables of an instance. */
    CHECK(wasm_runtime_lookup_memory(i, "memory") == wasm_runtime_get_default_memory(i)
              && wasm_runtime_get_memory(i, 0) == wasm_runtime_get_default_memory(i),
          "one handle per memory");
    CHECK(wasm_runtime_lookup_memory(i, "nope") == NULL && wasm_runtime_get_memory(i, 1) == NULL, "no such memory");
    mem = wasm_runtime_get_default_memory(i);
    CHECK(wasm_memory_get_bytes_per_page(mem) == 65536 && !wasm_memory_get_shared(mem), "page size, not shared");
    CHECK(wasm_memory_get_base_address(mem) == wasm_runtime_addr_app_to_native(i, 0), "base address");
    CHECK(wasm_runtime_enlarge_memory(i, 0) && !wasm_runtime_enlarge_memory(i, 1), "enlarge at the maximum");
    CHECK(wasm_runtime_get_export_global_inst(i, "g", &g), "export global");
    CHECK(g.kind == WASM_I32 && g.is_mutable && *(int32_t *)g.global_data == 5, "its value");
    *(int32_t *)g.global_data = 11;
    CHECK_EQ_INT(run_i32(i, "get_g", 0, 0), 11, "written through global_data");
    CHECK(!wasm_runtime_get_export_global_inst(i, "memory", &g), "not a global");
    CHECK(wasm_runtime_get_export_table_inst(i, "t", &t), "export table");
    CHECK(t.elem_kind == WASM_FUNCREF && t.cur_size == 3 && t.max_size == 1024, "its type");
    {
        wasm_function_inst_t f = wasm_table_get_func_inst(i, &t, 1);
        uint32_t cells[1];
        CHECK(f != NULL, "element 1");
        CHECK(wasm_runtime_call_wasm(wasm_runtime_get_exec_env_singleton(i), f, 0, cells) && cells[0] == 7,
              "call the element");
        CHECK(wasm_table_get_func_inst(i, &t, 0) == NULL && wasm_table_get_func_inst(i, &t, 3) == NULL,
              "null and out of range");
    }
    forged = t;
    forged.elems = &forged;
    CHECK(wasm_table_get_func_inst(i, &forged, 1) == NULL, "a table that is not the instance's");

    /* Deinstantiation runs the destructors with a live instance. */
    j = i;
    wasm_runtime_deinstantiate(i);
    CHECK(dtor_calls == 1 && dtor_ctx == &b && dtor_inst == j, "the destructor ran");
    wasm_runtime_deinstantiate(i);
    CHECK(wasm_runtime_get_module(i) == NULL && wasm_runtime_get_custom_data(i) == NULL, "a dead instance");
    wasm_runtime_destroy_context_key(key);

    /* A one-page, at-most-one-page memory: the heap where WAMR's is, at 64 KiB. */
    one = load_wat(ONE_PAGE);
    i = instantiate_module(one, 8192);
    a = wasm_runtime_module_malloc(i, 16, NULL);
    CHECK(a >= 65536 && a < 65536 + 8192, "the heap at 64 KiB: %llu", (unsigned long long)a);
    /* Exhaustion: the heap's 8 KiB run out. */
    for (k = 0; k < 1000 && wasm_runtime_module_malloc(i, 512, NULL); k++)
        ;
    CHECK(k > 0 && k < 16, "exhaustion after %d blocks of 512", k);
    wasm_runtime_module_free(i, a);
    CHECK(wasm_runtime_module_malloc(i, 16, NULL) == a, "a freed block is reused");
    wasm_runtime_deinstantiate(i);
    wasm_runtime_unload(one);

    /* __heap_base in the initial memory: the heap goes there and it moves up. */
    hb = load_wat(HEAP_BASE);
    i = instantiate_module(hb, 4096);
    a = wasm_runtime_module_malloc(i, 8, NULL);
    CHECK(a >= 70000 && a < 70000 + 4096, "the heap at __heap_base: %llu", (unsigned long long)a);
    CHECK(run_i32(i, "hb", 0, 0) >= 70000 + 4096, "__heap_base moved past the heap: %d", run_i32(i, "hb", 0, 0));
    wasm_runtime_deinstantiate(i);
    wasm_runtime_unload(hb);

    /* The module's own malloc and free serve module_malloc. */
    own = load_wat(OWN_MALLOC);
    i = instantiate_module(own, 8192);
    CHECK_EQ_INT(wasm_memory_get_max_page_count(wasm_runtime_get_default_memory(i)), 65535,
                 "no declared maximum: 64 KiB short of 4 GiB, where growth stops");
    a = wasm_runtime_module_malloc(i, 10, NULL);
    b = wasm_runtime_module_malloc(i, 10, NULL);
    CHECK(a == 4096 && b == 4106, "the module's malloc: %llu %llu", (unsigned long long)a, (unsigned long long)b);
    wasm_runtime_module_free(i, a);
    CHECK(wasm_runtime_get_export_global_inst(i, "frees", &g) && *(int32_t *)g.global_data == 1,
          "the module's free was called");
    wasm_runtime_module_free(i, 1u << 20);
    CHECK(*(int32_t *)g.global_data == 1, "an address past memory is not handed to free");
    wasm_runtime_deinstantiate(i);
    wasm_runtime_unload(own);

    /* A start function that traps: WAMR's error text. */
    trapping = load_wat(TRAPPING_START);
    CHECK(wasm_runtime_instantiate(trapping, 65536, 0, err, sizeof err) == NULL
              && strcmp(err, "Exception: unreachable") == 0,
          "a trapping start function: %s", err);
    wasm_runtime_unload(trapping);

    wasm_runtime_unload(grow);
    wasm_runtime_destroy();
    test_pass();
    return 0;
}
