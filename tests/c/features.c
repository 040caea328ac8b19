/* Proposal switches (cranewasm_config_set_feature): all on by default; a
   configuration with tail calls and SIMD off makes an engine that rejects
   modules using them and accepts the rest. The process has one engine,
   which keeps the configuration it was first made with, so this test is a
   program of its own. */
#include "common.h"

int main(int argc, char **argv)
{
    const char *tail = "(module (func $f (result i32) (i32.const 1))"
                       " (func (export \"g\") (result i32) (return_call $f)))";
    const char *simd = "(module (func (export \"v\") (result v128)"
                       " (v128.const i64x2 1 2)))";
    const char *plain = "(module (func (export \"p\") (result i32)"
                        " (i32.const 7)))";
    const char *multi = "(module (memory 1) (memory 1))";
    wasm_config_t *config;
    wasm_engine_t *engine;
    wasm_store_t *store;
    wasm_module_t *m;

    test_init(argc, argv, "features");
    config = wasm_config_new();
    CHECK(!cranewasm_config_set_feature(NULL, CRANEWASM_FEATURE_SIMD, false),
          "NULL config refused");
    CHECK(!cranewasm_config_set_feature(config, 99, false),
          "unknown feature refused");
    CHECK(cranewasm_config_set_feature(config, CRANEWASM_FEATURE_TAIL_CALL,
                                       false),
          "tail calls off");
    CHECK(cranewasm_config_set_feature(config, CRANEWASM_FEATURE_SIMD, false),
          "SIMD off");
    /* Switched off and on again: stays on. */
    CHECK(cranewasm_config_set_feature(config, CRANEWASM_FEATURE_MULTI_MEMORY,
                                       false) &&
              cranewasm_config_set_feature(
                  config, CRANEWASM_FEATURE_MULTI_MEMORY, true),
          "multi-memory off then on");
    engine = wasm_engine_new_with_config(config);
    wasm_config_delete(config);
    CHECK(engine != NULL, "wasm_engine_new_with_config");
    store = wasm_store_new(engine);

    CHECK(try_compile_text(store, tail) == NULL, "return_call with tail calls off");
    CHECK(try_compile_text(store, simd) == NULL, "v128 with SIMD off");
    m = try_compile_text(store, plain);
    CHECK(m != NULL, "a module without them still compiles");
    wasm_module_delete(m);
    m = try_compile_text(store, multi);
    CHECK(m != NULL, "multi-memory, switched back on, compiles");
    wasm_module_delete(m);

    wasm_store_delete(store);
    wasm_engine_delete(engine);
    test_pass();
    return 0;
}
