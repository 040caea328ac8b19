/* The real-program benchmark's main: a Lua 5.4 state with the base, table,
 * string, math, utf8 and coroutine libraries runs bench.lua (compiled in
 * as BENCH_SCRIPT from the generated script.h) and prints the integer it
 * returns.
 *
 * For wasm32-wasi this is the program's main: the runtimes time
 * instantiation plus `_start`. Built natively with -DNATIVE_TIMING, main
 * runs the workload once untimed, then REPS timed runs (argv[1], default 1)
 * and prints the harness's "RESULT lua:run <ms> ms <check>" line itself. */
#include <stdio.h>
#include <stdlib.h>

#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"
#include "script.h"

void bench_lua_throw(lua_State *L) {
  const char *msg = lua_tostring(L, -1);
  fprintf(stderr, "lua error: %s\n", msg ? msg : "(not a string)");
  abort();
}

/* Runs the workload in a fresh state; returns its check value. */
static long long run_workload(void) {
  lua_State *L = luaL_newstate();
  if (!L) {
    fprintf(stderr, "lua: out of memory\n");
    exit(1);
  }
  static const luaL_Reg libs[] = {
      {LUA_GNAME, luaopen_base},         {LUA_TABLIBNAME, luaopen_table},  {LUA_STRLIBNAME, luaopen_string},
      {LUA_MATHLIBNAME, luaopen_math},   {LUA_UTF8LIBNAME, luaopen_utf8}, {LUA_COLIBNAME, luaopen_coroutine},
  };
  for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++) {
    luaL_requiref(L, libs[i].name, libs[i].func, 1);
    lua_pop(L, 1);
  }
  if (luaL_loadbuffer(L, BENCH_SCRIPT, sizeof BENCH_SCRIPT - 1, "=bench.lua") != LUA_OK) bench_lua_throw(L);
  lua_pushinteger(L, 1); /* scale */
  lua_call(L, 1, 1);
  int ok = 0;
  long long check = (long long)lua_tointegerx(L, -1, &ok);
  if (!ok) {
    fprintf(stderr, "lua: the workload returned no integer\n");
    exit(1);
  }
  lua_close(L);
  return check;
}

#ifdef NATIVE_TIMING
#include "timing.h"

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 1;
  if (reps < 1 || reps > MAX_REPS) {
    fprintf(stderr, "reps must be 1..%d\n", MAX_REPS);
    return 2;
  }
  long long first = run_workload(); /* warm-up, as the wasm runners do */
  double ms[MAX_REPS];
  for (int r = 0; r < reps; r++) {
    double t0 = now_seconds();
    long long check = run_workload();
    ms[r] = (now_seconds() - t0) * 1e3;
    if (check != first) {
      fprintf(stderr, "lua: check value changed between runs\n");
      return 1;
    }
  }
  REPORT("lua:run", median(ms, reps), "ms", (unsigned long long)first);
  return 0;
}
#else
int main(void) {
  printf("%lld\n", run_workload());
  return 0;
}
#endif
