/* v128 values through the C API. The reference header's wasm_val_t has no
   room for 128 bits, so a WASM_V128 value's of.ref points at its 16 bytes
   (WASM_V128_VAL in our header): the client's bytes going in, malloc'd
   bytes coming out that the client frees with free(val.of.ref)
   (wasm_val_delete is WAMR's: it frees a malloc'd wasm_val_t, bytes
   included). Checked here: arguments,
   results, a host function taking and returning v128, a v128 global read
   and written by the host, and a NULL v128 argument rejected with a trap.
   Under valgrind, every result's bytes are freed (no leak). */
#include "common.h"

static int swap_calls;

static void lanes(uint8_t out[16], uint32_t a, uint32_t b, uint32_t c,
                  uint32_t d)
{
    uint32_t l[4] = { a, b, c, d };
    memcpy(out, l, 16); /* x86-64 is little-endian, like wasm lanes */
}

static uint32_t lane(const wasm_val_t *v, int i)
{
    uint32_t l[4];
    CHECK(v->kind == WASM_V128, "kind %d, expected WASM_V128", v->kind);
    CHECK(v->of.ref != NULL, "a v128 result without its bytes");
    memcpy(l, v->of.ref, 16);
    return l[i];
}

static wasm_trap_t *swap_cb(const wasm_val_vec_t *args,
                            wasm_val_vec_t *results)
{
    /* Static: the runtime reads it after the callback returns. */
    static uint8_t out[16];
    const uint8_t *in;
    swap_calls++;
    CHECK(args->num_elems == 1 && args->data[0].kind == WASM_V128,
          "host callback argument kind %d", args->data[0].kind);
    in = (const uint8_t *)args->data[0].of.ref;
    CHECK(in != NULL, "host callback v128 argument has no bytes");
    memcpy(out, in + 8, 8);
    memcpy(out + 8, in, 8);
    results->data[0].kind = WASM_V128;
    results->data[0].of.ref = (wasm_ref_t *)out;
    return NULL;
}

int main(int argc, char **argv)
{
    wasm_engine_t *engine;
    wasm_store_t *store;
    wasm_module_t *module;
    wasm_func_t *swap;
    wasm_extern_t *imports[1];
    instance_t inst;
    uint8_t a[16], b[16];

    test_init(argc, argv, "simd");
    engine = wasm_engine_new();
    store = wasm_store_new(engine);
    module = compile_module(store, "simd");
    {
        const wasm_valkind_t k[1] = { WASM_V128 };
        wasm_functype_t *ft = functype_of(k, 1, k, 1);
        CHECK(wasm_valtype_kind(wasm_functype_params(ft)->data[0]) ==
                  WASM_V128,
              "v128 value type");
        swap = wasm_func_new(store, ft, swap_cb);
        wasm_functype_delete(ft);
    }
    imports[0] = wasm_func_as_extern(swap);
    inst = instantiate(store, module, imports, 1);

    /* Arguments in, a result out. */
    lanes(a, 1, 2, 3, 0xffffffffu);
    lanes(b, 10, 20, 30, 2);
    {
        wasm_val_t args[2] = { WASM_V128_VAL(a), WASM_V128_VAL(b) };
        wasm_val_t r[1];
        memset(r, 0x5c, sizeof r); /* result slots are never read */
        EXPECT_NO_TRAP(call(export_func(&inst, "add"), args, 2, r, 1));
        CHECK(lane(&r[0], 0) == 11 && lane(&r[0], 1) == 22 &&
                  lane(&r[0], 2) == 33 && lane(&r[0], 3) == 1,
              "i32x4.add of two v128 arguments: %u %u %u %u",
              lane(&r[0], 0), lane(&r[0], 1), lane(&r[0], 2), lane(&r[0], 3));
        CHECK(lane(&args[0], 3) == 0xffffffffu, "arguments left unchanged");
        free(r[0].of.ref);
    }

    /* Through a host function and back. */
    {
        wasm_val_t args[1] = { WASM_V128_VAL(a) };
        wasm_val_t r[1] = { WASM_INIT_VAL };
        EXPECT_NO_TRAP(call(export_func(&inst, "via_host"), args, 1, r, 1));
        CHECK_EQ_INT(swap_calls, 1, "host function called once");
        CHECK(lane(&r[0], 0) == 4 && lane(&r[0], 1) == 0 &&
                  lane(&r[0], 2) == 2 && lane(&r[0], 3) == 3,
              "swapped halves plus one: %u %u %u %u", lane(&r[0], 0),
              lane(&r[0], 1), lane(&r[0], 2), lane(&r[0], 3));
        /* wasm_val_copy gives the copy its own bytes. */
        {
            wasm_val_t c;
            wasm_val_copy(&c, &r[0]);
            CHECK(c.of.ref != r[0].of.ref && lane(&c, 0) == 4,
                  "a copied v128 has its own bytes");
            free(c.of.ref);
        }
        /* wasm_val_delete of a malloc'd value frees its bytes too. */
        {
            wasm_val_t *heap = malloc(sizeof *heap);
            CHECK(heap != NULL, "malloc");
            *heap = r[0];
            wasm_val_delete(heap);
        }
    }

    /* The host calls its own function directly. */
    {
        wasm_val_t args[1] = { WASM_V128_VAL(b) };
        wasm_val_t r[1] = { WASM_INIT_VAL };
        EXPECT_NO_TRAP(call(swap, args, 1, r, 1));
        CHECK(lane(&r[0], 0) == 30 && lane(&r[0], 2) == 10,
              "direct call of a v128 host function");
        free(r[0].of.ref);
    }

    /* A global read and written by the host, read by wasm. */
    {
        wasm_global_t *g = wasm_extern_as_global(export_named(&inst, "g"));
        wasm_val_t v, r[1] = { WASM_INIT_VAL };
        uint8_t c[16];
        CHECK(g != NULL, "export g is a global");
        wasm_global_get(g, &v);
        CHECK(lane(&v, 0) == 1 && lane(&v, 3) == 4, "initial global value");
        free(v.of.ref);
        lanes(c, 100, 200, 300, 400);
        v = (wasm_val_t)WASM_V128_VAL(c);
        wasm_global_set(g, &v);
        EXPECT_NO_TRAP(call(export_func(&inst, "sum_g"), NULL, 0, r, 1));
        CHECK_EQ_INT(r[0].of.i32, 1000, "wasm reads the host's v128");
    }

    /* A v128 argument must point at its bytes. */
    {
        wasm_val_t args[2] = { WASM_V128_VAL(NULL), WASM_V128_VAL(b) };
        wasm_val_t r[1] = { WASM_INIT_VAL };
        wasm_trap_t *t = call(export_func(&inst, "add"), args, 2, r, 1);
        CHECK(t != NULL, "a NULL v128 argument is rejected");
        wasm_trap_delete(t);
    }

    instance_release(&inst);
    wasm_func_delete(swap);
    wasm_module_delete(module);
    wasm_store_delete(store);
    wasm_engine_delete(engine);
    test_pass();
    return 0;
}
