/* call_indirect dispatch: a tiny "bytecode" interpreter whose opcodes are
 * handlers called through a function-pointer table, like an interpreter or a
 * vtable-heavy program. In wasm each handler call is a call_indirect with a
 * signature check; natively it is an indirect call. */
#include "kernel.h"

#define BENCH_N 10000
#define TEST_N 8

typedef uint32_t (*handler)(uint32_t acc, uint32_t x);

static NOINLINE uint32_t op_add(uint32_t a, uint32_t x) { return a + x; }
static NOINLINE uint32_t op_sub(uint32_t a, uint32_t x) { return a - x * 3; }
static NOINLINE uint32_t op_xor(uint32_t a, uint32_t x) { return a ^ (x * 0x9e3779b9u); }
static NOINLINE uint32_t op_mul(uint32_t a, uint32_t x) { return a * (x | 1); }
static NOINLINE uint32_t op_rotl(uint32_t a, uint32_t x) { return (a << (x & 31)) | (a >> ((32 - x) & 31)); }
static NOINLINE uint32_t op_shr(uint32_t a, uint32_t x) { return a ^ (a >> ((x & 15) + 1)); }
static NOINLINE uint32_t op_min(uint32_t a, uint32_t x) { return a < x ? a + 7 : a - x; }
static NOINLINE uint32_t op_sel(uint32_t a, uint32_t x) { return (x & 1) ? a + 0x1234567u : a - 0x7654321u; }
static NOINLINE uint32_t op_not(uint32_t a, uint32_t x) { return ~a + x; }
static NOINLINE uint32_t op_div(uint32_t a, uint32_t x) { return a / ((x & 255) + 1) + a; }
static NOINLINE uint32_t op_rem(uint32_t a, uint32_t x) { return a % ((x & 1023) + 3) + (a << 1); }
static NOINLINE uint32_t op_clz(uint32_t a, uint32_t x) { return a + (uint32_t)__builtin_clz(a | 1) + x; }
static NOINLINE uint32_t op_pop(uint32_t a, uint32_t x) { return a + (uint32_t)__builtin_popcount(a ^ x); }
static NOINLINE uint32_t op_and(uint32_t a, uint32_t x) { return (a & (x | 0xffff0000u)) + 1; }
static NOINLINE uint32_t op_or(uint32_t a, uint32_t x) { return (a | (x << 3)) - x; }
static NOINLINE uint32_t op_mix(uint32_t a, uint32_t x) { return (a ^ (a >> 16)) * 0x85ebca6bu + x; }

/* Not const: the table is data, as it would be for a real interpreter. */
static handler table[16] = {
  op_add, op_sub, op_xor, op_mul, op_rotl, op_shr, op_min, op_sel,
  op_not, op_div, op_rem, op_clz, op_pop, op_and, op_or, op_mix,
};

#define PROGRAM 4096
static uint8_t program[PROGRAM];

uint64_t run(uint32_t n) {
  uint32_t seed = 0xd15bu;
  for (uint32_t i = 0; i < PROGRAM; i++) program[i] = (uint8_t)(lcg_next(&seed) >> 28);
  uint32_t acc = 1;
  uint64_t check = 0;
  for (uint32_t round = 0; round < n; round++) {
    for (uint32_t pc = 0; pc < PROGRAM; pc++) acc = table[program[pc]](acc, pc ^ round);
    check = mix(check, acc);
  }
  return check;
}
