/* Native driver: times one kernel compiled natively and linked into this
 * program (the "physical limit" column).
 *
 *   native_<kernel> <n> <reps>     (after one untimed warm-up run)
 *
 * KERNEL_NAME is set on the compiler command line. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "timing.h"

uint64_t run(uint32_t n);

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s <n> <reps>\n", argv[0]);
    return 2;
  }
  uint32_t n = (uint32_t)strtoul(argv[1], NULL, 10);
  int reps = atoi(argv[2]);
  if (reps < 1 || reps > MAX_REPS) {
    fprintf(stderr, "reps must be 1..%d\n", MAX_REPS);
    return 2;
  }
  double ms[MAX_REPS];
  uint64_t first = 0;
  /* Run -1 is an untimed warm-up, as in bench.c. */
  for (int r = -1; r < reps; r++) {
    double t0 = now_seconds();
    uint64_t check = run(n);
    double elapsed = now_seconds() - t0;
    if (r == -1) first = check;
    else if (check != first) {
      fprintf(stderr, "%s: checksum changed between runs\n", KERNEL_NAME);
      return 1;
    }
    if (r >= 0) ms[r] = elapsed * 1e3;
  }
  REPORT("kernel:" KERNEL_NAME, median(ms, reps), "ms", first);
  return 0;
}
