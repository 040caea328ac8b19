/* The functions WAMR's clients link that its headers do not declare
 * (issue 31 #2; capi/README.md, "Functions outside the headers"): this
 * program declares them itself, as those clients do, with WAMR's
 * prototypes, and calls each; capi/tests/symbols.rs checks the list is
 * exported and declared in no header.
 *
 * Recorded from a run of WAMR 2.4.3 (product-mini build, see
 * export_wamr.h), whose libiwasm exports them all: each result below; the
 * thread of os_thread_create may call into wasm without
 * wasm_runtime_init_thread_env (its wrapper initialises the thread's
 * signal environment); bh_log writes "[HH:MM:SS:mmm - THREAD]: " and, for
 * a file, "FILE, line N, " before the message, on stdout, if its level is
 * within the verbose level. */
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>

#include "export_wamr.h"
#include "export_wamr_capture.h"

/* WAMR's prototypes: core/shared/utils/bh_log.h, bh_common.h and
   core/shared/platform/include/platform_api_{vmcore,extension}.h, with
   korp_tid = pthread_t and os_file_handle = int on Linux. */
void bh_log_set_verbose_level(uint32_t level);
void bh_log(int log_level, const char *file, int line, const char *fmt, ...);
int b_memcpy_s(void *s1, unsigned int s1max, const void *s2, unsigned int n);
void *os_mmap(void *hint, size_t size, int prot, int flags, int file);
void os_munmap(void *addr, size_t size);
int os_thread_create(pthread_t *tid, void *(*start)(void *), void *arg, unsigned int stack_size);
int os_thread_join(pthread_t thread, void **value_ptr);
int os_usleep(uint32_t usec);
uint64_t os_time_get_boot_us(void);
uint8_t *os_thread_get_stack_boundary(void);

static wasm_module_inst_t inst;
static int thread_result;

static void *thread_body(void *arg)
{
    wasm_exec_env_t env = wasm_runtime_spawn_exec_env(wasm_runtime_get_exec_env_singleton(inst));
    uint32_t cells[1] = { 0 };
    int local;
    CHECK(env != NULL, "spawn_exec_env");
    thread_result = wasm_runtime_call_wasm(env, func(wasm_runtime_get_module_inst(env), "answer"), 0, cells)
                    && cells[0] == 42 && (uintptr_t)os_thread_get_stack_boundary() < (uintptr_t)&local;
    wasm_runtime_destroy_spawned_exec_env(env);
    return arg; /* dropped: os_thread_join gives NULL */
}

int main(int argc, char **argv)
{
    char dst[8];
    uint8_t *p;
    uint64_t t0, t1;
    pthread_t tid;
    void *ret = (void *)1;
    const char *out;
    int local;
    wasm_module_t m;

    test_init(argc, argv, "export_wamr_undeclared");
    CHECK(wasm_runtime_init(), "wasm_runtime_init");

    /* b_memcpy_s: what bh_memcpy_s calls. */
    CHECK_EQ_INT(b_memcpy_s(dst, sizeof dst, "abcd", 5), 0, "a copy that fits");
    CHECK(strcmp(dst, "abcd") == 0, "copied");
    memset(dst, 'x', sizeof dst);
    CHECK_EQ_INT(b_memcpy_s(dst, 4, "abcdefgh", 8), -1, "too long for the destination");
    CHECK(dst[0] == 0 && dst[3] == 0 && dst[4] == 'x', "the destination's s1max bytes zeroed, no more");
    CHECK_EQ_INT(b_memcpy_s(NULL, 4, "a", 1), -1, "a NULL destination");
    CHECK_EQ_INT(b_memcpy_s(dst, 4, NULL, 1), -1, "a NULL source");
    CHECK_EQ_INT(b_memcpy_s(NULL, 0, NULL, 0), 0, "nothing to copy");

    /* os_mmap (MMAP_PROT_READ | MMAP_PROT_WRITE, no flags, no file) and
       os_munmap: whole pages. */
    p = os_mmap(NULL, 10000, 1 | 2, 0, -1);
    CHECK(p != NULL && ((uintptr_t)p & 4095) == 0, "os_mmap");
    p[0] = 1;
    p[12287] = 2; /* rounded up to three pages */
    CHECK(p[0] == 1 && p[12287] == 2 && p[5000] == 0, "readable, writable, zeroed");
    os_munmap(p, 10000);
    os_munmap(NULL, 4096);

    /* os_usleep, os_time_get_boot_us. */
    t0 = os_time_get_boot_us();
    CHECK_EQ_INT(os_usleep(2000), 0, "os_usleep");
    t1 = os_time_get_boot_us();
    CHECK(t0 > 0 && t1 >= t0 + 2000, "the monotonic clock in microseconds: %llu then %llu", (unsigned long long)t0,
          (unsigned long long)t1);

    /* os_thread_get_stack_boundary: below the stack in use. */
    CHECK((uintptr_t)os_thread_get_stack_boundary() < (uintptr_t)&local, "the stack's end lies below");

    /* os_thread_create, os_thread_join: the thread calls into wasm. */
    m = load("export_wamr_answer");
    inst = new_instance(m, 0);
    CHECK_EQ_INT(os_thread_create(&tid, thread_body, NULL, 1 << 20), 0, "os_thread_create");
    CHECK_EQ_INT(os_thread_join(tid, &ret), 0, "os_thread_join");
    CHECK(thread_result, "the thread called wasm without wasm_runtime_init_thread_env");
    CHECK(ret == NULL, "the thread's value is NULL");
    wasm_runtime_deinstantiate(inst);
    unload(m);

    /* bh_log: WAMR's LOG_WARNING and LOG_DEBUG (BH_LOG_LEVEL_WARNING 2,
       BH_LOG_LEVEL_DEBUG 3), at the default verbose level 2. */
    capture_start();
    bh_log(2, NULL, 0, "warning: %s %d", "hello", 42);
    bh_log(3, "f.c", 7, "debug %d", 1);
    bh_log_set_verbose_level(3);
    bh_log(3, "f.c", 7, "debug %d", 2);
    /* Past the registers: doubles and more integers than fit in them go
       on the stack, where a va_list must find them in order. */
    bh_log(2, NULL, 0, "many %d %d %d %d %d %d %.2f %.1f %s %lld", 1, 2, 3, 4, 5, 6, 1.25, -2.5,
           "end", 1234567890123LL);
    bh_log_set_verbose_level(2);
    out = capture_stop();
    CHECK(strstr(out, "]: many 1 2 3 4 5 6 1.25 -2.5 end 1234567890123\n") != NULL,
          "bh_log's variable arguments, on the stack too: \"%s\"", out);
    CHECK(out[0] == '[' && strstr(out, "]: warning: hello 42\n") != NULL, "the warning, after WAMR's prefix: \"%s\"", out);
    CHECK(strstr(out, "debug 1") == NULL, "the debug line is not within level 2");
    CHECK(strstr(out, "]: f.c, line 7, debug 2\n") != NULL, "at level 3 it is, with its file and line: \"%s\"", out);

    wasm_runtime_destroy();
    test_pass();
    return 0;
}
