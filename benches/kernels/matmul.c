/* Float matrix multiply: C = A * B with n x n doubles (i-k-j order), the
 * classic scalar FP multiply-add loop with strided loads. The checksum folds
 * the bit pattern of every element of C. */
#include "kernel.h"

#define BENCH_N 900
#define TEST_N 24

#define MAXN 1024
static double A[MAXN * MAXN], B[MAXN * MAXN], C[MAXN * MAXN];

uint64_t run(uint32_t n) {
  if (n > MAXN) n = MAXN;
  uint32_t seed = 12345u + n;
  for (uint32_t i = 0; i < n * n; i++) {
    A[i] = (double)(lcg_next(&seed) >> 8) * (1.0 / 16777216.0) - 0.5;
    B[i] = (double)(lcg_next(&seed) >> 8) * (1.0 / 16777216.0) - 0.5;
    C[i] = 0.0;
  }
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t k = 0; k < n; k++) {
      double a = A[i * n + k];
      const double *brow = &B[k * n];
      double *crow = &C[i * n];
      for (uint32_t j = 0; j < n; j++) crow[j] += a * brow[j];
    }
  uint64_t check = 0;
  for (uint32_t i = 0; i < n * n; i++) check = mix(check, f64_bits(C[i]));
  return check;
}
