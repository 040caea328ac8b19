/* The cost of a wasm -> host -> wasm call through each C API of our
 * libiwasm.so, on the small module's host_loop (see small.wat):
 *
 *   callback  a wasm_func_new callback (wasm_c_api.h), as host_roundtrip
 *   native    a native registered with a signature string (wasm_export.h)
 *
 * and of a host -> wasm call of the i32 -> i32 export inc through
 * wasm_export.h (as call_i32 is through wasm_c_api.h):
 *
 *   call_wasm    wasm_runtime_call_wasm, arguments in 32-bit cells
 *   call_wasm_a  wasm_runtime_call_wasm_a, arguments as wasm_val_t
 *
 *   native_calls SMALL.wasm REPS
 *
 * Output: RESULT lines as timing.h writes them. A native is a plain C
 * function called through a trampoline compiled for its C signature; it
 * must cost no more than a callback, which is handed its arguments in
 * place. Built by hand: cc -O2 -I include native_calls.c -L target/release
 * -liwasm (see benches/README.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasm_c_api.h"
#include "wasm_export.h"
#include "timing.h"

enum { CALLS = 1000000 };

static wasm_trap_t *host_inc_callback(const wasm_val_vec_t *args, wasm_val_vec_t *results) {
  results->data[0].kind = WASM_I32;
  results->data[0].of.i32 = args->data[0].of.i32 + 1;
  return NULL;
}

static int32_t host_inc_native(wasm_exec_env_t env, int32_t x) {
  (void)env;
  return x + 1;
}

static char *read_file(const char *path, long *size) {
  FILE *f = fopen(path, "rb");
  char *b;
  if (!f) { perror(path); exit(1); }
  fseek(f, 0, SEEK_END);
  *size = ftell(f);
  fseek(f, 0, SEEK_SET);
  b = malloc((size_t)*size);
  if (fread(b, 1, (size_t)*size, f) != (size_t)*size) exit(1);
  fclose(f);
  return b;
}

static void bench_callback(const char *bytes, long size, int reps) {
  wasm_engine_t *engine = wasm_engine_new();
  wasm_store_t *store = wasm_store_new(engine);
  wasm_byte_vec_t bin;
  wasm_byte_vec_new(&bin, (size_t)size, bytes);
  wasm_module_t *module = wasm_module_new(store, &bin);
  wasm_functype_t *ty = wasm_functype_new_1_1(wasm_valtype_new_i32(), wasm_valtype_new_i32());
  wasm_func_t *host = wasm_func_new(store, ty, host_inc_callback);
  wasm_extern_t *imports[1] = { wasm_func_as_extern(host) };
  wasm_extern_vec_t import_vec = WASM_ARRAY_VEC(imports);
  wasm_instance_t *instance = wasm_instance_new(store, module, &import_vec, NULL);
  wasm_extern_vec_t exports;
  wasm_exporttype_vec_t types;
  wasm_func_t *loop = NULL;
  double ns[MAX_REPS];
  wasm_instance_exports(instance, &exports);
  wasm_module_exports(module, &types);
  for (size_t i = 0; i < types.size; i++) {
    const wasm_name_t *n = wasm_exporttype_name(types.data[i]);
    if (n->size >= 9 && !memcmp(n->data, "host_loop", 9)) loop = wasm_extern_as_func(exports.data[i]);
  }
  for (int r = 0; r < reps; r++) {
    wasm_val_t a[1] = { WASM_I32_VAL(CALLS) }, res[1] = { WASM_I32_VAL(0) };
    wasm_val_vec_t av = WASM_ARRAY_VEC(a), rv = WASM_ARRAY_VEC(res);
    double t0 = now_seconds();
    if (wasm_func_call(loop, &av, &rv) || res[0].of.i32 != CALLS) { fprintf(stderr, "callback loop failed\n"); exit(1); }
    ns[r] = (now_seconds() - t0) * 1e9 / CALLS;
  }
  REPORT("roundtrip_callback", median(ns, reps), "ns/call", CALLS);
  wasm_exporttype_vec_delete(&types);
  wasm_extern_vec_delete(&exports);
  wasm_instance_delete(instance);
  wasm_func_delete(host);
  wasm_functype_delete(ty);
  wasm_module_delete(module);
  wasm_byte_vec_delete(&bin);
  wasm_store_delete(store);
  wasm_engine_delete(engine);
}

static void bench_native(char *bytes, long size, int reps) {
  static NativeSymbol natives[] = { { "host_inc", (void *)host_inc_native, "(i)i", NULL } };
  char err[128];
  wasm_module_t module;
  wasm_module_inst_t inst;
  wasm_exec_env_t env;
  wasm_function_inst_t loop, inc;
  double ns[MAX_REPS];
  if (!wasm_runtime_init() || !wasm_runtime_register_natives("env", natives, 1)) exit(1);
  module = wasm_runtime_load((uint8_t *)bytes, (uint32_t)size, err, sizeof err);
  inst = module ? wasm_runtime_instantiate(module, 65536, 0, err, sizeof err) : NULL;
  if (!inst) { fprintf(stderr, "%s\n", err); exit(1); }
  env = wasm_runtime_create_exec_env(inst, 65536);
  loop = wasm_runtime_lookup_function(inst, "host_loop");
  for (int r = 0; r < reps; r++) {
    uint32_t argv[1] = { CALLS };
    double t0 = now_seconds();
    if (!wasm_runtime_call_wasm(env, loop, 1, argv) || argv[0] != CALLS) { fprintf(stderr, "native loop failed\n"); exit(1); }
    ns[r] = (now_seconds() - t0) * 1e9 / CALLS;
  }
  REPORT("roundtrip_native", median(ns, reps), "ns/call", CALLS);
  inc = wasm_runtime_lookup_function(inst, "inc");
  for (int r = 0; r < reps; r++) {
    uint32_t sum = 0;
    double t0 = now_seconds();
    for (uint32_t i = 0; i < CALLS; i++) {
      uint32_t argv[1] = { i };
      if (!wasm_runtime_call_wasm(env, inc, 1, argv)) { fprintf(stderr, "call_wasm failed\n"); exit(1); }
      sum += argv[0] - i;
    }
    ns[r] = (now_seconds() - t0) * 1e9 / CALLS;
    if (sum != CALLS) { fprintf(stderr, "call_wasm: wrong results\n"); exit(1); }
  }
  REPORT("call_wasm", median(ns, reps), "ns/call", CALLS);
  for (int r = 0; r < reps; r++) {
    uint32_t sum = 0;
    double t0 = now_seconds();
    for (uint32_t i = 0; i < CALLS; i++) {
      wasm_val_t arg = { .kind = WASM_I32, .of.i32 = (int32_t)i }, res = { .kind = WASM_I32 };
      if (!wasm_runtime_call_wasm_a(env, inc, 1, &res, 1, &arg)) { fprintf(stderr, "call_wasm_a failed\n"); exit(1); }
      sum += (uint32_t)res.of.i32 - i;
    }
    ns[r] = (now_seconds() - t0) * 1e9 / CALLS;
    if (sum != CALLS) { fprintf(stderr, "call_wasm_a: wrong results\n"); exit(1); }
  }
  REPORT("call_wasm_a", median(ns, reps), "ns/call", CALLS);
  wasm_runtime_destroy_exec_env(env);
  wasm_runtime_deinstantiate(inst);
  wasm_runtime_unload(module);
  wasm_runtime_destroy();
}

int main(int argc, char **argv) {
  long size;
  char *bytes;
  int reps = argc > 2 ? atoi(argv[2]) : 11;
  if (argc < 2 || reps < 1 || reps > MAX_REPS) { fprintf(stderr, "usage: native_calls SMALL.wasm [REPS]\n"); return 2; }
  bytes = read_file(argv[1], &size);
  bench_callback(bytes, size, reps);
  bench_native(bytes, size, reps);
  free(bytes);
  return 0;
}
