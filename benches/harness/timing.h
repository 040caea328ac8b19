/* Wall-clock timing and the median used by every benchmark driver. */
#ifndef TIMING_H
#define TIMING_H

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* BENCH_CLOCK=thread times with the calling thread's CPU time instead of
 * the wall clock: on a machine whose cores other work keeps busy, time
 * spent waiting for a core then does not count. Only for what runs on
 * the calling thread (a program's run; not a compile that uses worker
 * threads, as wasmtime's does). */
static inline double now_seconds(void) {
  static int clock_id = -1;
  struct timespec ts;
  if (clock_id < 0) {
    const char *choice = getenv("BENCH_CLOCK");
    clock_id = choice && strcmp(choice, "thread") == 0 ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
  }
  clock_gettime(clock_id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median of n samples (sorts them in place): robust against the odd slow run
 * on a machine shared with other work. */
static inline double median(double *samples, int n) {
  qsort(samples, (size_t)n, sizeof *samples, compare_doubles);
  return n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
}

/* One line per measured case, the format compare.sh joins into its table:
 *   RESULT <case> <value> <unit> <check>
 * where check is a value that must agree between columns. */
#define REPORT(case_name, value, unit, check)                                   \
  printf("RESULT %s %.6g %s %llu\n", (case_name), (value), (unit),             \
         (unsigned long long)(check))

#define MAX_REPS 64

#endif
