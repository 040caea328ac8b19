/* Recursion: the doubly recursive Fibonacci is almost nothing but calls and
 * returns, so it measures call/return cost and stack-frame setup. */
#include "kernel.h"

#define BENCH_N 40
#define TEST_N 20

static NOINLINE uint64_t fib(uint32_t n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

uint64_t run(uint32_t n) { return fib(n); }
