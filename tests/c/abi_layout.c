/* The layouts and enum values ABI.md fixes, as the header under test
   declares them, and value kinds through wasm_valtype_new/kind: every valid
   kind round-trips, every other byte gives NULL. */
#include <stddef.h>

#include "common.h"

#define VEC_LAYOUT(T)                                                       \
    do {                                                                    \
        CHECK_EQ_INT(sizeof(T), 40, #T " size");                            \
        CHECK_EQ_INT(offsetof(T, size), 0, #T ".size offset");              \
        CHECK_EQ_INT(offsetof(T, data), 8, #T ".data offset");              \
        CHECK_EQ_INT(offsetof(T, num_elems), 16, #T ".num_elems offset");   \
        CHECK_EQ_INT(offsetof(T, size_of_elem), 24, #T ".size_of_elem");    \
        CHECK_EQ_INT(offsetof(T, lock), 32, #T ".lock offset");             \
    } while (0)

int main(int argc, char **argv)
{
    unsigned k;
    wasm_engine_t *engine;
    test_init(argc, argv, "abi_layout");
    /* WAMR allocates even type objects through its engine: make one. */
    engine = wasm_engine_new();
    CHECK(engine != NULL, "wasm_engine_new");

    /* Layouts (x86-64). */
    CHECK_EQ_INT(sizeof(wasm_val_t), 16, "sizeof(wasm_val_t)");
    CHECK_EQ_INT(offsetof(wasm_val_t, kind), 0, "wasm_val_t.kind");
    CHECK_EQ_INT(offsetof(wasm_val_t, of), 8, "wasm_val_t.of");
    CHECK_EQ_INT(sizeof(((wasm_val_t *)0)->of), 8, "wasm_val_t.of size");
    CHECK_EQ_INT(sizeof(wasm_limits_t), 8, "sizeof(wasm_limits_t)");
    CHECK_EQ_INT(offsetof(wasm_limits_t, max), 4, "wasm_limits_t.max");
    CHECK_EQ_INT(wasm_limits_max_default, 0xffffffffu, "no maximum");
    CHECK_EQ_INT(MEMORY_PAGE_SIZE, 65536, "page size");
    CHECK_EQ_INT(sizeof(wasm_valkind_t), 1, "wasm_valkind_t");
    CHECK_EQ_INT(sizeof(wasm_externkind_t), 1, "wasm_externkind_t");
    CHECK_EQ_INT(sizeof(wasm_mutability_t), 1, "wasm_mutability_t");
    CHECK_EQ_INT(sizeof(wasm_module_t), sizeof(void *),
                 "wasm_module_t is a pointer typedef");
    VEC_LAYOUT(wasm_byte_vec_t);
    VEC_LAYOUT(wasm_val_vec_t);
    VEC_LAYOUT(wasm_valtype_vec_t);
    VEC_LAYOUT(wasm_functype_vec_t);
    VEC_LAYOUT(wasm_globaltype_vec_t);
    VEC_LAYOUT(wasm_tabletype_vec_t);
    VEC_LAYOUT(wasm_memorytype_vec_t);
    VEC_LAYOUT(wasm_externtype_vec_t);
    VEC_LAYOUT(wasm_importtype_vec_t);
    VEC_LAYOUT(wasm_exporttype_vec_t);
    VEC_LAYOUT(wasm_frame_vec_t);
    VEC_LAYOUT(wasm_extern_vec_t);
    CHECK_EQ_INT(sizeof(InstantiationArgs), 12, "InstantiationArgs");
    CHECK_EQ_INT(offsetof(InstantiationArgs, max_memory_pages), 8,
                 "InstantiationArgs.max_memory_pages");
    CHECK_EQ_INT(offsetof(LoadArgs, clone_wasm_binary), 8,
                 "LoadArgs.clone_wasm_binary");
    CHECK_EQ_INT(offsetof(LoadArgs, no_resolve), 10, "LoadArgs.no_resolve");

    /* Enum values. */
    CHECK(WASM_I32 == 0 && WASM_I64 == 1 && WASM_F32 == 2 && WASM_F64 == 3 &&
              WASM_V128 == 4 && WASM_EXTERNREF == 128 && WASM_FUNCREF == 129,
          "wasm_valkind_t values");
    CHECK(WASM_EXTERN_FUNC == 0 && WASM_EXTERN_GLOBAL == 1 &&
              WASM_EXTERN_TABLE == 2 && WASM_EXTERN_MEMORY == 3,
          "wasm_externkind_t values");
    CHECK(WASM_CONST == 0 && WASM_VAR == 1, "wasm_mutability_t values");

    /* Value kinds: the seven valid ones round-trip, anything else is NULL. */
    for (k = 0; k < 256; k++) {
        int valid = k <= 4 || k == 128 || k == 129;
        wasm_valtype_t *t = wasm_valtype_new((wasm_valkind_t)k);
        if (valid) {
            wasm_valtype_t *c;
            CHECK(t != NULL, "wasm_valtype_new(%u) returned NULL", k);
            CHECK_EQ_INT(wasm_valtype_kind(t), k, "kind round trip");
            CHECK(wasm_valtype_is_ref(t) == (k >= 128), "is_ref(%u)", k);
            c = wasm_valtype_copy(t);
            CHECK(c != NULL && wasm_valtype_kind(c) == k, "copy of %u", k);
            wasm_valtype_delete(c);
            wasm_valtype_delete(t);
        } else {
            CHECK(t == NULL, "wasm_valtype_new(%u) is not NULL", k);
        }
    }

    /* Global types keep their mutability; other values are refused. */
    {
        wasm_globaltype_t *g =
            wasm_globaltype_new(wasm_valtype_new(WASM_F64), WASM_VAR);
        CHECK(g != NULL && wasm_globaltype_mutability(g) == WASM_VAR,
              "var global type");
        wasm_globaltype_delete(g);
        g = wasm_globaltype_new(wasm_valtype_new(WASM_F64), WASM_CONST);
        CHECK(g != NULL && wasm_globaltype_mutability(g) == WASM_CONST,
              "const global type");
        wasm_globaltype_delete(g);
    }

    wasm_engine_delete(engine);
    test_pass();
    return 0;
}
