/* Forced into WAMR's samples/wasm-c-api-imports/host/example1.c (with
 * -include) for a second run of that unchanged file: its address pool
 * entry "127.0.0.1" has no /MASK, which WAMR 2.4.3 refuses at
 * instantiation (the first run checks that both runtimes refuse it); this
 * gives the entry a mask so the rest of the sample runs. */
#include "wasm_export.h"

static inline void
sample_set_wasi_addr_pool(wasm_module_t module, const char *addr_pool[], uint32_t addr_pool_size)
{
    /* WAMR keeps the array, not a copy. */
    static const char *masked[] = { "127.0.0.1/32" };
    (void)addr_pool;
    (void)addr_pool_size;
    wasm_runtime_set_wasi_addr_pool(module, masked, 1);
}
#define wasm_runtime_set_wasi_addr_pool sample_set_wasi_addr_pool
