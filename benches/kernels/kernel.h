/* Shared helpers for the benchmark kernels.
 *
 * Every kernel is built twice from the same source: for wasm32 with no libc
 * (-nostdlib) and natively. So only freestanding headers are used, every
 * integer has a fixed width (long and size_t differ between the targets),
 * and floating point stays in plain IEEE operations so both builds produce
 * bit-identical checksums.
 *
 * Each kernel file states two sizes that build-kernels.sh and compare.sh
 * read back:  BENCH_N (one run takes ~0.2-1 s natively) and TEST_N (a
 * quick size whose native checksum goes into expected.txt).
 */
#ifndef KERNEL_H
#define KERNEL_H

#include <stdint.h>

#define NOINLINE __attribute__((noinline))

/* The one export: a checksum over all the work done for size n. */
uint64_t run(uint32_t n);

/* Numerical Recipes LCG: cheap, and identical on every target. */
static inline uint32_t lcg_next(uint32_t *state) {
  *state = *state * 1664525u + 1013904223u;
  return *state;
}

/* splitmix64: good 64-bit fill values for hashing inputs. */
static inline uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static inline uint64_t rotl64(uint64_t x, unsigned r) {
  return (x << r) | (x >> (64 - r));
}

/* Folds a value into a running checksum; order-sensitive on purpose. */
static inline uint64_t mix(uint64_t acc, uint64_t v) {
  return rotl64(acc ^ v, 23) * 0x2127599bf4325c37ull + 0x880355f21e6d1965ull;
}

/* A double's bit pattern: checksums over floats must match bit for bit. */
static inline uint64_t f64_bits(double d) {
  uint64_t u;
  __builtin_memcpy(&u, &d, sizeof u);
  return u;
}

#endif
