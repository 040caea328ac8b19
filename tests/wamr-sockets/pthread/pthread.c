/* A small pthread layer for WAMR's socket apps on apt's wasi-libc (2022),
 * which has no threads build (there is no wasi-sdk in the package
 * registries). Our own code, over the wasi-threads ABI the runtime provides:
 *
 * - pthread_create allocates the thread's shadow stack and a record, and
 *   calls `wasi.thread-spawn(record)`; the runtime runs the new instance's
 *   `wasi_thread_start(tid, record)` (thread_start.s), which switches to
 *   that stack and calls cw_thread_main. pthread_join waits for the record's
 *   `done` and frees both.
 * - Mutexes and conditions wait with memory.atomic.wait32/notify on the
 *   shared memory (a mutex is the classic three-state futex lock).
 * - The libc itself was built for one thread: its allocator and stdio keep
 *   unlocked state. The apps are linked with --wrap for the allocator and
 *   the stdio calls they make, and the wrappers below take one recursive
 *   lock around them (recursive: printf reaches vfprintf, which is wrapped
 *   too). errno stays one variable for all threads, as that libc has it.
 *
 * Built with -matomics -mbulk-memory; the apps and libc are not, and are
 * linked with --shared-memory --no-check-features, as WAMR's CMake links
 * its socket apps. */
#include "pthread.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* errno values (the header's errno variable itself is not used here). */
#define CW_EAGAIN 6
#define CW_EINVAL 28
#define CW_ESRCH 71
#define CW_ETIMEDOUT 73

#define STACK_SIZE (128 * 1024)

struct cw_thread {
    uint32_t stack_top; /* read by thread_start.s: keep first */
    void *stack;
    void *(*start)(void *);
    void *arg;
    void *retval;
    int done;
};

__attribute__((import_module("wasi"), import_name("thread-spawn"))) int32_t
cw_thread_spawn(void *start_arg);
uint32_t
cw_self_get(void);

static struct cw_thread main_thread;

void
cw_thread_main(int32_t tid, struct cw_thread *t)
{
    (void)tid;
    t->retval = t->start(t->arg);
    __atomic_store_n(&t->done, 1, __ATOMIC_SEQ_CST);
    __builtin_wasm_memory_atomic_notify(&t->done, UINT32_MAX);
}

int
pthread_create(pthread_t *thread, const pthread_attr_t *attr,
               void *(*start)(void *), void *arg)
{
    (void)attr;
    struct cw_thread *t = calloc(1, sizeof(*t));
    void *stack = malloc(STACK_SIZE);
    if (!t || !stack) {
        free(t);
        free(stack);
        return CW_EAGAIN;
    }
    t->stack = stack;
    t->stack_top = ((uint32_t)(uintptr_t)stack + STACK_SIZE) & ~15u;
    t->start = start;
    t->arg = arg;
    if (cw_thread_spawn(t) < 0) {
        free(stack);
        free(t);
        return CW_EAGAIN;
    }
    *thread = t;
    return 0;
}

int
pthread_join(pthread_t t, void **retval)
{
    if (!t || t == &main_thread)
        return CW_ESRCH;
    while (!__atomic_load_n(&t->done, __ATOMIC_SEQ_CST))
        __builtin_wasm_memory_atomic_wait32(&t->done, 0, -1);
    if (retval)
        *retval = t->retval;
    /* The thread stopped using its stack before it set `done`. */
    free(t->stack);
    free(t);
    return 0;
}

pthread_t
pthread_self(void)
{
    uint32_t self = cw_self_get();
    return self ? (pthread_t)(uintptr_t)self : &main_thread;
}

int
pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr)
{
    (void)attr;
    m->state = 0;
    return 0;
}

int
pthread_mutex_destroy(pthread_mutex_t *m)
{
    return m->state == 0 ? 0 : CW_EINVAL;
}

int
pthread_mutex_lock(pthread_mutex_t *m)
{
    int c = 0;
    if (__atomic_compare_exchange_n(&m->state, &c, 1, 0, __ATOMIC_ACQUIRE,
                                    __ATOMIC_RELAXED))
        return 0;
    if (c != 2)
        c = __atomic_exchange_n(&m->state, 2, __ATOMIC_ACQUIRE);
    while (c != 0) {
        __builtin_wasm_memory_atomic_wait32(&m->state, 2, -1);
        c = __atomic_exchange_n(&m->state, 2, __ATOMIC_ACQUIRE);
    }
    return 0;
}

int
pthread_mutex_unlock(pthread_mutex_t *m)
{
    if (__atomic_fetch_sub(&m->state, 1, __ATOMIC_RELEASE) != 1) {
        __atomic_store_n(&m->state, 0, __ATOMIC_RELEASE);
        __builtin_wasm_memory_atomic_notify(&m->state, 1);
    }
    return 0;
}

int
pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *attr)
{
    (void)attr;
    c->seq = 0;
    return 0;
}

int
pthread_cond_destroy(pthread_cond_t *c)
{
    (void)c;
    return 0;
}

/* Waits for a signal after `seq` for up to `timeout_ns` (-1: forever). */
static int
cond_wait(pthread_cond_t *c, pthread_mutex_t *m, int64_t timeout_ns)
{
    unsigned seq = __atomic_load_n(&c->seq, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(m);
    int r = __builtin_wasm_memory_atomic_wait32((int *)&c->seq, (int)seq,
                                                timeout_ns);
    pthread_mutex_lock(m);
    return r == 2 ? CW_ETIMEDOUT : 0;
}

int
pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    return cond_wait(c, m, -1);
}

int
pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                       const struct timespec *abstime)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int64_t left = (int64_t)(abstime->tv_sec - now.tv_sec) * 1000000000
                   + (abstime->tv_nsec - now.tv_nsec);
    if (left <= 0)
        return CW_ETIMEDOUT;
    return cond_wait(c, m, left);
}

int
pthread_cond_signal(pthread_cond_t *c)
{
    __atomic_fetch_add(&c->seq, 1, __ATOMIC_SEQ_CST);
    __builtin_wasm_memory_atomic_notify((int *)&c->seq, 1);
    return 0;
}

int
pthread_cond_broadcast(pthread_cond_t *c)
{
    __atomic_fetch_add(&c->seq, 1, __ATOMIC_SEQ_CST);
    __builtin_wasm_memory_atomic_notify((int *)&c->seq, UINT32_MAX);
    return 0;
}

/* --- the single-threaded libc's allocator and stdio, under one lock ------ */

static pthread_mutex_t libc_lock;
static uint32_t libc_owner; /* 0: none; the main thread is 1 */
static int libc_depth;

static uint32_t
self_id(void)
{
    uint32_t self = cw_self_get();
    return self ? self : 1;
}

static void
libc_enter(void)
{
    uint32_t me = self_id();
    if (__atomic_load_n(&libc_owner, __ATOMIC_RELAXED) == me) {
        libc_depth++;
        return;
    }
    pthread_mutex_lock(&libc_lock);
    __atomic_store_n(&libc_owner, me, __ATOMIC_RELAXED);
    libc_depth = 1;
}

static void
libc_leave(void)
{
    if (--libc_depth == 0) {
        __atomic_store_n(&libc_owner, 0, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&libc_lock);
    }
}

/* Declares the real function and defines a wrapper that locks around it. */
#define LOCKED(ret, name, params, args)   \
    ret __real_##name params;             \
    ret __wrap_##name params              \
    {                                     \
        libc_enter();                     \
        ret r = __real_##name args;       \
        libc_leave();                     \
        return r;                         \
    }

LOCKED(void *, malloc, (size_t n), (n))
LOCKED(void *, calloc, (size_t n, size_t size), (n, size))
LOCKED(void *, realloc, (void *p, size_t n), (p, n))
LOCKED(int, puts, (const char *s), (s))
LOCKED(int, putchar, (int ch), (ch))
LOCKED(int, fputs, (const char *s, FILE *f), (s, f))
LOCKED(int, fputc, (int ch, FILE *f), (ch, f))
LOCKED(size_t, fwrite, (const void *p, size_t size, size_t n, FILE *f),
       (p, size, n, f))
LOCKED(int, fflush, (FILE * f), (f))
LOCKED(int, vfprintf, (FILE * f, const char *fmt, va_list ap), (f, fmt, ap))

/* wasm-ld 14 wraps each export of a program whose libc does not call
 * __wasm_call_ctors itself (this one) in a "command export" that runs
 * __wasm_call_dtors after it, so a thread returning from wasi_thread_start
 * flushes stdio with __stdio_exit: under the lock, like the rest. */
void __real___stdio_exit(void);
void
__wrap___stdio_exit(void)
{
    libc_enter();
    __real___stdio_exit();
    libc_leave();
}

void __real_free(void *p);
void
__wrap_free(void *p)
{
    libc_enter();
    __real_free(p);
    libc_leave();
}

void __real_perror(const char *s);
void
__wrap_perror(const char *s)
{
    libc_enter();
    __real_perror(s);
    libc_leave();
}

int
__wrap_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    libc_enter();
    int r = __real_vfprintf(stdout, fmt, ap);
    libc_leave();
    va_end(ap);
    return r;
}

int
__wrap_fprintf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    libc_enter();
    int r = __real_vfprintf(f, fmt, ap);
    libc_leave();
    va_end(ap);
    return r;
}
