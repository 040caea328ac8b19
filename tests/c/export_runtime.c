/* The runtime as a whole: initialisation counted as in WAMR, full_init's
 * allocator options (the client's allocator honoured, a pool served by the
 * C allocator), runtime memory, running modes, version, package queries,
 * the thread environment and the native stack checks. */
#include "export_common.h"

static int mallocs, reallocs, frees;
static void *my_malloc(unsigned int size) { mallocs++; return malloc(size); }
static void *my_realloc(void *p, unsigned int size) { reallocs++; return realloc(p, size); }
static void my_free(void *p) { frees++; free(p); }

int main(int argc, char **argv)
{
    RuntimeInitArgs init;
    uint32_t major = 0, minor = 0, patch = 0;
    char *p;
    void *a;
    static char pool[65536];
    static const uint8_t wasm_header[8] = { 0, 'a', 's', 'm', 1, 0, 0, 0 };
    static const uint8_t aot_header[8] = { 0, 'a', 'o', 't', 6, 0, 0, 0 };
    wasm_module_t m;
    wasm_module_inst_t inst;
    wasm_exec_env_t env;

    test_init(argc, argv, "export_runtime");
    CHECK(wasm_runtime_init() && wasm_runtime_init(), "init twice");
    wasm_runtime_destroy();
    CHECK(wasm_runtime_thread_env_inited(), "the initialising thread's environment is initialised");
    wasm_runtime_get_version(&major, &minor, &patch);
    CHECK(major == 2 && minor == 4 && patch == 3, "version %u.%u.%u", major, minor, patch);
    wasm_runtime_get_version(NULL, &minor, NULL);

    /* Runtime memory. */
    p = wasm_runtime_malloc(0);
    CHECK(p != NULL, "malloc(0) gives a byte, as in WAMR");
    wasm_runtime_free(p);
    p = wasm_runtime_malloc(4);
    memcpy(p, "abc", 4);
    p = wasm_runtime_realloc(p, 4096);
    CHECK(p && strcmp(p, "abc") == 0, "realloc keeps the contents");
    wasm_runtime_free(p);
    wasm_runtime_free(NULL);
    p = wasm_runtime_realloc(NULL, 8);
    CHECK(p != NULL, "realloc(NULL) allocates");
    wasm_runtime_free(p);
    CHECK(wasm_runtime_aligned_alloc(64, 16) == NULL, "aligned_alloc needs the pool mode, as in WAMR");
    {
        mem_alloc_info_t info;
        CHECK(!wasm_runtime_get_mem_alloc_info(&info), "no pool to report on");
    }

    /* Running modes: cranewasm compiles everything with Cranelift; Mode_Interp
       is that with instruction counting compiled in. */
    CHECK(wasm_runtime_is_running_mode_supported(Mode_LLVM_JIT) && wasm_runtime_is_running_mode_supported(Mode_Interp),
          "LLVM JIT and interpreter modes");
    CHECK(!wasm_runtime_is_running_mode_supported(Mode_Fast_JIT) && !wasm_runtime_is_running_mode_supported(Mode_Multi_Tier_JIT),
          "no fast JIT");
    CHECK(!wasm_runtime_set_default_running_mode(Mode_Fast_JIT), "an unsupported default");
    CHECK(wasm_runtime_set_default_running_mode(Mode_LLVM_JIT), "the supported default");
    m = load_wat("(module (func (export \"f\") (result i32) (i32.const 1)))");
    inst = instantiate_module(m, 0);
    CHECK_EQ_INT(wasm_runtime_get_running_mode(inst), Mode_LLVM_JIT, "the instance's mode");
    CHECK(!wasm_runtime_set_running_mode(inst, Mode_Interp), "not compiled with counting: no Mode_Interp");
    CHECK(!wasm_runtime_set_running_mode(inst, Mode_Fast_JIT), "nor the fast JIT");
    CHECK(wasm_runtime_set_running_mode(inst, Mode_LLVM_JIT), "set the instance's mode");

    /* Package queries. */
    CHECK_EQ_INT(get_package_type(wasm_header, 8), Wasm_Module_Bytecode, "bytecode");
    CHECK_EQ_INT(wasm_runtime_get_file_package_type(aot_header, 8), Wasm_Module_AoT, "AOT");
    CHECK_EQ_INT(get_package_type((const uint8_t *)"abcd", 4), Package_Type_Unknown, "unknown");
    CHECK_EQ_INT(get_package_type(wasm_header, 3), Package_Type_Unknown, "too short");
    CHECK_EQ_INT(wasm_runtime_get_file_package_version(wasm_header, 8), 1, "bytecode version");
    CHECK_EQ_INT(wasm_runtime_get_file_package_version(aot_header, 8), 6, "AOT version");
    CHECK_EQ_INT(wasm_runtime_get_file_package_version(wasm_header, 7), 0, "too short for a version");
    CHECK_EQ_INT(wasm_runtime_get_current_package_version(Wasm_Module_Bytecode), 1, "current bytecode version");
    /* AOT is cranewasm's compiled files: their format version, which
     * export_exec.c checks against a file `wasm_module_serialize` wrote. */
    CHECK(wasm_runtime_get_current_package_version(Wasm_Module_AoT) >= 1, "current AOT version");
    CHECK_EQ_INT(wasm_runtime_get_current_package_version(Package_Type_Unknown), 0, "unknown");
    CHECK_EQ_INT(wasm_runtime_get_module_package_type(m), Wasm_Module_Bytecode, "module type");
    CHECK_EQ_INT(wasm_runtime_get_module_package_version(m), 1, "module version");
    CHECK(!wasm_runtime_is_xip_file(aot_header, 8), "no XIP files");

    /* The native stack: plenty left here; not 1 GiB. */
    env = wasm_runtime_create_exec_env(inst, 65536);
    CHECK(wasm_runtime_detect_native_stack_overflow(env), "stack left");
    CHECK(wasm_runtime_detect_native_stack_overflow_size(env, 4096), "4 KiB of stack left");
    CHECK(!wasm_runtime_detect_native_stack_overflow_size(env, 1u << 30), "not 1 GiB");
    CHECK_EXCEPTION(inst, "Exception: native stack overflow");
    CHECK(!wasm_runtime_detect_native_stack_overflow(NULL), "a NULL exec env");
    CHECK(wasm_runtime_begin_blocking_op(env), "blocking operations need nothing without threads");
    wasm_runtime_end_blocking_op(env);
    wasm_runtime_destroy_exec_env(env);
    wasm_runtime_deinstantiate(inst);
    wasm_runtime_unload(m);

    /* The thread environment. */
    wasm_runtime_destroy_thread_env();
    CHECK(!wasm_runtime_thread_env_inited(), "destroyed");
    CHECK(wasm_runtime_init_thread_env() && wasm_runtime_thread_env_inited(), "initialised again");

    /* full_init: once the count drops to 0, with the client's allocator. */
    wasm_runtime_destroy();
    CHECK(!wasm_runtime_full_init(NULL), "NULL arguments");
    memset(&init, 0, sizeof init);
    init.mem_alloc_type = Alloc_With_System_Allocator;
    init.running_mode = Mode_Fast_JIT;
    CHECK(!wasm_runtime_full_init(&init), "a running mode cranewasm does not have");
    memset(&init, 0, sizeof init);
    init.mem_alloc_type = Alloc_With_Allocator;
    init.mem_alloc_option.allocator.malloc_func = (void *)my_malloc;
    init.mem_alloc_option.allocator.realloc_func = (void *)my_realloc;
    init.mem_alloc_option.allocator.free_func = (void *)my_free;
    init.max_thread_num = 8;
    CHECK(wasm_runtime_full_init(&init), "full_init with an allocator");
    p = wasm_runtime_malloc(16);
    p = wasm_runtime_realloc(p, 32);
    wasm_runtime_free(p);
    CHECK(mallocs == 1 && reallocs == 1 && frees == 1, "the client's allocator serves runtime memory (%d %d %d)",
          mallocs, reallocs, frees);
    wasm_runtime_destroy();

    memset(&init, 0, sizeof init);
    init.mem_alloc_type = Alloc_With_Pool;
    init.mem_alloc_option.pool.heap_buf = pool;
    init.mem_alloc_option.pool.heap_size = sizeof pool;
    CHECK(wasm_runtime_full_init(&init), "full_init with a pool");
    a = wasm_runtime_aligned_alloc(256, 64);
    CHECK(a != NULL && ((uintptr_t)a & 63) == 0, "aligned_alloc in pool mode");
    wasm_runtime_free(a);
    CHECK(wasm_runtime_aligned_alloc(100, 64) == NULL, "a size that is not a multiple of the alignment");
    CHECK(wasm_runtime_aligned_alloc(64, 3) == NULL && wasm_runtime_aligned_alloc(64, 4) == NULL,
          "alignments that are not powers of two from 8");
    p = wasm_runtime_malloc(8);
    CHECK(p != NULL, "the pool mode is served by the C allocator");
    wasm_runtime_free(p);
    wasm_runtime_destroy();
    wasm_runtime_destroy(); /* one too many: ignored */
    test_pass();
    return 0;
}
