/* Prints the size and field offsets of every struct of wasm_export.h and
 * lib_export.h, the size of every typedef and the value of every enum
 * constant. Built once against WAMR's headers and once against ours
 * (capi/tests/layout.rs): the two outputs must be equal. It includes
 * wasm_c_api.h too, first, as programs using both APIs do (the definitions
 * the two headers share are guarded, so wasm_c_api.h's win: as with
 * WAMR's headers, mem_alloc_usage_t is then not defined). */
#include <stdio.h>
#include <stddef.h>
#include "wasm_c_api.h"
#include "wasm_export.h"
#include "lib_export.h"

#define SIZE(t) printf("sizeof(%s) = %zu\n", #t, sizeof(t))
#define FIELD(t, f) printf("offsetof(%s, %s) = %zu, size %zu\n", #t, #f, offsetof(t, f), sizeof(((t *)0)->f))
#define VALUE(c) printf("%s = %lld\n", #c, (long long)(c))

int main(void) {
  SIZE(NativeSymbol); FIELD(NativeSymbol, symbol); FIELD(NativeSymbol, func_ptr);
  FIELD(NativeSymbol, signature); FIELD(NativeSymbol, attachment);

  SIZE(wasm_module_t); SIZE(wasm_module_inst_t); SIZE(wasm_function_inst_t); SIZE(wasm_memory_inst_t);
  SIZE(wasm_exec_env_t); SIZE(wasm_shared_heap_t); SIZE(wasm_func_type_t); SIZE(wasm_table_type_t);
  SIZE(wasm_global_type_t); SIZE(wasm_memory_type_t); SIZE(wasm_section_list_t); SIZE(aot_section_list_t);
  SIZE(wasm_thread_t); SIZE(wasm_thread_callback_t); SIZE(module_reader); SIZE(module_destroyer);
  SIZE(enlarge_memory_error_callback_t);
  SIZE(package_type_t); SIZE(mem_alloc_type_t); SIZE(RunningMode); SIZE(log_level_t);
  SIZE(wasm_import_export_kind_t); SIZE(enlarge_memory_error_reason_t); SIZE(wasm_valkind_t);

  SIZE(wasm_import_t); FIELD(wasm_import_t, module_name); FIELD(wasm_import_t, name); FIELD(wasm_import_t, kind);
  FIELD(wasm_import_t, linked); FIELD(wasm_import_t, u); FIELD(wasm_import_t, u.func_type);
  FIELD(wasm_import_t, u.table_type); FIELD(wasm_import_t, u.global_type); FIELD(wasm_import_t, u.memory_type);
  SIZE(wasm_export_t); FIELD(wasm_export_t, name); FIELD(wasm_export_t, kind); FIELD(wasm_export_t, u);
  FIELD(wasm_export_t, u.func_type); FIELD(wasm_export_t, u.memory_type);

  SIZE(WASMCApiFrame); FIELD(WASMCApiFrame, instance); FIELD(WASMCApiFrame, module_offset);
  FIELD(WASMCApiFrame, func_index); FIELD(WASMCApiFrame, func_offset); FIELD(WASMCApiFrame, func_name_wp);
  FIELD(WASMCApiFrame, sp); FIELD(WASMCApiFrame, frame_ref); FIELD(WASMCApiFrame, lp);
  SIZE(struct wasm_frame_t);

  SIZE(wasm_section_t); SIZE(aot_section_t); FIELD(wasm_section_t, next); FIELD(wasm_section_t, section_type);
  FIELD(wasm_section_t, section_body); FIELD(wasm_section_t, section_body_size);

  SIZE(MemAllocOption); FIELD(MemAllocOption, pool.heap_buf); FIELD(MemAllocOption, pool.heap_size);
  FIELD(MemAllocOption, allocator.malloc_func); FIELD(MemAllocOption, allocator.realloc_func);
  FIELD(MemAllocOption, allocator.free_func); FIELD(MemAllocOption, allocator.user_data);

  SIZE(mem_alloc_info_t); FIELD(mem_alloc_info_t, total_size); FIELD(mem_alloc_info_t, total_free_size);
  FIELD(mem_alloc_info_t, highmark_size);

  SIZE(RuntimeInitArgs); FIELD(RuntimeInitArgs, mem_alloc_type); FIELD(RuntimeInitArgs, mem_alloc_option);
  FIELD(RuntimeInitArgs, native_module_name); FIELD(RuntimeInitArgs, native_symbols);
  FIELD(RuntimeInitArgs, n_native_symbols); FIELD(RuntimeInitArgs, max_thread_num); FIELD(RuntimeInitArgs, ip_addr);
  FIELD(RuntimeInitArgs, unused); FIELD(RuntimeInitArgs, instance_port);
  FIELD(RuntimeInitArgs, fast_jit_code_cache_size); FIELD(RuntimeInitArgs, gc_heap_size);
  FIELD(RuntimeInitArgs, running_mode); FIELD(RuntimeInitArgs, llvm_jit_opt_level);
  FIELD(RuntimeInitArgs, llvm_jit_size_level); FIELD(RuntimeInitArgs, segue_flags);
  FIELD(RuntimeInitArgs, enable_linux_perf);

  SIZE(LoadArgs); FIELD(LoadArgs, name); FIELD(LoadArgs, clone_wasm_binary); FIELD(LoadArgs, wasm_binary_freeable);
  FIELD(LoadArgs, no_resolve);
  SIZE(InstantiationArgs); FIELD(InstantiationArgs, default_stack_size);
  FIELD(InstantiationArgs, host_managed_heap_size); FIELD(InstantiationArgs, max_memory_pages);

  SIZE(wasm_val_t); FIELD(wasm_val_t, kind); FIELD(wasm_val_t, of); FIELD(wasm_val_t, of.i32);
  FIELD(wasm_val_t, of.i64); FIELD(wasm_val_t, of.f32); FIELD(wasm_val_t, of.f64); FIELD(wasm_val_t, of.ref);

  SIZE(wasm_global_inst_t); FIELD(wasm_global_inst_t, kind); FIELD(wasm_global_inst_t, is_mutable);
  FIELD(wasm_global_inst_t, global_data);
  SIZE(wasm_table_inst_t); FIELD(wasm_table_inst_t, elem_kind); FIELD(wasm_table_inst_t, cur_size);
  FIELD(wasm_table_inst_t, max_size); FIELD(wasm_table_inst_t, elems);
  SIZE(SharedHeapInitArgs); FIELD(SharedHeapInitArgs, size); FIELD(SharedHeapInitArgs, pre_allocated_addr);

  VALUE(WASM_IMPORT_EXPORT_KIND_FUNC); VALUE(WASM_IMPORT_EXPORT_KIND_TABLE);
  VALUE(WASM_IMPORT_EXPORT_KIND_MEMORY); VALUE(WASM_IMPORT_EXPORT_KIND_GLOBAL);
  VALUE(Wasm_Module_Bytecode); VALUE(Wasm_Module_AoT); VALUE(Package_Type_Unknown);
  VALUE(Alloc_With_Pool); VALUE(Alloc_With_Allocator); VALUE(Alloc_With_System_Allocator);
  VALUE(Mode_Interp); VALUE(Mode_Fast_JIT); VALUE(Mode_LLVM_JIT); VALUE(Mode_Multi_Tier_JIT);
  VALUE(WASM_LOG_LEVEL_FATAL); VALUE(WASM_LOG_LEVEL_ERROR); VALUE(WASM_LOG_LEVEL_WARNING);
  VALUE(WASM_LOG_LEVEL_DEBUG); VALUE(WASM_LOG_LEVEL_VERBOSE);
  VALUE(INTERNAL_ERROR); VALUE(MAX_SIZE_REACHED);
  VALUE(WASM_I32); VALUE(WASM_I64); VALUE(WASM_F32); VALUE(WASM_F64); VALUE(WASM_V128);
  VALUE(WASM_EXTERNREF); VALUE(WASM_FUNCREF);

  /* The macros expand to the same calls and initialisers. */
  {
    static NativeSymbol syms[] = { EXPORT_WASM_API_WITH_SIG(printf, "($*)i"),
                                   EXPORT_WASM_API_WITH_ATT(puts, "($)i", (void *)8) };
    printf("syms: %s %s %p %s %s %p\n", syms[0].symbol, syms[0].signature, syms[0].attachment, syms[1].symbol,
           syms[1].signature, syms[1].attachment);
    uint64_t raw[2] = { 7, 9 }, *args = raw;
    native_raw_return_type(int32_t, args);
    native_raw_get_arg(uint64_t, a, args);
    native_raw_get_arg(uint64_t, b, args);
    native_raw_set_return((int32_t)(a + b));
    printf("raw: %u\n", (unsigned)raw[0]);
  }
  return 0;
}
