/* Mandelbrot set on an n x n grid, up to 200 iterations per point: a tight
 * f64 loop with a data-dependent exit, plus int/float conversions. */
#include "kernel.h"

#define BENCH_N 1600
#define TEST_N 40

uint64_t run(uint32_t n) {
  uint64_t check = 0;
  for (uint32_t py = 0; py < n; py++) {
    double ci = (double)py * (2.5 / (double)n) - 1.25;
    uint64_t row = 0;
    for (uint32_t px = 0; px < n; px++) {
      double cr = (double)px * (3.0 / (double)n) - 2.25;
      double zr = 0, zi = 0;
      uint32_t it = 0;
      while (it < 200) {
        double zr2 = zr * zr, zi2 = zi * zi;
        if (zr2 + zi2 > 4.0) break;
        zi = 2.0 * zr * zi + ci;
        zr = zr2 - zi2 + cr;
        it++;
      }
      row = row * 211 + it;
    }
    check = mix(check, row);
  }
  return check;
}
