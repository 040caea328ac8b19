/* Prints the size and field offsets of every struct of wasm_c_api.h, the
 * size of every typedef and the value of every constant. Built once against
 * WAMR's header and once against ours (capi/tests/layout.rs): the two
 * outputs must be equal. */
#include <stdio.h>
#include <stddef.h>
#include "wasm_c_api.h"

#define SIZE(t) printf("sizeof(%s) = %zu\n", #t, sizeof(t))
#define FIELD(t, f) printf("offsetof(%s, %s) = %zu, size %zu\n", #t, #f, offsetof(t, f), sizeof(((t *)0)->f))
#define VALUE(c) printf("%s = %lld\n", #c, (long long)(c))
#define VEC(name)                        \
  SIZE(wasm_##name##_vec_t);             \
  FIELD(wasm_##name##_vec_t, size);      \
  FIELD(wasm_##name##_vec_t, data);      \
  FIELD(wasm_##name##_vec_t, num_elems); \
  FIELD(wasm_##name##_vec_t, size_of_elem); \
  FIELD(wasm_##name##_vec_t, lock)

int main(void) {
  SIZE(byte_t); SIZE(float32_t); SIZE(float64_t); SIZE(wasm_byte_t);
  SIZE(wasm_name_t); SIZE(wasm_message_t);
  SIZE(wasm_mutability_t); SIZE(wasm_valkind_t); SIZE(wasm_externkind_t);
  SIZE(wasm_table_size_t); SIZE(wasm_memory_pages_t);
  SIZE(wasm_module_t); SIZE(wasm_shared_module_t); SIZE(mem_alloc_type_t);
  SIZE(wasm_func_callback_t); SIZE(wasm_func_callback_with_env_t);

  VEC(byte); VEC(val); VEC(valtype); VEC(functype); VEC(globaltype);
  VEC(tabletype); VEC(memorytype); VEC(externtype); VEC(importtype);
  VEC(exporttype); VEC(frame); VEC(extern);

  SIZE(wasm_limits_t); FIELD(wasm_limits_t, min); FIELD(wasm_limits_t, max);

  SIZE(wasm_val_t); FIELD(wasm_val_t, kind); FIELD(wasm_val_t, _paddings);
  FIELD(wasm_val_t, of); FIELD(wasm_val_t, of.i32); FIELD(wasm_val_t, of.i64);
  FIELD(wasm_val_t, of.f32); FIELD(wasm_val_t, of.f64); FIELD(wasm_val_t, of.ref);

  SIZE(wasm_config_t); FIELD(wasm_config_t, mem_alloc_type);
  FIELD(wasm_config_t, mem_alloc_option); FIELD(wasm_config_t, segue_flags);
  FIELD(wasm_config_t, enable_linux_perf);

  SIZE(MemAllocOption); FIELD(MemAllocOption, pool.heap_buf);
  FIELD(MemAllocOption, pool.heap_size); FIELD(MemAllocOption, allocator.malloc_func);
  FIELD(MemAllocOption, allocator.realloc_func); FIELD(MemAllocOption, allocator.free_func);
  FIELD(MemAllocOption, allocator.user_data);

  SIZE(InstantiationArgs); FIELD(InstantiationArgs, default_stack_size);
  FIELD(InstantiationArgs, host_managed_heap_size); FIELD(InstantiationArgs, max_memory_pages);

  SIZE(LoadArgs); FIELD(LoadArgs, name); FIELD(LoadArgs, clone_wasm_binary);
  FIELD(LoadArgs, wasm_binary_freeable); FIELD(LoadArgs, no_resolve);

  VALUE(WASM_CONST); VALUE(WASM_VAR);
  VALUE(WASM_I32); VALUE(WASM_I64); VALUE(WASM_F32); VALUE(WASM_F64); VALUE(WASM_V128);
  VALUE(WASM_EXTERNREF); VALUE(WASM_FUNCREF);
  VALUE(WASM_EXTERN_FUNC); VALUE(WASM_EXTERN_GLOBAL); VALUE(WASM_EXTERN_TABLE); VALUE(WASM_EXTERN_MEMORY);
  VALUE(Alloc_With_Pool); VALUE(Alloc_With_Allocator); VALUE(Alloc_With_System_Allocator);
  VALUE(wasm_limits_max_default); VALUE(MEMORY_PAGE_SIZE); VALUE(KILOBYTE(3));

  /* The convenience initialisers build the same values. */
  wasm_val_t vals[] = { WASM_I32_VAL(-7), WASM_I64_VAL(1LL << 40), WASM_F32_VAL(1.5f),
                        WASM_F64_VAL(-2.25), WASM_REF_VAL(NULL), WASM_INIT_VAL };
  for (size_t i = 0; i < sizeof(vals) / sizeof(*vals); i++) {
    const unsigned char *b = (const unsigned char *)&vals[i];
    printf("val %zu:", i);
    for (size_t j = 0; j < sizeof(wasm_val_t); j++) printf(" %02x", b[j]);
    printf("\n");
  }
  wasm_val_vec_t empty = WASM_EMPTY_VEC, array = WASM_ARRAY_VEC(vals);
  printf("empty vec %zu %p %zu %zu %p\n", empty.size, (void *)empty.data, empty.num_elems,
         empty.size_of_elem, empty.lock);
  printf("array vec %zu %zu %zu %d\n", array.size, array.num_elems, array.size_of_elem, array.data == vals);
  return 0;
}
