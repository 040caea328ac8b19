/* Adapter for WAMR's wasm_c_api.h ABI (our libiwasm.so).
 *
 * WAMR's vectors carry five fields {size, data, num_elems, size_of_elem,
 * lock}: `size` is the capacity and `num_elems` the number in use. */
#ifndef ABI_WAMR_H
#define ABI_WAMR_H

#include "wasm_c_api.h"

#define VEC_FROM(array, n) {(n), (array), (n), sizeof(*(array)), NULL}
#define VEC_EMPTY {0, NULL, 0, 0, NULL}
#define VEC_COUNT(vec) ((vec).num_elems)

#endif
