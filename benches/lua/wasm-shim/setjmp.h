/* An empty <setjmp.h> for the wasm32-wasi build of Lua: ldo.c includes the
 * header unconditionally, wasi-libc has none, and config.h replaces what
 * Lua would use from it. */
