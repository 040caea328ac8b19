/* The pthreads that WAMR's socket apps use (tcp_server.c, send_recv.c and
 * lib-socket's tcp_udp.c and nslookup.c), for apt's wasi-libc, which is a
 * single-threaded build without <pthread.h>: threads are wasi-threads
 * threads (`wasi.thread-spawn`), each a new instance over the program's
 * shared memory, and waits are memory.atomic.wait/notify. See pthread.c. */
#ifndef CW_PTHREAD_H
#define CW_PTHREAD_H

#include <time.h>

typedef struct cw_thread *pthread_t;
typedef struct {
    int unused;
} pthread_attr_t;

/* All-zero is the initial state of both, so `= { 0 }` works as the
 * initializers do. */
typedef struct {
    int state; /* 0 free, 1 locked, 2 locked with waiters */
} pthread_mutex_t;
typedef struct {
    int unused;
} pthread_mutexattr_t;
typedef struct {
    unsigned seq; /* bumped by every signal */
} pthread_cond_t;
typedef struct {
    int unused;
} pthread_condattr_t;

#define PTHREAD_MUTEX_INITIALIZER { 0 }
#define PTHREAD_COND_INITIALIZER { 0 }

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg);
int pthread_join(pthread_t thread, void **retval);
pthread_t pthread_self(void);

int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr);
int pthread_mutex_destroy(pthread_mutex_t *m);
int pthread_mutex_lock(pthread_mutex_t *m);
int pthread_mutex_unlock(pthread_mutex_t *m);

int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *attr);
int pthread_cond_destroy(pthread_cond_t *c);
int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m);
int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime);
int pthread_cond_signal(pthread_cond_t *c);
int pthread_cond_broadcast(pthread_cond_t *c);

#endif
