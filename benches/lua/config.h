/* Forced into every Lua source of the real-program benchmark (clang
 * -include), natively and for wasm32-wasi alike, so both builds run the
 * same code:
 *
 * - Errors: wasi-libc has no setjmp/longjmp (WebAssembly without the
 *   exception-handling proposal, which we do not implement, cannot
 *   unwind), so a Lua error ends the program with a message instead of
 *   unwinding to a pcall. The workload raises none; an error is a bug that
 *   must fail the benchmark, and does.
 * - l_signalT: wasi-libc has no <signal.h>; sig_atomic_t is an int on
 *   both targets anyway.
 * - No time-seeded randomness: a fixed string-hash seed and a fixed sort
 *   pivot seed, so every run (and every build) does identical work. */
#ifndef BENCH_LUA_CONFIG_H
#define BENCH_LUA_CONFIG_H

struct lua_State;
void bench_lua_throw(struct lua_State *L) __attribute__((noreturn));

#define LUAI_THROW(L, c) bench_lua_throw(L)
#define LUAI_TRY(L, c, a) \
  { a }
#define luai_jmpbuf int

#define l_signalT int

#define luai_makeseed(L) 0x2545f491u
#define l_randomizePivot() 0x9e3779b9u

#endif
