/* A small stand-in for WAMR's internal bh_platform.h, over the public API
 * only: what the helpers and samples in ../shared/clients/wamr-samples
 * (bh_read_file.c, the samples' hosts) use of it. WAMR's own header pulls
 * in its whole platform layer; the samples need these few names. */
#ifndef CRANEWASM_BH_PLATFORM_SHIM_H
#define CRANEWASM_BH_PLATFORM_SHIM_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasm_export.h"

typedef uint8_t uint8;
typedef int8_t int8;
typedef uint16_t uint16;
typedef int16_t int16;
typedef uint32_t uint32;
typedef int32_t int32;
typedef uint64_t uint64;
typedef int64_t int64;
typedef float float32;
typedef double float64;

#define BH_MALLOC wasm_runtime_malloc
#define BH_FREE wasm_runtime_free

#endif
