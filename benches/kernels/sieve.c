/* Integer loops over memory: the sieve of Eratosthenes, byte array of ~2 MiB,
 * repeated n times with a slightly different limit each round so no round can
 * be folded into another. Stresses byte loads/stores and bounds checks. */
#include "kernel.h"

#define BENCH_N 60
#define TEST_N 2

#define SIEVE_MAX (1u << 21)
static uint8_t composite[SIEVE_MAX];

uint64_t run(uint32_t n) {
  uint64_t check = 0;
  for (uint32_t round = 0; round < n; round++) {
    uint32_t limit = SIEVE_MAX - (round * 97u) % 4096u;
    for (uint32_t i = 0; i < limit; i++) composite[i] = 0;
    uint32_t count = 0;
    uint64_t sum = 0;
    for (uint32_t i = 2; i < limit; i++) {
      if (composite[i]) continue;
      count++;
      sum += i;
      /* i * i fits in 32 bits only below 65536; the limit is far lower. */
      if (i < 46341u && i * i < limit)
        for (uint32_t j = i * i; j < limit; j += i) composite[j] = 1;
    }
    check = mix(check, ((uint64_t)count << 32) ^ sum);
  }
  return check;
}
