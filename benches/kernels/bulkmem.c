/* Bulk memory: memset / memcpy / overlapping memmove of 16 B .. 64 KiB at
 * pseudo-random offsets in two 1 MiB buffers. With -mbulk-memory these are
 * single memory.fill / memory.copy instructions in wasm; natively they are
 * libc's tuned routines. Each round samples the bytes it touched, and the
 * whole of both buffers is hashed at the end. */
#include "kernel.h"

#define BENCH_N 120000
#define TEST_N 40

#define SIZE (1u << 20)
#define MAXLEN (1u << 16)
static uint8_t src[SIZE], dst[SIZE];

static uint32_t pick_len(uint32_t *seed) { return 16 + (lcg_next(seed) >> 8) % MAXLEN; }
static uint32_t pick_off(uint32_t *seed, uint32_t len) {
  return (lcg_next(seed) >> 4) % (SIZE - len - MAXLEN);
}

uint64_t run(uint32_t n) {
  uint32_t seed = 0xb01c + n;
  for (uint32_t i = 0; i < SIZE; i++) src[i] = (uint8_t)(lcg_next(&seed) >> 24);
  __builtin_memset(dst, 0, SIZE);
  uint64_t check = 0;
  for (uint32_t round = 0; round < n; round++) {
    uint32_t len = pick_len(&seed), off = pick_off(&seed, len);
    __builtin_memset(dst + off, (int)(round & 255), len);
    check = mix(check, dst[off + len / 2]);

    len = pick_len(&seed);
    uint32_t to = pick_off(&seed, len), from = pick_off(&seed, len);
    __builtin_memcpy(dst + to, src + from, len);
    check = mix(check, dst[to + len - 1]);

    /* Overlapping move, forwards or backwards by up to 4 KiB. */
    len = pick_len(&seed);
    uint32_t at = pick_off(&seed, len) + 4096;
    uint32_t shift = lcg_next(&seed) >> 20;
    uint8_t *from_p = (round & 1) ? src + at - shift : src + at + shift;
    __builtin_memmove(src + at, from_p, len);
    check = mix(check, src[at + len / 3]);
  }
  uint64_t h = 0;
  for (uint32_t i = 0; i < SIZE; i += 8) {
    uint64_t a, b;
    __builtin_memcpy(&a, src + i, 8);
    __builtin_memcpy(&b, dst + i, 8);
    h = h * 0x100000001b3ull + (a ^ rotl64(b, 17));
  }
  return mix(check, h);
}
