/* The real programs' runner, built once per runtime, each through its own
 * C API with its own WASI (benches/compare.sh, the NAME:compile and
 * NAME:run rows):
 *
 *   -DABI_WAMR      WAMR's wasm_export.h, linked with our libiwasm.so: the
 *                   API WAMR's own iwasm runs programs with
 *                   (wasm_runtime_load, wasm_runtime_set_wasi_args_ex,
 *                   wasm_runtime_instantiate, wasm_application_execute_main)
 *   -DABI_WASMTIME  wasmtime's C API (wasmtime_module_new, wasi_config_t,
 *                   wasmtime_linker_define_wasi, wasmtime_linker_instantiate,
 *                   _start through wasmtime_func_call), declared in
 *                   abi_wasmtime.h, linked with libwasmtime.so
 *
 *   program NAME FILE.wasm REPS
 *
 * After one untimed compile and run, REPS times: compile the module
 * (NAME:compile), and instantiate it with WASI (argv = NAME, stdout
 * captured), run _start to its exit and delete the instance (NAME:run),
 * as a process would from start to exit. The program prints one
 * integer on stdout: that is the check value, and a run that prints
 * anything else, or exits with a status other than 0, fails. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "timing.h"

#if defined(ABI_WAMR)
#include "wasm_export.h"
#elif defined(ABI_WASMTIME)
#include "abi_wasmtime.h"
#else
#error "define ABI_WAMR or ABI_WASMTIME"
#endif

static const char *name;
static char out_path[] = "/tmp/bench-program-XXXXXX";
static int out_fd = -1;

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "program %s: %s%s%s\n", name, what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

/* What the program printed on stdout (its start), as each runtime hands
   it over: ours through the file out_fd, wasmtime's through a callback. */
static char printed[64];
static size_t printed_len;

/* The integer the program printed. */
static unsigned long long printed_check(void)
{
    char buf[64] = "";
    size_t n = printed_len;
    char *end;
    unsigned long long v;
    if (n == 0)
        fail("printed nothing", NULL);
    memcpy(buf, printed, n);
    buf[n] = 0;
    v = strtoull(buf, &end, 10);
    if (end == buf || (*end != '\n' && *end != 0)) {
        fprintf(stderr, "program %s: printed %zu bytes:", name, n);
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, " %02x", (unsigned char)buf[i]);
        fail("\nthat is not an integer", NULL);
    }
    return v;
}

#if defined(ABI_WAMR)

typedef wasm_module_t module_t;

static void runtime_init(void)
{
    if (!wasm_runtime_init())
        fail("wasm_runtime_init failed", NULL);
}

static module_t compile(uint8_t *bytes, uint32_t size)
{
    char err[256] = "";
    module_t m = wasm_runtime_load(bytes, size, err, sizeof err);
    if (!m)
        fail("load", err);
    return m;
}

static void module_delete(module_t m)
{
    wasm_runtime_unload(m);
}

/* Instantiates with WASI (stdout to out_fd) and runs main: what WAMR's
   iwasm does for a command. */
static void run(module_t m)
{
    char err[256] = "";
    char *argv[1] = { (char *)name };
    wasm_module_inst_t inst;
    /* The guest writes at the descriptor's offset: back to the start. */
    if (ftruncate(out_fd, 0) != 0 || lseek(out_fd, 0, SEEK_SET) != 0)
        fail("truncate the output", NULL);
    wasm_runtime_set_wasi_args_ex(m, NULL, 0, NULL, 0, NULL, 0, argv, 1, -1, out_fd, 2);
    inst = wasm_runtime_instantiate(m, 64 * 1024, 0, err, sizeof err);
    if (!inst)
        fail("instantiate", err);
    if (!wasm_application_execute_main(inst, 1, argv))
        fail("exception", wasm_runtime_get_exception(inst));
    if (wasm_runtime_get_wasi_exit_code(inst) != 0)
        fail("exit status not 0", NULL);
    wasm_runtime_deinstantiate(inst);
    ssize_t n = pread(out_fd, printed, sizeof printed - 1, 0);
    printed_len = n > 0 ? (size_t)n : 0;
}

#else /* ABI_WASMTIME */

typedef wasmtime_module_t *module_t;
static wasm_engine_t *engine;
static wasmtime_linker_t *linker;

static void check_error(wasmtime_error_t *error, const char *what)
{
    wasm_name_t message;
    int status;
    if (!error)
        return;
    if (wasmtime_error_exit_status(error, &status)) {
        wasmtime_error_delete(error);
        if (status != 0)
            fail("exit status not 0", NULL);
        return;
    }
    wasmtime_error_message(error, &message);
    fprintf(stderr, "program %s: %s: %.*s\n", name, what, (int)message.size, message.data);
    exit(1);
}

static void check_trap(wasm_trap_t *trap, const char *what)
{
    wasm_message_t message;
    if (!trap)
        return;
    wasm_trap_message(trap, &message);
    fprintf(stderr, "program %s: %s trapped: %.*s\n", name, what, (int)message.size, message.data);
    exit(1);
}

static void runtime_init(void)
{
    /* WASMTIME_PROFILE=perfmap or jitdump, as our CRANEWASM_PROFILE, to set
     * the two beside each other in perf (wasmtime's C API reads no
     * environment variable for it). */
    const char *profile = getenv("WASMTIME_PROFILE");
    int jitdump = profile && strcmp(profile, "jitdump") == 0;
    if (jitdump || (profile && strcmp(profile, "perfmap") == 0)) {
        wasm_config_t *config = wasm_config_new();
        wasmtime_config_profiler_set(config, jitdump ? WASMTIME_PROFILING_STRATEGY_JITDUMP
                                                     : WASMTIME_PROFILING_STRATEGY_PERFMAP);
        engine = wasm_engine_new_with_config(config);
    } else {
        engine = wasm_engine_new();
    }
    linker = wasmtime_linker_new(engine);
    check_error(wasmtime_linker_define_wasi(linker), "define WASI");
}

static module_t compile(uint8_t *bytes, uint32_t size)
{
    module_t m = NULL;
    check_error(wasmtime_module_new(engine, bytes, size, &m), "compile");
    return m;
}

static void module_delete(module_t m)
{
    wasmtime_module_delete(m);
}

/* wasmtime's stdout stream: the guest's writes, handed over as they
   come. */
static ptrdiff_t on_stdout(void *data, const unsigned char *buf, size_t len)
{
    (void)data;
    size_t room = sizeof printed - 1 - printed_len, n = len < room ? len : room;
    memcpy(printed + printed_len, buf, n);
    printed_len += n;
    return (ptrdiff_t)len;
}

static void run(module_t m)
{
    wasmtime_store_t *store = wasmtime_store_new(engine, NULL, NULL);
    wasmtime_context_t *context = wasmtime_store_context(store);
    wasi_config_t *wasi = wasi_config_new();
    const char *argv[1] = { name };
    wasmtime_instance_t instance;
    wasmtime_extern_t start;
    wasm_trap_t *trap = NULL;
    if (!wasi_config_set_argv(wasi, 1, argv))
        fail("WASI configuration", NULL);
    printed_len = 0;
    wasi_config_set_stdout_custom(wasi, on_stdout, NULL, NULL);
    wasi_config_inherit_stderr(wasi);
    check_error(wasmtime_context_set_wasi(context, wasi), "set WASI");
    check_error(wasmtime_linker_instantiate(linker, context, m, &instance, &trap), "instantiate");
    check_trap(trap, "instantiation");
    if (!wasmtime_instance_export_get(context, &instance, "_start", 6, &start) || start.kind != WASMTIME_EXTERN_FUNC)
        fail("no _start function", NULL);
    check_error(wasmtime_func_call(context, &start.of.func, NULL, 0, NULL, 0, &trap), "_start");
    check_trap(trap, "_start");
    wasmtime_store_delete(store);
}

#endif

int main(int argc, char **argv)
{
    FILE *file;
    long size;
    uint8_t *bytes;
    int reps;
    double compile_ms[MAX_REPS], run_ms[MAX_REPS];
    unsigned long long first;
    module_t m;

    if (argc != 4) {
        fprintf(stderr, "usage: %s NAME FILE.wasm REPS\n", argv[0]);
        return 2;
    }
    name = argv[1];
    reps = atoi(argv[3]);
    if (reps < 1 || reps > MAX_REPS)
        fail("REPS must be 1..64", argv[3]);
    file = fopen(argv[2], "rb");
    if (!file)
        fail("cannot open", argv[2]);
    fseek(file, 0, SEEK_END);
    size = ftell(file);
    fseek(file, 0, SEEK_SET);
    bytes = malloc((size_t)size);
    if (!bytes || fread(bytes, 1, (size_t)size, file) != (size_t)size)
        fail("cannot read", argv[2]);
    fclose(file);
    out_fd = mkstemp(out_path);
    if (out_fd < 0)
        fail("mkstemp", NULL);
    runtime_init();

    /* Untimed warm-up of both steps. */
    m = compile(bytes, (uint32_t)size);
    run(m);
    first = printed_check();
    module_delete(m);
    for (int r = 0; r < reps; r++) {
        double t0 = now_seconds();
        m = compile(bytes, (uint32_t)size);
        compile_ms[r] = (now_seconds() - t0) * 1e3;
        t0 = now_seconds();
        run(m);
        run_ms[r] = (now_seconds() - t0) * 1e3;
        if (printed_check() != first)
            fail("the check value changed between runs", NULL);
        module_delete(m);
    }
    close(out_fd);
    unlink(out_path);
    char case_name[128];
    snprintf(case_name, sizeof case_name, "%s:compile", name);
    REPORT(case_name, median(compile_ms, reps), "ms", (unsigned long long)size);
    snprintf(case_name, sizeof case_name, "%s:run", name);
    REPORT(case_name, median(run_ms, reps), "ms", first);
    free(bytes);
    return 0;
}
