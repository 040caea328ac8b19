/* Prints the size and field offsets of every struct of gc_export.h, the
 * size of every typedef and the value of every enum constant. Built once
 * against WAMR's headers and once against ours (capi/tests/layout.rs):
 * the two outputs must be equal. It includes wasm_c_api.h first, as
 * programs using both APIs do. */
#include <stdio.h>
#include <stddef.h>
#include "wasm_c_api.h"
#include "gc_export.h"

#define SIZE(t) printf("sizeof(%s) = %zu\n", #t, sizeof(t))
#define FIELD(t, f) printf("offsetof(%s, %s) = %zu, size %zu\n", #t, #f, offsetof(t, f), sizeof(((t *)0)->f))
#define VALUE(c) printf("%s = %lld\n", #c, (long long)(c))

int main(void) {
  SIZE(wasm_value_type_t); SIZE(wasm_heap_type_t); SIZE(wasm_obj_t); SIZE(wasm_value_t); SIZE(V128);
  SIZE(WASMValue); FIELD(WASMValue, gc_obj); FIELD(WASMValue, array_new_default.length); FIELD(WASMValue, data);
  SIZE(wasm_ref_type_t); FIELD(wasm_ref_type_t, value_type); FIELD(wasm_ref_type_t, nullable);
  FIELD(wasm_ref_type_t, heap_type);
  SIZE(WASMLocalObjectRef); FIELD(WASMLocalObjectRef, prev); FIELD(WASMLocalObjectRef, val);
  SIZE(wasm_local_obj_ref_t);
  SIZE(wasm_defined_type_t); SIZE(wasm_func_type_t); SIZE(wasm_struct_type_t); SIZE(wasm_array_type_t);
  SIZE(wasm_externref_obj_t); SIZE(wasm_anyref_obj_t); SIZE(wasm_struct_obj_t); SIZE(wasm_array_obj_t);
  SIZE(wasm_func_obj_t); SIZE(wasm_stringref_obj_t); SIZE(wasm_i31_obj_t); SIZE(wasm_obj_finalizer_t);

  VALUE(VALUE_TYPE_I32); VALUE(VALUE_TYPE_I64); VALUE(VALUE_TYPE_F32); VALUE(VALUE_TYPE_F64);
  VALUE(VALUE_TYPE_V128); VALUE(VALUE_TYPE_I8); VALUE(VALUE_TYPE_I16); VALUE(VALUE_TYPE_NULLFUNCREF);
  VALUE(VALUE_TYPE_NULLEXTERNREF); VALUE(VALUE_TYPE_NULLREF); VALUE(VALUE_TYPE_FUNCREF);
  VALUE(VALUE_TYPE_EXTERNREF); VALUE(VALUE_TYPE_ANYREF); VALUE(VALUE_TYPE_EQREF); VALUE(VALUE_TYPE_I31REF);
  VALUE(VALUE_TYPE_STRUCTREF); VALUE(VALUE_TYPE_ARRAYREF); VALUE(VALUE_TYPE_HT_NON_NULLABLE_REF);
  VALUE(VALUE_TYPE_HT_NULLABLE_REF); VALUE(VALUE_TYPE_STRINGREF); VALUE(VALUE_TYPE_STRINGVIEWWTF8);
  VALUE(VALUE_TYPE_STRINGVIEWWTF16); VALUE(VALUE_TYPE_STRINGVIEWITER);
  VALUE(HEAP_TYPE_NOFUNC); VALUE(HEAP_TYPE_NOEXTERN); VALUE(HEAP_TYPE_NONE); VALUE(HEAP_TYPE_FUNC);
  VALUE(HEAP_TYPE_EXTERN); VALUE(HEAP_TYPE_ANY); VALUE(HEAP_TYPE_EQ); VALUE(HEAP_TYPE_I31);
  VALUE(HEAP_TYPE_STRUCT); VALUE(HEAP_TYPE_ARRAY); VALUE(HEAP_TYPE_STRINGREF);
  VALUE(HEAP_TYPE_STRINGVIEWWTF8); VALUE(HEAP_TYPE_STRINGVIEWWTF16); VALUE(HEAP_TYPE_STRINGVIEWITER);
  return 0;
}
