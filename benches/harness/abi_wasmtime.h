/* The part of wasmtime's own C API (wasmtime.h, wasi.h) that program.c
 * uses. The wasmtime wheel ships no headers, so the declarations are ours;
 * the layouts are those of wasmtime 50's headers as the wheel's own ctypes
 * bindings (wasmtime/_bindings.py, generated from them) spell them:
 *   - wasmtime_func_t     {uint64_t store_id; void *__private;}
 *   - wasmtime_instance_t {uint64_t store_id; size_t __private;}
 *   - wasmtime_extern_t   {uint8_t kind; union of func, global (20 bytes),
 *                          table, memory (24), pointer, tag} (32 bytes);
 *                          only `func` is read here, the union is padded.
 * The standard wasm.h part (engine, traps, byte vectors) is as in
 * abi_wasmc.h. */
#ifndef ABI_WASMTIME_H
#define ABI_WASMTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct wasm_engine_t wasm_engine_t;
typedef struct wasm_trap_t wasm_trap_t;
typedef struct wasmtime_error wasmtime_error_t;
typedef struct wasmtime_store wasmtime_store_t;
typedef struct wasmtime_context wasmtime_context_t;
typedef struct wasmtime_module wasmtime_module_t;
typedef struct wasmtime_linker wasmtime_linker_t;
typedef struct wasi_config_t wasi_config_t;

typedef struct {
    size_t size;
    char *data;
} wasm_name_t;
typedef wasm_name_t wasm_message_t;

typedef struct {
    uint64_t store_id;
    void *private_;
} wasmtime_func_t;

typedef struct {
    uint64_t store_id;
    size_t private_;
} wasmtime_instance_t;

#define WASMTIME_EXTERN_FUNC 0
typedef struct {
    uint8_t kind;
    union {
        wasmtime_func_t func;
        uint8_t bytes[24];
    } of;
} wasmtime_extern_t;

wasm_engine_t *wasm_engine_new(void);
/* For WASMTIME_PROFILE (program.c): wasmtime_profiling_strategy_t's values. */
typedef struct wasm_config_t wasm_config_t;
wasm_config_t *wasm_config_new(void);
void wasmtime_config_profiler_set(wasm_config_t *, uint8_t strategy);
wasm_engine_t *wasm_engine_new_with_config(wasm_config_t *);
#define WASMTIME_PROFILING_STRATEGY_JITDUMP 1
#define WASMTIME_PROFILING_STRATEGY_PERFMAP 3
void wasm_trap_message(const wasm_trap_t *, wasm_message_t *out);

void wasmtime_error_message(const wasmtime_error_t *, wasm_name_t *out);
bool wasmtime_error_exit_status(const wasmtime_error_t *, int *status);
void wasmtime_error_delete(wasmtime_error_t *);

wasmtime_store_t *wasmtime_store_new(wasm_engine_t *, void *data, void (*finalizer)(void *));
wasmtime_context_t *wasmtime_store_context(wasmtime_store_t *);
void wasmtime_store_delete(wasmtime_store_t *);

wasmtime_error_t *wasmtime_module_new(wasm_engine_t *, const uint8_t *wasm, size_t len, wasmtime_module_t **out);
void wasmtime_module_delete(wasmtime_module_t *);

wasi_config_t *wasi_config_new(void);
bool wasi_config_set_argv(wasi_config_t *, size_t argc, const char *argv[]);
void wasi_config_set_stdout_custom(wasi_config_t *, ptrdiff_t (*callback)(void *, const unsigned char *, size_t),
                                   void *data, void (*finalizer)(void *));
void wasi_config_inherit_stderr(wasi_config_t *);
wasmtime_error_t *wasmtime_context_set_wasi(wasmtime_context_t *, wasi_config_t *);

wasmtime_linker_t *wasmtime_linker_new(wasm_engine_t *);
wasmtime_error_t *wasmtime_linker_define_wasi(wasmtime_linker_t *);
wasmtime_error_t *wasmtime_linker_instantiate(const wasmtime_linker_t *, wasmtime_context_t *,
                                              const wasmtime_module_t *, wasmtime_instance_t *out,
                                              wasm_trap_t **trap);
bool wasmtime_instance_export_get(wasmtime_context_t *, const wasmtime_instance_t *, const char *name,
                                  size_t name_len, wasmtime_extern_t *out);
wasmtime_error_t *wasmtime_func_call(wasmtime_context_t *, const wasmtime_func_t *, const void *args, size_t nargs,
                                     void *results, size_t nresults, wasm_trap_t **trap);

#endif
