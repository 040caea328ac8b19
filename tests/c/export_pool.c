/* Alloc_With_Pool bounds what the runtime allocates for the embedder, as in
 * WAMR, whose basic sample passes a 512 KiB pool: a module that does not
 * fit fails to load with WAMR's "WASM module load failed: allocate memory
 * failed"; instances (with their exec env's stack) fill the pool until
 * instantiation fails with "WASM module instantiate failed: allocate
 * memory failed"; wasm_runtime_malloc and wasm_runtime_create_exec_env
 * answer NULL when the pool has no room; what is freed comes back; and
 * wasm_runtime_get_mem_alloc_info reports the pool (and, without one,
 * answers false, as WAMR's). Linear memories are not charged, as WAMR maps
 * them outside its pool: a module with a 1 MiB memory instantiates in a
 * 512 KiB pool. */
#include "export_common.h"

#define POOL_SIZE (512 * 1024)
#define STACK 8092

static char pool_buf[POOL_SIZE];

static uint32_t pool_free(void)
{
    mem_alloc_info_t info;
    CHECK(wasm_runtime_get_mem_alloc_info(&info), "mem_alloc_info with a pool");
    CHECK(info.total_size == POOL_SIZE, "total %u", info.total_size);
    CHECK(info.highmark_size >= info.total_size - info.total_free_size, "highmark %u", info.highmark_size);
    return info.total_free_size;
}

/* A module whose binary is `data_bytes` of data segment into a memory of
   `pages` pages (its maximum too). */
static uint8_t *data_module(uint32_t pages, uint32_t data_bytes, uint32_t *size)
{
    uint8_t *b = malloc(data_bytes + 64), *p = b;
    uint32_t body = data_bytes + 1 + 3 + 5 + 1; /* count, memidx+i32.const+end, length */
    CHECK(b != NULL, "malloc");
    memcpy(p, "\0asm\1\0\0\0", 8), p += 8;
    /* A maximum as well: instances reserve no more address space than
       that (valgrind's is small). */
    *p++ = 5, *p++ = 6, *p++ = 1, *p++ = 1, *p++ = 0x80 | (pages & 0x7f), *p++ = (uint8_t)(pages >> 7);
    *p++ = 0x80 | (pages & 0x7f), *p++ = (uint8_t)(pages >> 7);
    *p++ = 11;
    for (uint32_t v = body, i = 0; i < 5; i++, v >>= 7)
        *p++ = (uint8_t)((v & 0x7f) | (i < 4 ? 0x80 : 0));
    *p++ = 1, *p++ = 0, *p++ = 0x41, *p++ = 0, *p++ = 0x0b;
    for (uint32_t v = data_bytes, i = 0; i < 5; i++, v >>= 7)
        *p++ = (uint8_t)((v & 0x7f) | (i < 4 ? 0x80 : 0));
    memset(p, 7, data_bytes), p += data_bytes;
    *size = (uint32_t)(p - b);
    return b;
}

int main(int argc, char **argv)
{
    RuntimeInitArgs init;
    mem_alloc_info_t info;
    char err[256] = "";
    uint8_t *big;
    uint32_t size, before, n = 0;
    wasm_module_t m, bigm;
    wasm_module_inst_t insts[256];
    wasm_exec_env_t env;
    void *block;

    test_init(argc, argv, "export_pool");
    memset(&init, 0, sizeof init);
    init.mem_alloc_type = Alloc_With_Pool;
    init.mem_alloc_option.pool.heap_buf = pool_buf;
    init.mem_alloc_option.pool.heap_size = sizeof pool_buf;
    CHECK(wasm_runtime_full_init(&init), "full_init with a pool");
    CHECK(pool_free() == POOL_SIZE, "an empty pool at first");
    CHECK(!wasm_runtime_get_mem_alloc_info(NULL), "NULL info");

    /* A module of 600 KiB does not fit: WAMR's load error. */
    big = data_module(16, 600 * 1024, &size);
    bigm = wasm_runtime_load(big, size, err, sizeof err);
    CHECK(bigm == NULL, "a 600 KiB module loaded into a 512 KiB pool");
    CHECK(strcmp(err, "WASM module load failed: allocate memory failed") == 0, "error: %s", err);
    CHECK(pool_free() == POOL_SIZE, "a failed load holds nothing");
    free(big);

    /* A small module with a 1 MiB memory: loaded and instantiated (linear
       memory is outside the pool, as in WAMR). */
    big = data_module(16, 1024, &size);
    m = wasm_runtime_load(big, size, err, sizeof err);
    CHECK(m != NULL, "load: %s", err);
    before = pool_free();
    CHECK(before < POOL_SIZE, "the module is charged");
    insts[n] = wasm_runtime_instantiate(m, STACK, 0, err, sizeof err);
    CHECK(insts[n] != NULL, "instantiate: %s", err);
    n++;
    CHECK(pool_free() < before, "the instance is charged");

    /* Instances until the pool is full: WAMR's instantiation error. */
    while (n < 256 && (insts[n] = wasm_runtime_instantiate(m, STACK, 0, err, sizeof err)) != NULL)
        n++;
    CHECK(n > 4 && n < 256, "%u instances in 512 KiB", n);
    CHECK(strcmp(err, "WASM module instantiate failed: allocate memory failed") == 0, "error: %s", err);
    CHECK(wasm_runtime_malloc(64 * 1024) == NULL, "malloc of 64 KiB from a full pool");
    CHECK(wasm_runtime_create_exec_env(insts[0], 64 * 1024) == NULL, "an exec env with a 64 KiB stack");
    CHECK(wasm_runtime_get_mem_alloc_info(&info) && info.highmark_size > POOL_SIZE - 64 * 1024, "highmark %u",
          info.highmark_size);

    /* Deinstantiating gives it all back. */
    while (n > 0)
        wasm_runtime_deinstantiate(insts[--n]);
    CHECK(pool_free() == before, "after deinstantiation: %u free, %u before", pool_free(), before);
    insts[0] = wasm_runtime_instantiate(m, STACK, 0, err, sizeof err);
    CHECK(insts[0] != NULL, "instantiate again: %s", err);
    env = wasm_runtime_create_exec_env(insts[0], STACK);
    CHECK(env != NULL, "an exec env");
    wasm_runtime_destroy_exec_env(env);
    wasm_runtime_deinstantiate(insts[0]);

    /* wasm_runtime_malloc draws from the pool; free and realloc settle it. */
    CHECK(wasm_runtime_malloc(POOL_SIZE) == NULL, "a block as large as the pool");
    block = wasm_runtime_malloc(100 * 1024);
    CHECK(block != NULL, "a block of 100 KiB");
    CHECK(pool_free() <= before - 100 * 1024, "the block is charged");
    block = wasm_runtime_realloc(block, 200 * 1024);
    CHECK(block != NULL, "grown to 200 KiB");
    CHECK(pool_free() <= before - 200 * 1024, "the grown block is charged");
    CHECK(wasm_runtime_realloc(block, POOL_SIZE) == NULL, "grown past the pool");
    wasm_runtime_free(block);
    CHECK(pool_free() == before, "after free: %u free, %u before", pool_free(), before);

    wasm_runtime_unload(m);
    CHECK(pool_free() == POOL_SIZE, "after unload: %u", pool_free());
    free(big);
    wasm_runtime_destroy();

    /* Without a pool there is nothing to report, as in WAMR. */
    memset(&init, 0, sizeof init);
    init.mem_alloc_type = Alloc_With_System_Allocator;
    CHECK(wasm_runtime_full_init(&init), "full_init with the system allocator");
    CHECK(!wasm_runtime_get_mem_alloc_info(&info), "mem_alloc_info without a pool");
    block = wasm_runtime_malloc(2 * POOL_SIZE);
    CHECK(block != NULL, "without a pool, no bound");
    wasm_runtime_free(block);
    wasm_runtime_destroy();
    test_pass();
    return 0;
}
