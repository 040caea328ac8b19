/* The real-program benchmark's main: a Lua 5.4 state with the base, table,
 * string, math, utf8 and coroutine libraries runs bench.lua (compiled in
 * as BENCH_SCRIPT from the generated script.h) and prints the integer it
 * returns.
 *
 * The same main for wasm32-wasi and natively: the runtimes time
 * instantiation plus `_start`, benches/harness/native_run.c the native
 * process from start to exit. */
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

/* Runs the workload at `scale` in a fresh state; returns its check value. */
static long long run_workload(long long scale) {
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
  lua_pushinteger(L, scale);
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

/* The scale is 1 unless given: 0 makes a short script (start-up alone,
 * benches/cache_startup.py). */
int main(int argc, char **argv) {
  printf("%lld\n", run_workload(argc > 1 ? atoll(argv[1]) : 1));
  return 0;
}
