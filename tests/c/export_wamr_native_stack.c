/* Native stack limits as WAMR's (issue 30 #4), on WAMR's
 * native-stack-overflow sample made a self-checking test: a host consumes
 * its stack down to S bytes above the stack's end, then calls back into
 * wasm, which either recurses (test1) or calls a native that needs 6 KiB
 * (test2); a marker at the end of the stack plus WAMR's 3 guard pages
 * (12 KiB) must survive every call.
 *
 * From WAMR's source (x86-64 Linux, hardware bound checks, its default):
 * os_thread_get_stack_boundary is the stack's lowest address past the C
 * library's guard; 3 guard pages above it are WAMR's; every call starts
 * with wasm_runtime_detect_native_stack_overflow, which wants 3 KiB
 * (WASM_STACK_GUARD_SIZE) above the guard pages, "native stack overflow"
 * otherwise; wasm_runtime_detect_native_stack_overflow_size(n) wants n
 * bytes above them. Recorded from a run of the sample on WAMR 2.4.3 (its
 * CMake build, classic interpreter, the exec env stack of 64 KiB used
 * here): test1 fails with "native stack overflow" below S = 15840 and
 * runs from there; test2 runs from S = 19936 (this test, whose host
 * frames differ, against product-mini's classic interpreter: 16640 and
 * 20224); the marker survived there
 * (not in every WAMR build: product-mini's classic interpreter, reached
 * with this test's host frames, overwrites it from a call with 15616
 * bytes left, which its check lets in; ours keeps it in every case, and
 * the check is ours only).
 *
 * OURS: compiled frames and the call path are larger than WAMR's
 * interpreter's, so the same calls run from a little more stack left
 * (src/runtime/vm/stack.rs measures what a call needs): test1 from about
 * 18.4 KiB, test2 from about 21 KiB here (the program prints where);
 * checked with 1 KiB to spare.
 * In between, ours refuses with WAMR's message.
 *
 * wasm_runtime_set_native_stack_boundary: WAMR's checks then count from
 * the boundary given (its guard pages above it, but not the guard size),
 * written from its source and recorded from the same runs.
 *
 * Then wasm recursing to its deepest point calls a native and the
 * builtin libc's printf there (the host margin below compiled code's
 * limit is theirs): the marker survives, and the recursion that goes one
 * frame deeper fails with "native stack overflow", or, when the engine's
 * wasm stack (not the thread's) ran out, "wasm operand stack overflow". */
#include <pthread.h>
#include <sys/mman.h>
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#else
#define VALGRIND_MAKE_MEM_DEFINED(addr, len) ((void)(addr), (void)(len))
#endif

#include "export_wamr.h"

/* WAMR's libiwasm exports it, its headers do not declare it: its clients
   declare it themselves, as this test does. */
void *os_thread_get_stack_boundary(void);

#define STACK_SIZE (1 << 20)
#define GUARD_PAGES (3 * 4096)

static uintptr_t boundary;
static volatile uint32_t *marker;

/* The marker lies far below the stack pointer of the code that sets and
   reads it, where memcheck counts every access an error (memory below the
   stack pointer is unaddressable to it), whether it was marked so depends
   on how far earlier calls went: its bytes are made addressable first. */
static void set_marker(void)
{
    VALGRIND_MAKE_MEM_DEFINED((void *)marker, sizeof *marker);
    *marker = 0xaabbccdd;
}

static int marker_intact(void)
{
    VALGRIND_MAKE_MEM_DEFINED((void *)marker, sizeof *marker);
    return *marker == 0xaabbccdd;
}
/* Whether the marker is checked (see the top of the file). */
static int check_marker;
static volatile uint64_t sink;

static uint32_t call_indirect(wasm_exec_env_t env, uint32_t index, uint32_t x)
{
    uint32_t cells[1] = { x };
    return wasm_runtime_call_indirect(env, index, 1, cells) ? cells[0] : 0;
}

/* Recurses (checking the stack on each level, as the sample does) until
   `stack` bytes are left, then calls table element `index`. */
__attribute__((noinline)) static uint32_t host_consume_stack_and_call_indirect(wasm_exec_env_t env, uint32_t index,
                                                                               uint32_t x, uint32_t stack)
{
    volatile char pad[32];
    uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
    uint32_t r;
    pad[0] = 0;
    if (!wasm_runtime_detect_native_stack_overflow(env))
        return 0;
    if (fp - boundary > stack)
        r = host_consume_stack_and_call_indirect(env, index, x, stack);
    else
        r = call_indirect(env, index, x);
    sink += pad[0] + r;
    return r;
}

/* The sample's consume_stack1: small frames, so that it ends within the
   64 bytes its caller asked WAMR for beyond `stack`. */
__attribute__((noinline)) static uint64_t consume(uintptr_t base, uint32_t stack)
{
    uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
    uint64_t r = base - fp > stack ? base - fp : consume(base, stack);
    sink += r; /* not a tail call */
    return r;
}

/* Uses a bit more than `stack` bytes, if WAMR's check lets it. */
static uint32_t host_consume_stack(wasm_exec_env_t env, uint32_t stack)
{
    if (!wasm_runtime_detect_native_stack_overflow_size(env, 64 + stack))
        return 0;
    return (uint32_t)consume((uintptr_t)__builtin_frame_address(0), stack);
}

/* A native's own frames at wasm's deepest point: 2 KiB of them. */
static void host_at_bottom(wasm_exec_env_t env)
{
    volatile char frame[2048];
    for (size_t k = 0; k < sizeof frame; k += 64)
        frame[k] = (char)k;
    sink += frame[64];
}

static NativeSymbol natives[] = {
    { "host_consume_stack_and_call_indirect", (void *)host_consume_stack_and_call_indirect, "(iii)i", NULL },
    { "host_consume_stack", (void *)host_consume_stack, "(i)i", NULL },
    { "host_at_bottom", (void *)host_at_bottom, "()", NULL },
};

static wasm_module_t module;

/* Runs `name`(stack, 30) on a fresh instance: 1 if it returned 42, 0 if
   it failed with "native stack overflow". */
static int attempt(const char *name, uint32_t stack)
{
    char err[128];
    wasm_module_inst_t i = wasm_runtime_instantiate(module, 65536, 0, err, sizeof err);
    wasm_exec_env_t env;
    uint32_t cells[2] = { stack, 30 };
    int ok;
    CHECK(i != NULL, "instantiate: %s", err);
    env = wasm_runtime_create_exec_env(i, 65536);
    set_marker();
    ok = wasm_runtime_call_wasm(env, func(i, name), 2, cells);
    if (check_marker)
        CHECK(marker_intact(), "%s with %u bytes left: the marker above the guard pages was overwritten", name,
              stack);
    if (ok)
        CHECK_EQ_INT(cells[0], 42, "the result");
    else
        CHECK_EXC(i, "Exception: native stack overflow");
    wasm_runtime_destroy_exec_env(env);
    wasm_runtime_deinstantiate(i);
    return ok;
}

/* rec(n) on `env`: 1 if it ran, 0 if it failed (its exception in `exc`). */
static int rec(wasm_exec_env_t env, uint32_t n, char *exc, size_t len)
{
    wasm_module_inst_t i = wasm_runtime_get_module_inst(env);
    uint32_t cells[1] = { n };
    int ok = wasm_runtime_call_wasm(env, func(i, "rec"), 1, cells);
    snprintf(exc, len, "%s", exception_of(i));
    wasm_runtime_clear_exception(i);
    return ok;
}

/* The deepest recursion that runs on this thread, then a native and
   printf at its bottom; the message of one frame more. */
static void deepest(const char *expected)
{
    char err[128], exc[128];
    wasm_module_inst_t i = wasm_runtime_instantiate(module, 65536, 0, err, sizeof err);
    wasm_exec_env_t env = wasm_runtime_create_exec_env(i, 65536);
    uint32_t lo = 0, hi = 1;
    CHECK(i && env, "instantiate: %s", err);
    while (hi < (1u << 24) && rec(env, hi, exc, sizeof exc))
        hi *= 2;
    CHECK(hi < (1u << 24), "a recursion of 16M frames ran");
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (rec(env, mid, exc, sizeof exc))
            lo = mid;
        else
            hi = mid;
    }
    set_marker();
    CHECK(rec(env, lo, exc, sizeof exc), "the deepest recursion runs again: %s", exc);
    if (check_marker)
        CHECK(marker_intact(), "host calls at wasm's deepest point left the guard pages alone");
    CHECK(!rec(env, lo + 1, exc, sizeof exc), "one frame more fails");
    CHECK(strcmp(exc, expected) == 0, "exception \"%s\", expected \"%s\"", exc, expected);
    wasm_runtime_destroy_exec_env(env);
    wasm_runtime_deinstantiate(i);
}

/* wasm_runtime_set_native_stack_boundary: WAMR's checks count from it
   (with the guard pages above it, not the guard size), from the next
   call on. */
static void *user_boundary(void *arg)
{
    char err[128];
    wasm_module_inst_t i = wasm_runtime_instantiate(module, 65536, 0, err, sizeof err);
    wasm_exec_env_t env = wasm_runtime_create_exec_env(i, 65536);
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    uint32_t cells[1] = { 0 };
    CHECK(wasm_runtime_init_thread_env(), "init_thread_env");
    CHECK(i && env, "instantiate: %s", err);
    wasm_runtime_set_native_stack_boundary(env, (uint8_t *)(here - GUARD_PAGES + 1024));
    CHECK(!wasm_runtime_call_wasm(env, func(i, "rec"), 1, cells), "a call: the guard pages above the boundary reach "
                                                                  "past here");
    CHECK_EXC(i, "Exception: native stack overflow");
    wasm_runtime_clear_exception(i);
    if (OURS("after a call its check refused, WAMR keeps its record of the thread's exec env, and the old "
             "boundary with it: later calls on the thread fail too")) {
        wasm_runtime_set_native_stack_boundary(env, (uint8_t *)(here - GUARD_PAGES - 64 * 1024));
        cells[0] = 0;
        CHECK(wasm_runtime_call_wasm(env, func(i, "rec"), 1, cells), "64 KiB left above them: %s", exception_of(i));
    }
    wasm_runtime_destroy_exec_env(env);
    wasm_runtime_deinstantiate(i);
    return arg;
}

static void *thread(void *stack_base)
{
    int ok1 = 0, ok2 = 0;
    CHECK(wasm_runtime_init_thread_env(), "init_thread_env");
    boundary = (uintptr_t)os_thread_get_stack_boundary();
    CHECK(boundary == (uintptr_t)stack_base, "the boundary is the stack's end (a thread stack of ours: no guard)");
    marker = (volatile uint32_t *)(boundary + GUARD_PAGES);

    int ours = OURS("WAMR's interpreter needs less stack for these calls: with this test's host frames, test1 "
                    "runs from 16640 bytes left, test2 from 20224 (product-mini's classic interpreter)");
    /* Run lazily (tests/run-all.sh's CRANEWASM_LAZY=1 pass), a callee is
       compiled at its first call, on a thread of its own when the stack is
       short: spawning one needs 8 KiB above the guard pages, so the first
       calls that run test1's and test2's callees need up to that much
       more. Later calls reuse the code. */
    const char *lazy_env = getenv("CRANEWASM_LAZY");
    uint32_t lazy_extra = lazy_env && strcmp(lazy_env, "1") == 0 ? 8 * 1024 : 0;
    for (uint32_t s = 14 * 1024; s <= 24 * 1024 + lazy_extra; s += 256) {
        int r1 = attempt("test1", s), r2 = attempt("test2", s);
        if (s < 15 * 1024) /* WAMR's call check wants 12 + 3 KiB */
            CHECK(!r1 && !r2, "with %u bytes left, nothing runs", s);
        if (s >= 24 * 1024 + lazy_extra)
            CHECK(r1 && r2, "with %u bytes left, both run", s);
        if (r1 && !ok1)
            printf("test1 runs from %u bytes left\n", s);
        if (r2 && !ok2)
            printf("test2 runs from %u bytes left\n", s);
        if (ok1)
            CHECK(r1, "test1 ran with less stack, not with %u bytes", s);
        if (ok2)
            CHECK(r2, "test2 ran with less stack, not with %u bytes", s);
        ok1 |= r1;
        ok2 |= r2;
        if (ours && s >= 19 * 1024 + 512 + lazy_extra)
            CHECK(r1, "test1 runs with %u bytes left", s);
        if (ours && s >= 22 * 1024 + lazy_extra)
            CHECK(r2, "test2 runs with %u bytes left", s);
    }

    /* A 1 MiB thread: the thread's stack ends the recursion. */
    if (OURS("WAMR's interpreter keeps wasm frames on its own stack: wasm operand stack overflow"))
        deepest("Exception: native stack overflow");
    wasm_runtime_destroy_thread_env();
    return NULL;
}

static void *big_thread(void *arg)
{
    /* Room for more than the engine's wasm stack (1 MiB): that ends it. */
    CHECK(wasm_runtime_init_thread_env(), "init_thread_env");
    boundary = (uintptr_t)os_thread_get_stack_boundary();
    marker = (volatile uint32_t *)(boundary + GUARD_PAGES);
    deepest("Exception: wasm operand stack overflow");
    wasm_runtime_destroy_thread_env();
    return arg;
}

static void run_on_stack(void *(*f)(void *), size_t size)
{
    pthread_attr_t attr;
    pthread_t t;
    void *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(stack != MAP_FAILED, "mmap");
    pthread_attr_init(&attr);
    pthread_attr_setstack(&attr, stack, size);
    CHECK(pthread_create(&t, &attr, f, stack) == 0, "pthread_create");
    pthread_join(t, NULL);
    pthread_attr_destroy(&attr);
    munmap(stack, size);
}

int main(int argc, char **argv)
{
    RuntimeInitArgs init;
    test_init(argc, argv, "export_wamr_native_stack");
    memset(&init, 0, sizeof init);
    init.mem_alloc_type = Alloc_With_System_Allocator;
    init.native_module_name = "env";
    init.native_symbols = natives;
    init.n_native_symbols = sizeof natives / sizeof natives[0];
    CHECK(wasm_runtime_full_init(&init), "full_init");
    module = load("export_wamr_native_stack");
    check_marker = OURS("WAMR's own calls may reach the marker: its interpreter's frames can take more than the "
                        "3 KiB its call check leaves (product-mini's classic interpreter does at 15616 bytes left)");
    run_on_stack(thread, STACK_SIZE);
    run_on_stack(big_thread, 6 << 20);
    run_on_stack(user_boundary, STACK_SIZE);
    unload(module);
    wasm_runtime_destroy();
    test_pass();
    return 0;
}
