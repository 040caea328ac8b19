/* Adapter for the standard wasm-c-api ABI (wasm.h), as exported by
 * libwasmtime.so. The wasmtime wheel ships no headers, so this declares just
 * what bench.c uses, with the standard ABI's types:
 *   - vectors are two words, {size_t size; T *data;}, size = element count;
 *   - wasm_val_t is a kind byte then an 8-byte-aligned union (16 bytes), the
 *     same layout as WAMR's;
 *   - modules, instances, ... are opaque structs handled by pointer. */
#ifndef ABI_WASMC_H
#define ABI_WASMC_H

#include <stddef.h>
#include <stdint.h>

typedef char wasm_byte_t;
typedef uint8_t wasm_valkind_t;
enum { WASM_I32 = 0, WASM_I64 = 1, WASM_F32 = 2, WASM_F64 = 3 };

#define OPAQUE(name) typedef struct wasm_##name##_t wasm_##name##_t;
OPAQUE(engine) OPAQUE(store) OPAQUE(module) OPAQUE(instance) OPAQUE(extern)
OPAQUE(func) OPAQUE(memory) OPAQUE(trap) OPAQUE(valtype) OPAQUE(functype)
OPAQUE(exporttype)
#undef OPAQUE

typedef struct wasm_val_t {
  wasm_valkind_t kind;
  union {
    int32_t i32;
    int64_t i64;
    float f32;
    double f64;
    void *ref;
  } of;
} wasm_val_t;

#define VEC_TYPE(name, elem)                                                   \
  typedef struct wasm_##name##_vec_t {                                         \
    size_t size;                                                               \
    elem *data;                                                                \
  } wasm_##name##_vec_t;
VEC_TYPE(byte, wasm_byte_t)
VEC_TYPE(val, wasm_val_t)
VEC_TYPE(valtype, wasm_valtype_t *)
VEC_TYPE(extern, wasm_extern_t *)
VEC_TYPE(exporttype, wasm_exporttype_t *)
#undef VEC_TYPE
typedef wasm_byte_vec_t wasm_name_t;
typedef wasm_byte_vec_t wasm_message_t;

typedef wasm_trap_t *(*wasm_func_callback_t)(const wasm_val_vec_t *args,
                                               wasm_val_vec_t *results);

typedef struct wasm_config_t wasm_config_t;
typedef struct wasmtime_pooling_allocation_config_t wasmtime_pooling_allocation_config_t;
wasm_config_t *wasm_config_new(void);
wasm_engine_t *wasm_engine_new_with_config(wasm_config_t *);
/* wasmtime's own: an engine that instantiates from pre-reserved slots. */
wasmtime_pooling_allocation_config_t *wasmtime_pooling_allocation_config_new(void);
void wasmtime_pooling_allocation_config_delete(wasmtime_pooling_allocation_config_t *);
void wasmtime_pooling_allocation_strategy_set(wasm_config_t *, const wasmtime_pooling_allocation_config_t *);

wasm_engine_t *wasm_engine_new(void);
void wasm_engine_delete(wasm_engine_t *);
wasm_store_t *wasm_store_new(wasm_engine_t *);
void wasm_store_delete(wasm_store_t *);

void wasm_byte_vec_new(wasm_byte_vec_t *out, size_t n, const wasm_byte_t *src);
void wasm_byte_vec_delete(wasm_byte_vec_t *);
void wasm_extern_vec_delete(wasm_extern_vec_t *);
void wasm_exporttype_vec_delete(wasm_exporttype_vec_t *);
void wasm_valtype_vec_new(wasm_valtype_vec_t *out, size_t n, wasm_valtype_t *const src[]);
void wasm_valtype_vec_new_empty(wasm_valtype_vec_t *out);

wasm_valtype_t *wasm_valtype_new(wasm_valkind_t);
wasm_functype_t *wasm_functype_new(wasm_valtype_vec_t *params, wasm_valtype_vec_t *results);
void wasm_functype_delete(wasm_functype_t *);

wasm_module_t *wasm_module_new(wasm_store_t *, const wasm_byte_vec_t *binary);
void wasm_module_delete(wasm_module_t *);
void wasm_module_exports(const wasm_module_t *, wasm_exporttype_vec_t *out);
const wasm_name_t *wasm_exporttype_name(const wasm_exporttype_t *);

wasm_instance_t *wasm_instance_new(wasm_store_t *, const wasm_module_t *,
                                   const wasm_extern_vec_t *imports, wasm_trap_t **trap);
void wasm_instance_delete(wasm_instance_t *);
void wasm_instance_exports(const wasm_instance_t *, wasm_extern_vec_t *out);

wasm_func_t *wasm_func_new(wasm_store_t *, const wasm_functype_t *, wasm_func_callback_t);
void wasm_func_delete(wasm_func_t *);
wasm_trap_t *wasm_func_call(const wasm_func_t *, const wasm_val_vec_t *args,
                            wasm_val_vec_t *results);
wasm_extern_t *wasm_func_as_extern(wasm_func_t *);
wasm_func_t *wasm_extern_as_func(wasm_extern_t *);
wasm_memory_t *wasm_extern_as_memory(wasm_extern_t *);
wasm_byte_t *wasm_memory_data(wasm_memory_t *);
size_t wasm_memory_data_size(const wasm_memory_t *);

void wasm_trap_message(const wasm_trap_t *, wasm_message_t *out);
void wasm_trap_delete(wasm_trap_t *);

#define VEC_FROM(array, n) {(n), (array)}
#define VEC_EMPTY {0, NULL}
#define VEC_COUNT(vec) ((vec).size)

#endif
