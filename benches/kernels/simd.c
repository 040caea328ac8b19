/* SIMD: 128-bit vector code, as clang emits for -msimd128 (wasm) and SSE
 * (native) from the same source. GCC/clang vector types state the vectors
 * explicitly, so both builds run the same vector operations whatever the
 * auto-vectoriser settings: an i32x4 multiply-accumulate whose result feeds
 * back into the data, and an f32x4 y = y * k + x update, over 2 x 64 KiB of
 * each, n rounds. The wasm build alone gets -msimd128 (the line below);
 * natively the vector types lower to SSE2, the x86-64 baseline, which has
 * no 32-bit lane multiply (clang emulates it with shuffles), while the JITs
 * use the host's SSE4.1 pmulld: so wasm can beat "native" here.
 */
// wasm-cflags: -msimd128
#include "kernel.h"

#define BENCH_N 48000
#define TEST_N 3

typedef int32_t v4i __attribute__((vector_size(16)));
typedef float v4f __attribute__((vector_size(16)));

#define LEN 4096 /* vectors per array: 64 KiB */
static v4i a[LEN], b[LEN];
static v4f x[LEN], y[LEN];

static float unit(uint32_t *s) { return (float)(lcg_next(s) >> 8) * (1.0f / 16777216.0f); }

uint64_t run(uint32_t n) {
  uint32_t s = 12345;
  for (uint32_t i = 0; i < LEN; i++) {
    for (int l = 0; l < 4; l++) {
      a[i][l] = (int32_t)(lcg_next(&s) >> 16);
      b[i][l] = (int32_t)(lcg_next(&s) >> 16);
      x[i][l] = unit(&s);
      y[i][l] = unit(&s);
    }
  }
  uint64_t check = 0;
  for (uint32_t r = 0; r < n; r++) {
    v4i acc = {(int32_t)r, 0, 0, 0};
    v4f facc = {0.0f, 0.0f, 0.0f, 0.0f};
    const v4f k = {0.5f, 0.25f, 0.75f, 0.125f};
    for (uint32_t i = 0; i < LEN; i++) {
      acc += a[i] * b[i];
      a[i] = (a[i] ^ (acc >> 7)) & 0xffff;
      y[i] = y[i] * k + x[i];
      facc += y[i];
    }
    union { float f; uint32_t u; } bits = {facc[0] + facc[1] + facc[2] + facc[3]};
    check = check * 31 + (uint32_t)(acc[0] + acc[1] + acc[2] + acc[3]);
    check ^= (uint64_t)bits.u << 17;
  }
  return check;
}
