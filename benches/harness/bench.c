/* The benchmark logic, written once and built once per C ABI:
 *
 *   -DABI_WAMR   WAMR's wasm_c_api.h, linked with our libiwasm.so   ("ours")
 *   -DABI_WASMC  the standard wasm.h ABI, linked with libwasmtime.so
 *
 * Everything ABI-specific (vector layout) lives in abi_wamr.h / abi_wasmc.h.
 *
 *   bench kernel NAME FILE.wasm N REPS   time the export run(N) of a kernel
 *                                        (after one untimed warm-up run)
 *   bench overhead SMALL.wasm LARGE.wasm DATA.wasm REPS
 *                                        compile, instantiate, call costs
 *   bench idle SMALL.wasm N              what N idle instances of the small
 *                                        module cost: resident memory and
 *                                        mappings per instance (one store,
 *                                        one module, after one instance)
 *   bench pooling SMALL.wasm DATA.wasm REPS
 *                                        the instantiate cases again, as
 *                                        instantiate_*_pooling: wasmtime's
 *                                        engine with its pooling allocator
 *                                        (ours has one allocator, whose
 *                                        reservations are pooled anyway)
 *
 * Output: one "RESULT <case> <median> <unit> <check>" line per case (see
 * timing.h); <check> must agree between runtimes. Any failure (a module that
 * does not compile, a trap, a wrong result) prints a message and exits 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(ABI_WAMR)
#include "abi_wamr.h"
#elif defined(ABI_WASMC)
#include "abi_wasmc.h"
#else
#error "define ABI_WAMR or ABI_WASMC"
#endif

#include "timing.h"

static wasm_engine_t *engine;

static void fail(const char *what, const char *detail) {
  fprintf(stderr, "bench: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  exit(1);
}

static void check_trap(wasm_trap_t *trap, const char *what) {
  if (!trap) return;
  wasm_message_t message;
  wasm_trap_message(trap, &message);
  fprintf(stderr, "bench: %s trapped: %.*s\n", what, (int)VEC_COUNT(message), message.data);
  exit(1);
}

static void read_wasm(const char *path, wasm_byte_vec_t *out) {
  FILE *file = fopen(path, "rb");
  if (!file) fail("cannot open", path);
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  char *bytes = malloc((size_t)size);
  if (!bytes || fread(bytes, 1, (size_t)size, file) != (size_t)size) fail("cannot read", path);
  fclose(file);
  wasm_byte_vec_new(out, (size_t)size, bytes);
  free(bytes);
}

static wasm_module_t *compile(wasm_store_t *store, const wasm_byte_vec_t *binary, const char *what) {
  wasm_module_t *module = wasm_module_new(store, binary);
  if (!module) fail("module failed to compile", what);
  return module;
}

static wasm_instance_t *instantiate(wasm_store_t *store, wasm_module_t *module,
                                    wasm_extern_t **imports, size_t import_count) {
  wasm_extern_vec_t import_vec = VEC_FROM(imports, import_count);
  wasm_trap_t *trap = NULL;
  wasm_instance_t *instance = wasm_instance_new(store, module, &import_vec, &trap);
  check_trap(trap, "instantiation");
  if (!instance) fail("instantiation failed", NULL);
  return instance;
}

/* Export names from the runtime may end in a NUL that is counted in the
 * length (WAMR does this); accept a name with or without it. */
static int name_is(const wasm_name_t *name, const char *want) {
  size_t len = strlen(want), have = VEC_COUNT(*name);
  if (have == len + 1 && name->data[len] == '\0') have = len;
  return have == len && memcmp(name->data, want, len) == 0;
}

/* The instance's export called `name`: module exports and instance exports
 * come in the same order. The caller keeps `exports` alive while using it. */
static wasm_extern_t *find_export(wasm_module_t *module, wasm_extern_vec_t *exports, const char *name) {
  wasm_exporttype_vec_t types;
  wasm_module_exports(module, &types);
  wasm_extern_t *found = NULL;
  for (size_t i = 0; i < VEC_COUNT(types) && i < VEC_COUNT(*exports); i++)
    if (name_is(wasm_exporttype_name(types.data[i]), name)) found = exports->data[i];
  wasm_exporttype_vec_delete(&types);
  if (!found) fail("missing export", name);
  return found;
}

static wasm_func_t *export_func(wasm_module_t *module, wasm_extern_vec_t *exports, const char *name) {
  wasm_func_t *func = wasm_extern_as_func(find_export(module, exports, name));
  if (!func) fail("export is not a function", name);
  return func;
}

static int32_t call_i32_i32(wasm_func_t *func, int32_t arg, const char *what) {
  wasm_val_t args[1] = {{.kind = WASM_I32, .of = {.i32 = arg}}};
  wasm_val_t results[1] = {{.kind = WASM_I32, .of = {.i32 = 0}}};
  wasm_val_vec_t args_vec = VEC_FROM(args, 1), results_vec = VEC_FROM(results, 1);
  check_trap(wasm_func_call(func, &args_vec, &results_vec), what);
  return results[0].of.i32;
}

/* ---- kernels ------------------------------------------------------------ */

static void bench_kernel(const char *name, const char *path, uint32_t n, int reps) {
  wasm_store_t *store = wasm_store_new(engine);
  wasm_byte_vec_t binary;
  read_wasm(path, &binary);
  wasm_module_t *module = compile(store, &binary, path);
  wasm_instance_t *instance = instantiate(store, module, NULL, 0);
  wasm_extern_vec_t exports;
  wasm_instance_exports(instance, &exports);
  wasm_func_t *run = export_func(module, &exports, "run");

  wasm_val_t args[1] = {{.kind = WASM_I32, .of = {.i32 = (int32_t)n}}};
  wasm_val_t results[1] = {{.kind = WASM_I64, .of = {.i64 = 0}}};
  wasm_val_vec_t args_vec = VEC_FROM(args, 1), results_vec = VEC_FROM(results, 1);
  double ms[MAX_REPS];
  uint64_t first = 0;
  /* Run -1 is an untimed warm-up: first-touch page faults and cold caches
   * are not what the kernels measure. */
  for (int r = -1; r < reps; r++) {
    double t0 = now_seconds();
    wasm_trap_t *trap = wasm_func_call(run, &args_vec, &results_vec);
    double elapsed = now_seconds() - t0;
    check_trap(trap, name);
    if (results[0].kind != WASM_I64) fail("run did not return an i64", name);
    uint64_t check = (uint64_t)results[0].of.i64;
    if (r == -1) first = check;
    else if (check != first) fail("checksum changed between runs", name);
    if (r >= 0) ms[r] = elapsed * 1e3;
  }
  char case_name[128];
  snprintf(case_name, sizeof case_name, "kernel:%s", name);
  REPORT(case_name, median(ms, reps), "ms", first);

  wasm_extern_vec_delete(&exports);
  wasm_instance_delete(instance);
  wasm_module_delete(module);
  wasm_byte_vec_delete(&binary);
  wasm_store_delete(store);
}

/* ---- overhead ------------------------------------------------------------ */

static wasm_trap_t *host_inc(const wasm_val_vec_t *args, wasm_val_vec_t *results) {
  results->data[0].kind = WASM_I32;
  results->data[0].of.i32 = args->data[0].of.i32 + 1;
  return NULL;
}

static wasm_functype_t *functype_i32_i32(void) {
  wasm_valtype_t *param = wasm_valtype_new(WASM_I32), *result = wasm_valtype_new(WASM_I32);
  wasm_valtype_vec_t params, results;
  wasm_valtype_vec_new(&params, 1, &param);
  wasm_valtype_vec_new(&results, 1, &result);
  return wasm_functype_new(&params, &results);
}

/* The small module instantiated with its one import, host_inc. */
struct small {
  wasm_store_t *store;
  wasm_module_t *module;
  wasm_func_t *host;
  wasm_instance_t *instance;
  wasm_extern_vec_t exports;
};

static void small_open(struct small *s, const wasm_byte_vec_t *binary) {
  s->store = wasm_store_new(engine);
  s->module = compile(s->store, binary, "small module");
  wasm_functype_t *type = functype_i32_i32();
  s->host = wasm_func_new(s->store, type, host_inc);
  wasm_functype_delete(type);
  wasm_extern_t *imports[1] = {wasm_func_as_extern(s->host)};
  s->instance = instantiate(s->store, s->module, imports, 1);
  wasm_instance_exports(s->instance, &s->exports);
}

static void small_close(struct small *s) {
  wasm_extern_vec_delete(&s->exports);
  wasm_instance_delete(s->instance);
  wasm_func_delete(s->host);
  wasm_module_delete(s->module);
  wasm_store_delete(s->store);
}

/* Compile the small module: per-compile time in microseconds. */
static void bench_compile_small(const wasm_byte_vec_t *binary, int reps) {
  enum { PER_REP = 50 };
  double us[MAX_REPS];
  wasm_store_t *store = wasm_store_new(engine);
  for (int r = 0; r < reps; r++) {
    double total = 0;
    for (int i = 0; i < PER_REP; i++) {
      double t0 = now_seconds();
      wasm_module_t *module = compile(store, binary, "small module");
      total += now_seconds() - t0;
      wasm_module_delete(module);
    }
    us[r] = total / PER_REP * 1e6;
  }
  wasm_store_delete(store);
  REPORT("compile_small", median(us, reps), "us", VEC_COUNT(*binary));
}

/* Compile the generated multi-megabyte module, then run its main once so a
 * miscompilation shows up as a differing check value. */
static void bench_compile_large(const char *path, int reps) {
  wasm_byte_vec_t binary;
  read_wasm(path, &binary);
  double ms[MAX_REPS];
  wasm_store_t *store = wasm_store_new(engine);
  wasm_module_t *module = NULL;
  for (int r = 0; r < reps; r++) {
    if (module) wasm_module_delete(module);
    double t0 = now_seconds();
    module = compile(store, &binary, path);
    ms[r] = (now_seconds() - t0) * 1e3;
  }
  wasm_instance_t *instance = instantiate(store, module, NULL, 0);
  wasm_extern_vec_t exports;
  wasm_instance_exports(instance, &exports);
  uint32_t check = (uint32_t)call_i32_i32(export_func(module, &exports, "main"), 7, "large main");
  REPORT("compile_large", median(ms, reps), "ms", check);
  wasm_extern_vec_delete(&exports);
  wasm_instance_delete(instance);
  wasm_module_delete(module);
  wasm_store_delete(store);
  wasm_byte_vec_delete(&binary);
}

/* Instantiate the (already compiled) small module with its host import. A
 * fresh store per repetition keeps the number of live instances per store
 * bounded whatever the runtime's reclamation policy. */
/* Appended to the instantiate cases' names ("" or "_pooling"). */
static const char *case_suffix = "";

static void report_instantiate(const char *base, double value, unsigned long long check) {
  char case_name[64];
  snprintf(case_name, sizeof case_name, "%s%s", base, case_suffix);
  REPORT(case_name, value, "us", check);
}

static void bench_instantiate(const wasm_byte_vec_t *binary, int reps) {
  enum { PER_REP = 100 };
  double us[MAX_REPS];
  for (int r = 0; r < reps; r++) {
    struct small s;
    small_open(&s, binary);
    wasm_extern_t *imports[1] = {wasm_func_as_extern(s.host)};
    double total = 0;
    for (int i = 0; i < PER_REP; i++) {
      double t0 = now_seconds();
      wasm_instance_t *instance = instantiate(s.store, s.module, imports, 1);
      total += now_seconds() - t0;
      wasm_instance_delete(instance);
    }
    us[r] = total / PER_REP * 1e6;
    small_close(&s);
  }
  report_instantiate("instantiate_small", median(us, reps), PER_REP);
}

/* Instantiate the data module (gen_data_module.py: 64 MiB memory, 1 MiB of
 * data in 16 segments) with no imports: what data segments cost. Only
 * wasm_instance_new is timed. A first, untimed instantiation reads a word
 * of every segment through the export "probe" for the check (and lets a
 * runtime that prepares per-module state on first use, as our memory
 * images, do so outside the timing, as wasmtime does at compile time). */
static void bench_instantiate_data(const char *path, int reps) {
  enum { PER_REP = 20, SEGMENTS = 16, SEGMENT_BYTES = 64 << 10 };
  wasm_byte_vec_t binary;
  read_wasm(path, &binary);
  wasm_store_t *store = wasm_store_new(engine);
  wasm_module_t *module = compile(store, &binary, path);
  uint32_t check = 0;
  wasm_instance_t *first = instantiate(store, module, NULL, 0);
  wasm_extern_vec_t exports;
  wasm_instance_exports(first, &exports);
  wasm_func_t *probe = export_func(module, &exports, "probe");
  for (int k = 0; k < SEGMENTS; k++) check += (uint32_t)call_i32_i32(probe, 1024 + k * SEGMENT_BYTES + 4096, "probe");
  wasm_extern_vec_delete(&exports);
  wasm_instance_delete(first);
  double us[MAX_REPS];
  for (int r = 0; r < reps; r++) {
    double total = 0;
    for (int i = 0; i < PER_REP; i++) {
      double t0 = now_seconds();
      wasm_instance_t *instance = instantiate(store, module, NULL, 0);
      total += now_seconds() - t0;
      wasm_instance_delete(instance);
    }
    us[r] = total / PER_REP * 1e6;
  }
  report_instantiate("instantiate_64mib", median(us, reps), check);
  wasm_module_delete(module);
  wasm_store_delete(store);
  wasm_byte_vec_delete(&binary);
}

/* wasm_func_call of the i32 -> i32 export "inc", host -> wasm. */
static void bench_call(struct small *s, int reps) {
  enum { CALLS = 1000000 };
  wasm_func_t *inc = export_func(s->module, &s->exports, "inc");
  wasm_val_t args[1] = {{.kind = WASM_I32, .of = {.i32 = 0}}};
  wasm_val_t results[1] = {{.kind = WASM_I32, .of = {.i32 = 0}}};
  wasm_val_vec_t args_vec = VEC_FROM(args, 1), results_vec = VEC_FROM(results, 1);
  double ns[MAX_REPS];
  uint64_t check = 0;
  for (int r = 0; r < reps; r++) {
    check = 0;
    double t0 = now_seconds();
    for (int i = 0; i < CALLS; i++) {
      args[0].of.i32 = i;
      wasm_trap_t *trap = wasm_func_call(inc, &args_vec, &results_vec);
      if (trap) check_trap(trap, "inc");
      check += (uint32_t)results[0].of.i32;
    }
    ns[r] = (now_seconds() - t0) * 1e9 / CALLS;
  }
  /* sum of i + 1 for i < CALLS */
  if (check != (uint64_t)CALLS * (CALLS + 1) / 2) fail("inc returned wrong values", NULL);
  REPORT("call_i32", median(ns, reps), "ns/call", check);
}

/* wasm -> host -> wasm: one call to host_loop(n) makes n calls of the
 * wasm_func_new callback host_inc. */
static void bench_host_roundtrip(struct small *s, int reps) {
  enum { CALLS = 1000000 };
  wasm_func_t *loop = export_func(s->module, &s->exports, "host_loop");
  double ns[MAX_REPS];
  int32_t result = 0;
  for (int r = 0; r < reps; r++) {
    double t0 = now_seconds();
    result = call_i32_i32(loop, CALLS, "host_loop");
    ns[r] = (now_seconds() - t0) * 1e9 / CALLS;
    if (result != CALLS) fail("host_loop returned a wrong count", NULL);
  }
  REPORT("host_roundtrip", median(ns, reps), "ns/call", result);
}

/* wasm_memory_data + wasm_memory_data_size around each byte the host
 * touches, as a host function that does not cache the pointer would. */
static void bench_memory_data(struct small *s, int reps) {
  enum { ACCESSES = 4000000 };
  wasm_memory_t *memory = wasm_extern_as_memory(find_export(s->module, &s->exports, "memory"));
  if (!memory) fail("export memory is not a memory", NULL);
  double ns[MAX_REPS];
  uint64_t check = 0;
  for (int r = 0; r < reps; r++) {
    check = 0;
    double t0 = now_seconds();
    for (uint32_t i = 0; i < ACCESSES; i++) {
      wasm_byte_t *data = wasm_memory_data(memory);
      size_t size = wasm_memory_data_size(memory);
      /* Only the first page: runtimes may size memory differently (WAMR
       * can append its app heap), and the check value must not depend on it. */
      size_t at = (i * 2654435761u) & 0xffff;
      if (at >= size) fail("memory smaller than one page", NULL);
      data[at] = (wasm_byte_t)(data[at] + 1);
      check += (uint8_t)data[at];
    }
    ns[r] = (now_seconds() - t0) * 1e9 / ACCESSES;
  }
  /* The wasm side must see what the host wrote. */
  wasm_func_t *load = export_func(s->module, &s->exports, "load");
  uint8_t host_view = (uint8_t)wasm_memory_data(memory)[0];
  if (call_i32_i32(load, 0, "load") != host_view) fail("wasm and host disagree on memory", NULL);
  REPORT("memory_data", median(ns, reps), "ns/access", check);
}

static void bench_overhead(const char *small_path, const char *large_path, const char *data_path, int reps) {
  wasm_byte_vec_t small_binary;
  read_wasm(small_path, &small_binary);
  bench_compile_small(&small_binary, reps);
  bench_compile_large(large_path, reps);
  bench_instantiate(&small_binary, reps);
  bench_instantiate_data(data_path, reps);
  struct small s;
  small_open(&s, &small_binary);
  bench_call(&s, reps);
  bench_host_roundtrip(&s, reps);
  bench_memory_data(&s, reps);
  small_close(&s);
  wasm_byte_vec_delete(&small_binary);
}

static int parse_reps(const char *text) {
  int reps = atoi(text);
  if (reps < 1 || reps > MAX_REPS) fail("REPS must be between 1 and 64", text);
  return reps;
}

/* The instantiate cases on an engine that pools instances: wasmtime's
   pooling allocator; ours has only its default engine. */
static void bench_pooling(const char *small_path, const char *data_path, int reps) {
  wasm_byte_vec_t small_binary;
#if defined(ABI_WASMC)
  wasm_engine_delete(engine);
  wasm_config_t *config = wasm_config_new();
  wasmtime_pooling_allocation_config_t *pooling = wasmtime_pooling_allocation_config_new();
  wasmtime_pooling_allocation_strategy_set(config, pooling);
  wasmtime_pooling_allocation_config_delete(pooling);
  engine = wasm_engine_new_with_config(config);
  if (!engine) fail("wasm_engine_new_with_config (pooling) failed", NULL);
#endif
  case_suffix = "_pooling";
  read_wasm(small_path, &small_binary);
  bench_instantiate(&small_binary, reps);
  bench_instantiate_data(data_path, reps);
  wasm_byte_vec_delete(&small_binary);
}

/* ---- idle cost ------------------------------------------------------------ */

/* Resident kilobytes (statm's second field) and the count of mappings. */
static void process_footprint(long *rss_kb, long *maps) {
  FILE *f = fopen("/proc/self/statm", "r");
  long size = 0, resident = 0;
  if (!f || fscanf(f, "%ld %ld", &size, &resident) != 2) fail("cannot read /proc/self/statm", NULL);
  fclose(f);
  *rss_kb = resident * (sysconf(_SC_PAGESIZE) / 1024);
  f = fopen("/proc/self/maps", "r");
  if (!f) fail("cannot read /proc/self/maps", NULL);
  long lines = 0;
  for (int c; (c = fgetc(f)) != EOF;) lines += c == '\n';
  fclose(f);
  *maps = lines;
}

/* N instances of the small module (1 page of memory, a table, a global,
 * a data and an element segment, one host import) in one store, idle:
 * the growth of resident memory and of mappings from the first instance
 * to the last, per instance. Each instance's export is called once at
 * the end, as a check that all of them work. */
static void bench_idle(const char *small_path, long n) {
  if (n < 2) fail("idle needs at least 2 instances", NULL);
  wasm_byte_vec_t binary;
  read_wasm(small_path, &binary);
  wasm_store_t *store = wasm_store_new(engine);
  wasm_module_t *module = compile(store, &binary, "small module");
  wasm_functype_t *type = functype_i32_i32();
  wasm_func_t *host = wasm_func_new(store, type, host_inc);
  wasm_functype_delete(type);
  wasm_extern_t *imports[1] = {wasm_func_as_extern(host)};
  wasm_instance_t **instances = calloc((size_t)n, sizeof(*instances));
  long rss0 = 0, maps0 = 0, rss1 = 0, maps1 = 0;
  for (long i = 0; i < n; i++) {
    instances[i] = instantiate(store, module, imports, 1);
    if (i == 0) process_footprint(&rss0, &maps0);
  }
  process_footprint(&rss1, &maps1);
  unsigned long long check = 0;
  for (long i = 0; i < n; i++) {
    wasm_extern_vec_t exports;
    wasm_instance_exports(instances[i], &exports);
    check += (unsigned long long)call_i32_i32(export_func(module, &exports, "inc"), (int32_t)i, "inc");
    wasm_extern_vec_delete(&exports);
  }
  printf("RESULT idle_rss_per_instance %.2f KiB %llu\n", (double)(rss1 - rss0) / (double)(n - 1), check);
  printf("RESULT idle_maps_per_instance %.2f mappings %llu\n", (double)(maps1 - maps0) / (double)(n - 1), check);
  for (long i = 0; i < n; i++) wasm_instance_delete(instances[i]);
  free(instances);
  wasm_func_delete(host);
  wasm_module_delete(module);
  wasm_store_delete(store);
  wasm_byte_vec_delete(&binary);
}

int main(int argc, char **argv) {
  int kernel = argc == 6 && strcmp(argv[1], "kernel") == 0;
  int overhead = argc == 6 && strcmp(argv[1], "overhead") == 0;
  int pooling = argc == 5 && strcmp(argv[1], "pooling") == 0;
  int idle = argc == 4 && strcmp(argv[1], "idle") == 0;
  if (!kernel && !overhead && !pooling && !idle) {
    fprintf(stderr,
            "usage: %s kernel NAME FILE.wasm N REPS\n"
            "       %s overhead SMALL.wasm LARGE.wasm DATA.wasm REPS\n"
            "       %s pooling SMALL.wasm DATA.wasm REPS\n"
            "       %s idle SMALL.wasm N\n",
            argv[0], argv[0], argv[0], argv[0]);
    return 2;
  }
  engine = wasm_engine_new();
  if (!engine) fail("wasm_engine_new failed", NULL);
  if (kernel)
    bench_kernel(argv[2], argv[3], (uint32_t)strtoul(argv[4], NULL, 10), parse_reps(argv[5]));
  else if (overhead)
    bench_overhead(argv[2], argv[3], argv[4], parse_reps(argv[5]));
  else if (idle)
    bench_idle(argv[2], strtol(argv[3], NULL, 10));
  else
    bench_pooling(argv[2], argv[3], parse_reps(argv[4]));
  wasm_engine_delete(engine);
  return 0;
}
