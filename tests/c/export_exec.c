/* Execution control of wasm_export.h, as WAMR behaves: wasm_runtime_terminate
 * stopping a loop from another thread (and a call that starts after it,
 * until the exception is cleared), the enlarge-error callback for a failing
 * memory.grow executed by wasm, wasm_runtime_set_instruction_count_limit
 * (for modules loaded while the default running mode is Mode_Interp, as in
 * WAMR, whose interpreter alone counts; and with
 * CRANEWASM_INSTRUCTION_METERING=1, in a child process, since the env var is
 * read when the runtime's engine is made), and wasm_runtime_load of a
 * compiled file (wasm_module_serialize's bytes, what `iwasm compile`
 * writes) with the package queries answering AOT for it. */
#include <pthread.h>
#include <sys/wait.h>

#include "export_common.h"

static const char *LOOPS =
    "(module (memory (export \"memory\") 1 2)\n"
    "  (func (export \"forever\") (loop br 0))\n"
    "  (func (export \"seven\") (result i32) (i32.const 7))\n"
    "  (func (export \"grow\") (param i32) (result i32) (memory.grow (local.get 0)))\n"
    "  (func (export \"count\") (param $n i32) (result i32)\n"
    "    (loop $l (local.set $n (i32.sub (local.get $n) (i32.const 1)))\n"
    "      (br_if $l (i32.gt_s (local.get $n) (i32.const 0))))\n"
    "    (local.get $n)))";

static void *terminate_later(void *inst)
{
    usleep(100 * 1000);
    wasm_runtime_terminate((wasm_module_inst_t)inst);
    return NULL;
}

/* Calls export `name` with one i32 argument (ignored when it takes none);
   true when the call succeeded, its first result in *out. */
static bool call1(wasm_module_inst_t inst, const char *name, uint32_t argc, int32_t arg, int32_t *out)
{
    uint32_t cells[1] = { (uint32_t)arg };
    bool ok = wasm_runtime_call_wasm(wasm_runtime_get_exec_env_singleton(inst), wasm_runtime_lookup_function(inst, name),
                                     argc, cells);
    if (out)
        *out = (int32_t)cells[0];
    return ok;
}

static int enlarge_calls;
static uint32_t enlarge_inc, enlarge_index;
static uint64_t enlarge_size;
static enlarge_memory_error_reason_t enlarge_reason;
static wasm_module_inst_t enlarge_inst;
static wasm_exec_env_t enlarge_env;
static void on_enlarge_error(uint32_t inc, uint64_t size, uint32_t index, enlarge_memory_error_reason_t reason,
                             wasm_module_inst_t inst, wasm_exec_env_t env, void *user)
{
    CHECK(user == &enlarge_calls, "the user data");
    enlarge_calls++;
    enlarge_inc = inc;
    enlarge_size = size;
    enlarge_index = index;
    enlarge_reason = reason;
    enlarge_inst = inst;
    enlarge_env = env;
}

static void terminate(void)
{
    wasm_module_t m = load_wat(LOOPS);
    wasm_module_inst_t i = instantiate_module(m, 0);
    pthread_t t;
    double start;
    int32_t r;

    /* A loop without calls stops, from another thread, with WAMR's text. */
    CHECK(pthread_create(&t, NULL, terminate_later, i) == 0, "a thread");
    start = now_ms();
    CHECK(!call1(i, "forever", 0, 0, NULL), "the loop was stopped");
    CHECK(now_ms() - start < 5000, "promptly: %.0f ms", now_ms() - start);
    pthread_join(t, NULL);
    CHECK_EXCEPTION(i, "Exception: terminated by user");
    /* Until the exception is cleared, calls fail (at their start). */
    CHECK(!call1(i, "forever", 0, 0, NULL), "a call after terminate fails");
    CHECK_EXCEPTION(i, "Exception: terminated by user");
    wasm_runtime_clear_exception(i);
    CHECK(call1(i, "seven", 0, 0, &r) && r == 7, "after clearing, calls run: %s", exception(i));

    /* Terminating an idle instance stops its next call... */
    wasm_runtime_terminate(i);
    start = now_ms();
    CHECK(!call1(i, "forever", 0, 0, NULL) && now_ms() - start < 5000, "the next call stops");
    CHECK_EXCEPTION(i, "Exception: terminated by user");
    /* ...unless the exception is cleared first. */
    wasm_runtime_clear_exception(i);
    wasm_runtime_terminate(i);
    wasm_runtime_clear_exception(i);
    CHECK(call1(i, "seven", 0, 0, &r) && r == 7, "a withdrawn termination: %s", exception(i));
    wasm_runtime_terminate(NULL);

    /* memory.grow failing in wasm tells the enlarge-error callback. */
    wasm_runtime_set_enlarge_mem_error_callback(on_enlarge_error, &enlarge_calls);
    CHECK(call1(i, "grow", 1, 5, &r) && r == -1, "past the maximum");
    CHECK(enlarge_calls == 1 && enlarge_inc == 5 && enlarge_size == 65536 && enlarge_index == 0
              && enlarge_reason == MAX_SIZE_REACHED && enlarge_inst == i
              && enlarge_env == wasm_runtime_get_exec_env_singleton(i),
          "WAMR's arguments: inc %u size %llu index %u reason %d", enlarge_inc, (unsigned long long)enlarge_size,
          enlarge_index, (int)enlarge_reason);
    CHECK(call1(i, "grow", 1, 1, &r) && r == 1 && enlarge_calls == 1, "a growth that works is not reported");
    CHECK(!wasm_runtime_enlarge_memory(i, 1) && enlarge_calls == 2, "nor is the API's growth reported twice");
    wasm_runtime_set_enlarge_mem_error_callback(NULL, NULL);
    CHECK(call1(i, "grow", 1, 5, &r) && r == -1 && enlarge_calls == 2, "no callback, no call");

    /* Without metering compiled in, a limit has no effect (silently). */
    wasm_runtime_set_instruction_count_limit(wasm_runtime_get_exec_env_singleton(i), 10);
    CHECK(call1(i, "count", 1, 1000, &r) && r == 0, "no metering: %s", exception(i));
    wasm_runtime_set_instruction_count_limit(NULL, 10);

    wasm_runtime_deinstantiate(i);
    wasm_runtime_unload(m);
}

/* In a child whose runtime counts operators: WAMR's limits. */
static void metering(void)
{
    wasm_module_t m;
    wasm_module_inst_t i;
    wasm_exec_env_t env, other;
    int32_t r;

    setenv("CRANEWASM_INSTRUCTION_METERING", "1", 1);
    CHECK(wasm_runtime_init(), "init");
    m = load_wat(LOOPS);
    i = instantiate_module(m, 0);
    env = wasm_runtime_get_exec_env_singleton(i);
    CHECK(call1(i, "count", 1, 1000, &r) && r == 0, "no limit by default");
    wasm_runtime_set_instruction_count_limit(env, 100);
    CHECK(!call1(i, "count", 1, 1000, &r), "1000 iterations pass 100 operators");
    CHECK_EXCEPTION(i, "Exception: instruction limit exceeded");
    wasm_runtime_clear_exception(i);
    /* Each call gets the limit afresh. */
    CHECK(call1(i, "count", 1, 5, &r) && r == 0, "5 iterations fit: %s", exception(i));
    CHECK(call1(i, "count", 1, 5, &r) && r == 0, "and again: %s", exception(i));
    /* The limit is the exec env's. */
    other = wasm_runtime_create_exec_env(i, 65536);
    CHECK(wasm_runtime_call_wasm(other, wasm_runtime_lookup_function(i, "count"), 1, (uint32_t[]){ 1000 }),
          "another exec env has no limit: %s", exception(i));
    wasm_runtime_destroy_exec_env(other);
    wasm_runtime_set_instruction_count_limit(env, -1);
    CHECK(call1(i, "count", 1, 100000, &r) && r == 0, "-1: no limit");
    wasm_runtime_deinstantiate(i);
    wasm_runtime_unload(m);
    wasm_runtime_destroy();
}

/* Mode_Interp: modules loaded under it count instructions; others do not,
   and cannot be switched to it. */
static void interp_metering(void)
{
    wasm_module_t plain_m, m;
    wasm_module_inst_t plain, i;
    wasm_exec_env_t env;
    int32_t r;

    plain_m = load_wat(LOOPS);
    plain = instantiate_module(plain_m, 0);
    CHECK_EQ_INT(wasm_runtime_get_running_mode(plain), Mode_LLVM_JIT, "loaded under the default mode");
    CHECK(!wasm_runtime_set_running_mode(plain, Mode_Interp), "compiled without counting: no Mode_Interp");
    wasm_runtime_set_instruction_count_limit(wasm_runtime_get_exec_env_singleton(plain), 100);
    CHECK(call1(plain, "count", 1, 1000, &r) && r == 0, "a limit without counting has no effect: %s",
          exception(plain));

    CHECK(wasm_runtime_set_default_running_mode(Mode_Interp), "Mode_Interp as the default");
    m = load_wat(LOOPS);
    i = instantiate_module(m, 0);
    env = wasm_runtime_get_exec_env_singleton(i);
    CHECK_EQ_INT(wasm_runtime_get_running_mode(i), Mode_Interp, "the new instance counts");
    CHECK(call1(i, "count", 1, 1000, &r) && r == 0, "no limit by default: %s", exception(i));
    wasm_runtime_set_instruction_count_limit(env, 100);
    CHECK(!call1(i, "count", 1, 1000, &r), "1000 iterations pass 100 instructions");
    CHECK_EXCEPTION(i, "Exception: instruction limit exceeded");
    wasm_runtime_clear_exception(i);
    CHECK(call1(i, "count", 1, 5, &r) && r == 0, "5 iterations fit: %s", exception(i));
    /* Leaving Mode_Interp drops the limit, as WAMR's JIT modes ignore it. */
    CHECK(wasm_runtime_set_running_mode(i, Mode_LLVM_JIT), "to LLVM JIT");
    CHECK(call1(i, "count", 1, 1000, &r) && r == 0, "no limit in LLVM JIT mode: %s", exception(i));
    CHECK(wasm_runtime_set_running_mode(i, Mode_Interp), "and back");
    CHECK(!call1(i, "count", 1, 1000, &r), "limited again");
    wasm_runtime_clear_exception(i);
    /* The instance loaded before still does not count. */
    CHECK(call1(plain, "count", 1, 1000, &r) && r == 0, "the earlier module is unchanged: %s", exception(plain));
    CHECK(wasm_runtime_set_default_running_mode(Mode_LLVM_JIT), "back to the default mode");

    wasm_runtime_deinstantiate(i);
    wasm_runtime_unload(m);
    wasm_runtime_deinstantiate(plain);
    wasm_runtime_unload(plain_m);
}

static void compiled_file(void)
{
    static const uint8_t aot_header[8] = { 0, 'a', 'o', 't', 6, 0, 0, 0 };
    wasm_engine_t *engine = wasm_engine_new();
    wasm_store_t *store = wasm_store_new(engine);
    wasm_byte_vec_t wasm, compiled;
    wasm_module_t *capi_module;
    wasm_module_t m;
    wasm_module_inst_t i;
    char err[256] = "";
    int32_t r;

    CHECK(cranewasm_wat2wasm(LOOPS, strlen(LOOPS), &wasm), "the WAT parses");
    capi_module = wasm_module_new(store, &wasm);
    CHECK(capi_module != NULL, "wasm_module_new");
    wasm_byte_vec_new_empty(&compiled);
    wasm_module_serialize(capi_module, &compiled);
    wasm_module_delete(capi_module);
    CHECK(compiled.size > 16 && memcmp(compiled.data, "\0cwasm\r\n", 8) == 0, "a compiled file");

    CHECK_EQ_INT(wasm_runtime_get_file_package_type((uint8_t *)compiled.data, (uint32_t)compiled.size),
                 Wasm_Module_AoT, "a compiled file is AOT");
    CHECK_EQ_INT(wasm_runtime_get_file_package_version((uint8_t *)compiled.data, (uint32_t)compiled.size),
                 wasm_runtime_get_current_package_version(Wasm_Module_AoT), "its version is the current one");
    m = wasm_runtime_load((uint8_t *)compiled.data, (uint32_t)compiled.size, err, sizeof err);
    CHECK(m != NULL, "wasm_runtime_load of a compiled file: %s", err);
    CHECK_EQ_INT(wasm_runtime_get_module_package_type(m), Wasm_Module_AoT, "the module is AOT");
    CHECK_EQ_INT(wasm_runtime_get_module_package_version(m), wasm_runtime_get_current_package_version(Wasm_Module_AoT),
                 "its version");
    i = instantiate_module(m, 0);
    CHECK(call1(i, "seven", 0, 0, &r) && r == 7, "it runs: %s", exception(i));
    wasm_runtime_deinstantiate(i);
    wasm_runtime_unload(m);

    /* A damaged one is refused with the reason. */
    compiled.data[compiled.size / 2] ^= 1;
    CHECK(wasm_runtime_load((uint8_t *)compiled.data, (uint32_t)compiled.size, err, sizeof err) == NULL
              && strstr(err, "checksum") != NULL,
          "a damaged file: %s", err);
    /* A truncated one too. */
    CHECK(wasm_runtime_load((uint8_t *)compiled.data, 40, err, sizeof err) == NULL
              && strncmp(err, "WASM module load failed: ", 25) == 0,
          "a truncated file: %s", err);
    /* WAMR's own AOT files are still not loaded. */
    CHECK(wasm_runtime_load((uint8_t *)aot_header, 8, err, sizeof err) == NULL && strstr(err, "AOT") != NULL,
          "a WAMR AOT file: %s", err);

    /* The bytecode's answers are unchanged. */
    m = wasm_runtime_load((uint8_t *)wasm.data, (uint32_t)wasm.size, err, sizeof err);
    CHECK(m != NULL && wasm_runtime_get_module_package_type(m) == Wasm_Module_Bytecode
              && wasm_runtime_get_module_package_version(m) == 1,
          "bytecode");
    wasm_runtime_unload(m);

    wasm_byte_vec_delete(&compiled);
    wasm_byte_vec_delete(&wasm);
    wasm_store_delete(store);
    wasm_engine_delete(engine);
}

int main(int argc, char **argv)
{
    pid_t child;
    int status = 0;

    test_init(argc, argv, "export_exec");
    fflush(NULL);
    child = fork();
    CHECK(child >= 0, "fork");
    if (child == 0) {
        metering();
        fflush(NULL);
        _exit(test_failures ? 1 : 0);
    }
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the metering checks (in a child) failed");

    CHECK(wasm_runtime_init(), "init");
    terminate();
    interp_metering();
    compiled_file();
    wasm_runtime_destroy();
    test_pass();
    return 0;
}
