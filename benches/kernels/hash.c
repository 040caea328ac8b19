/* Hashing: FNV-1a (a byte at a time, one dependent multiply per byte) and a
 * murmur3-style 64-bit block mix over a 1 MiB pseudo-random buffer, n rounds
 * with a different seed each round. */
#include "kernel.h"

#define BENCH_N 200
#define TEST_N 1

#define WORDS (1u << 17) /* 1 MiB */
static uint64_t buf[WORDS];

static uint64_t fnv1a(const uint8_t *p, uint32_t len, uint64_t seed) {
  uint64_t h = 0xcbf29ce484222325ull ^ seed;
  for (uint32_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

static uint64_t murmur_mix(const uint64_t *w, uint32_t count, uint64_t seed) {
  const uint64_t c1 = 0x87c37b91114253d5ull, c2 = 0x4cf5ad432745937full;
  uint64_t h = seed;
  for (uint32_t i = 0; i < count; i++) {
    uint64_t k = w[i] * c1;
    k = rotl64(k, 31) * c2;
    h ^= k;
    h = rotl64(h, 27) * 5 + 0x52dce729;
  }
  h ^= (uint64_t)count * 8;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

uint64_t run(uint32_t n) {
  uint64_t state = 0x5eed;
  for (uint32_t i = 0; i < WORDS; i++) buf[i] = splitmix64(&state);
  uint64_t check = 0;
  for (uint32_t round = 0; round < n; round++) {
    check = mix(check, fnv1a((const uint8_t *)buf, WORDS * 8, round));
    check = mix(check, murmur_mix(buf, WORDS, check));
  }
  return check;
}
