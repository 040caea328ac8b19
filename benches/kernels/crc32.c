/* Table-driven CRC-32 (IEEE, one byte per step) over a 1 MiB buffer, n
 * rounds. Every step is a dependent table load whose address comes from the
 * previous result: load latency and address computation. */
#include "kernel.h"

#define BENCH_N 150
#define TEST_N 1

#define SIZE (1u << 20)
static uint8_t data[SIZE];
static uint32_t crc_table[256];

static void make_table(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
    crc_table[i] = c;
  }
}

static uint32_t crc32(uint32_t crc, const uint8_t *p, uint32_t len) {
  crc = ~crc;
  for (uint32_t i = 0; i < len; i++) crc = crc_table[(crc ^ p[i]) & 255] ^ (crc >> 8);
  return ~crc;
}

uint64_t run(uint32_t n) {
  make_table();
  uint32_t seed = 0xc3c;
  for (uint32_t i = 0; i < SIZE; i++) data[i] = (uint8_t)(lcg_next(&seed) >> 23);
  uint64_t check = 0;
  uint32_t crc = 0;
  for (uint32_t round = 0; round < n; round++) {
    crc = crc32(crc + round, data, SIZE);
    check = mix(check, crc);
  }
  return check;
}
