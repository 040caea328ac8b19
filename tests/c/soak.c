/* Soak: long runs through the C API must not grow memory.
 *
 * 1. One million wasm_func_call()s of an export that calls a host callback
 *    (wasm -> host -> wasm), in one store.
 * 2. 4 threads, each with its own long-lived store, 10,000 rounds each of
 *    instantiate + two calls + delete (a module compiled by the thread or
 *    obtained from a shared one). Instances deleted by the client must be
 *    freed then, not when the store goes: each holds a memory reservation.
 *
 * Growth is measured after a warm-up: resident memory (VmRSS) within a
 * small slack, and the number of memory mappings (a leaked reservation is
 * a mapping). CAPI_SOAK_DIVISOR=N divides the counts (run.sh sets 100
 * under valgrind, where the full run would take an hour, and where
 * valgrind's exact leak check stands in for the RSS bound). */
#include "common.h"
#include <pthread.h>

#define RSS_SLACK_KB (8 * 1024)
#define MAPPINGS_SLACK 64

static long divisor = 1;
static wasm_engine_t *engine;
static wasm_shared_module_t *shared;

static long status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t n = strlen(key);
    CHECK(f != NULL, "open /proc/self/status");
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0)
            v = atol(line + n);
    fclose(f);
    return v;
}

static long mappings(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    long n = 0;
    int c;
    CHECK(f != NULL, "open /proc/self/maps");
    while ((c = fgetc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

static void calls_phase(void)
{
    wasm_store_t *store = wasm_store_new(engine);
    wasm_module_t *m = compile_module(store, "counter");
    int ticks = 0;
    wasm_func_t *tick = counter_tick(store, &ticks);
    wasm_extern_t *imports[1] = { wasm_func_as_extern(tick) };
    instance_t inst = instantiate(store, m, imports, 1);
    wasm_func_t *bump = export_func(&inst, "bump");
    long total = 1000000 / divisor, warm = total / 10, i, rss0 = 0;
    for (i = 0; i < total; i++) {
        wasm_val_t a[1] = { WASM_I32_VAL((int32_t)(i & 0xffff)) };
        wasm_val_t r[1] = { WASM_INIT_VAL };
        wasm_trap_t *t = call(bump, a, 1, r, 1);
        if (t || r[0].of.i32 != 2 * (int32_t)(i & 0xffff) + (int32_t)(i + 1)) {
            EXPECT_NO_TRAP(t);
            CHECK(0, "call %ld returned %d", i, r[0].of.i32);
        }
        if (i == warm)
            rss0 = status_kb("VmRSS:");
    }
    CHECK_EQ_INT(ticks, total, "host callback calls");
    {
        long grown = status_kb("VmRSS:") - rss0;
        printf("calls: %ld calls through a host callback, RSS grew %ld KiB "
               "after warm-up\n", total, grown);
        CHECK(divisor > 1 || grown < RSS_SLACK_KB,
              "RSS grew %ld KiB over %ld calls", grown, total - warm);
    }
    instance_release(&inst);
    wasm_func_delete(tick);
    wasm_module_delete(m);
    wasm_store_delete(store);
}

static void *worker(void *arg)
{
    long id = (long)arg, rounds = 10000 / divisor, r;
    wasm_store_t *store = wasm_store_new(engine);
    wasm_module_t *m = id % 2 ? wasm_module_obtain(store, shared)
                              : compile_module(store, "counter");
    int ticks = 0;
    wasm_func_t *tick = counter_tick(store, &ticks);
    CHECK(m != NULL, "thread %ld: module", id);
    for (r = 0; r < rounds; r++) {
        wasm_extern_t *imports[1] = { wasm_func_as_extern(tick) };
        instance_t inst = instantiate(store, m, imports, 1);
        int32_t out = 0;
        EXPECT_NO_TRAP(call_i32(export_func(&inst, "bump"), (int32_t)r, &out));
        CHECK_EQ_INT(out, 2 * (int32_t)r + 1, "fresh instance state");
        EXPECT_NO_TRAP(call_i32(export_func(&inst, "square"), 7, &out));
        CHECK_EQ_INT(out, 49, "square");
        instance_release(&inst);
    }
    CHECK_EQ_INT(ticks, rounds, "tick calls");
    wasm_func_delete(tick);
    wasm_module_delete(m);
    wasm_store_delete(store);
    return NULL;
}

static void rounds_phase(void)
{
    pthread_t th[4];
    long i, rss0, maps0;
    wasm_store_t *s = wasm_store_new(engine);
    wasm_module_t *m = compile_module(s, "counter");
    shared = wasm_module_share(m);
    CHECK(shared != NULL, "wasm_module_share");
    /* Warm-up: one round per thread's worth of pools and caches. */
    {
        long saved = divisor;
        divisor = 10000;
        for (i = 0; i < 4; i++)
            worker((void *)i);
        divisor = saved;
    }
    rss0 = status_kb("VmRSS:");
    maps0 = mappings();
    for (i = 0; i < 4; i++)
        CHECK(pthread_create(&th[i], NULL, worker, (void *)i) == 0,
              "pthread_create");
    for (i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    {
        long grown = status_kb("VmRSS:") - rss0, maps = mappings() - maps0;
        printf("rounds: 4 threads x %ld instantiate/call/delete rounds, RSS "
               "grew %ld KiB, mappings grew by %ld\n", 10000 / divisor, grown,
               maps);
        /* Under valgrind (divisor > 1) resident memory mostly measures
           valgrind's own translation caches; its exact leak check replaces
           the RSS bound there. */
        CHECK(divisor > 1 || grown < RSS_SLACK_KB, "RSS grew %ld KiB", grown);
        CHECK(maps < MAPPINGS_SLACK, "%ld more mappings", maps);
    }
    wasm_shared_module_delete(shared);
    wasm_module_delete(m);
    wasm_store_delete(s);
}

int main(int argc, char **argv)
{
    const char *d = getenv("CAPI_SOAK_DIVISOR");
    test_init(argc, argv, "soak");
    if (d && atol(d) > 0)
        divisor = atol(d);
    engine = wasm_engine_new();
    calls_phase();
    rounds_phase();
    wasm_engine_delete(engine);
    test_pass();
    return 0;
}
