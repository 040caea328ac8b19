/* Linear memory through the C API: wasm_memory_data/data_size/size/grow on
   an exported memory, the host and wasm seeing each other's writes, growing
   past the maximum failing, out-of-bounds accesses trapping with "out of
   bounds memory access" (store still usable), the data pointer staying put
   across growth (ABI.md: memory reserved up front on 64-bit hosts), and a
   host-created memory imported by a module. */
#include "common.h"

#define PAGE 65536u
#define OOB "Exception: out of bounds memory access"

static int32_t call1_i32(const instance_t *inst, const char *name, int32_t a)
{
    int32_t out = 0;
    EXPECT_NO_TRAP(call_i32(export_func(inst, name), a, &out));
    return out;
}

static int32_t call0_i32(const instance_t *inst, const char *name)
{
    wasm_val_t r[1] = { WASM_INIT_VAL };
    EXPECT_NO_TRAP(call(export_func(inst, name), NULL, 0, r, 1));
    return r[0].of.i32;
}

static wasm_trap_t *store8(const instance_t *inst, int32_t addr, int32_t v)
{
    wasm_val_t a[2] = { WASM_I32_VAL(addr), WASM_I32_VAL(v) };
    return call(export_func(inst, "store8"), a, 2, NULL, 0);
}

static void check_limits(const wasm_memory_t *mem, uint32_t min, uint32_t max,
                         const char *what)
{
    wasm_memorytype_t *mt = wasm_memory_type(mem);
    const wasm_limits_t *l;
    CHECK(mt != NULL, "%s: wasm_memory_type", what);
    l = wasm_memorytype_limits(mt);
    CHECK(l != NULL, "%s: limits", what);
    CHECK(l->min == min && l->max == max,
          "%s: limits {%u, %u}, expected {%u, %u}", what, l->min, l->max,
          min, max);
    wasm_memorytype_delete(mt);
}

int main(int argc, char **argv)
{
    wasm_engine_t *engine;
    wasm_store_t *store;
    wasm_module_t *module;
    instance_t inst;
    wasm_memory_t *mem;
    byte_t *base;

    test_init(argc, argv, "memory");
    engine = wasm_engine_new();
    store = wasm_store_new(engine);

    /* --- An exported memory: 2 pages, at most 5. --- */
    module = compile_module(store, "memory_export");
    inst = instantiate(store, module, NULL, 0);
    mem = wasm_extern_as_memory(export_named(&inst, "mem"));
    CHECK(mem != NULL, "export mem is not a memory");
    CHECK_EQ_INT(wasm_extern_kind(export_named(&inst, "mem")),
                 WASM_EXTERN_MEMORY, "extern kind");
    check_limits(mem, 2, 5, "exported memory type");
    CHECK_EQ_INT(wasm_memory_size(mem), 2, "pages");
    CHECK_EQ_INT(wasm_memory_data_size(mem), 2 * PAGE, "bytes");
    base = wasm_memory_data(mem);
    CHECK(base != NULL, "wasm_memory_data");

    /* The data segment is where wasm put it; fresh memory is zero. */
    CHECK(base[0x1000] == 1 && base[0x1001] == 2 && base[0x1002] == 3 &&
              base[0x1003] == 4,
          "data segment bytes at 0x1000");
    CHECK(base[0] == 0 && base[2 * PAGE - 1] == 0, "fresh memory is zero");
    CHECK_EQ_INT(call1_i32(&inst, "load32", 0x1000), 0x04030201,
                 "little-endian load of the data segment");

    /* Host writes, wasm reads; wasm writes, host reads. */
    base[0x2000] = (byte_t)0xab;
    base[2 * PAGE - 1] = 0x5a;
    CHECK_EQ_INT(call1_i32(&inst, "load8", 0x2000), 0xab, "host write");
    CHECK_EQ_INT(call1_i32(&inst, "load8", 2 * PAGE - 1), 0x5a,
                 "host write to the last byte");
    EXPECT_NO_TRAP(store8(&inst, 0x3000, 0x77));
    CHECK_EQ_INT((uint8_t)base[0x3000], 0x77, "host sees wasm's store");
    {
        wasm_val_t a[2] = { WASM_I32_VAL(0x4000),
                            WASM_I64_VAL(0x0102030405060708LL) };
        EXPECT_NO_TRAP(call(export_func(&inst, "store64"), a, 2, NULL, 0));
        CHECK(base[0x4000] == 8 && base[0x4007] == 1,
              "host sees wasm's i64 store, little-endian");
    }

    /* Out-of-bounds accesses trap, write nothing, and leave the store
       usable. */
    EXPECT_TRAP(call_i32(export_func(&inst, "load8"), 2 * PAGE, NULL), OOB);
    EXPECT_TRAP(call_i32(export_func(&inst, "load32"), 2 * PAGE - 2, NULL),
                OOB);
    EXPECT_TRAP(call_i32(export_func(&inst, "load8"), -1, NULL), OOB);
    EXPECT_TRAP(store8(&inst, 2 * PAGE, 1), OOB);
    {
        wasm_val_t a[3] = { WASM_I32_VAL(2 * PAGE - 4), WASM_I32_VAL(0xee),
                            WASM_I32_VAL(8) };
        EXPECT_TRAP(call(export_func(&inst, "fill"), a, 3, NULL, 0), OOB);
        /* Bulk memory: a fill that is out of bounds writes no byte. */
        CHECK((uint8_t)base[2 * PAGE - 4] != 0xee,
              "out-of-bounds memory.fill wrote in bounds");
    }
    CHECK_EQ_INT(call1_i32(&inst, "load8", 0x2000), 0xab,
                 "store usable after out-of-bounds traps");

    /* Growing from the host: by 1 page, the pointer stays put, old contents
       stay, the new page is zero and now accessible. */
    CHECK(wasm_memory_grow(mem, 1), "grow by 1 page (2 -> 3 of max 5)");
    CHECK_EQ_INT(wasm_memory_size(mem), 3, "pages after grow");
    CHECK_EQ_INT(wasm_memory_data_size(mem), 3 * PAGE, "bytes after grow");
    CHECK(wasm_memory_data(mem) == base,
          "data pointer moved on grow (ABI.md: stable when reserved)");
    CHECK((uint8_t)base[0x2000] == 0xab, "contents kept across grow");
    CHECK(base[2 * PAGE] == 0 && base[3 * PAGE - 1] == 0,
          "new page is zero");
    CHECK_EQ_INT(call0_i32(&inst, "size"), 3, "wasm sees 3 pages");
    EXPECT_NO_TRAP(store8(&inst, 3 * PAGE - 1, 9));
    CHECK_EQ_INT(base[3 * PAGE - 1], 9, "store in the grown page");
    EXPECT_TRAP(call_i32(export_func(&inst, "load8"), 3 * PAGE, NULL), OOB);

    /* Growing from wasm: the host sees it. */
    CHECK_EQ_INT(call1_i32(&inst, "grow", 1), 3, "memory.grow returns old");
    CHECK_EQ_INT(wasm_memory_size(mem), 4, "host sees wasm's grow");
    CHECK_EQ_INT(wasm_memory_data_size(mem), 4 * PAGE, "bytes");
    CHECK(wasm_memory_data(mem) == base, "pointer stable across wasm grow");

    /* Past the maximum: fails, changes nothing. */
    CHECK(!wasm_memory_grow(mem, 2), "grow 4 -> 6 pages past max 5");
    CHECK_EQ_INT(wasm_memory_size(mem), 4, "size after failed grow");
    CHECK_EQ_INT(call1_i32(&inst, "grow", 2), -1, "memory.grow past max");
    CHECK(!wasm_memory_grow(mem, 0xffffffffu), "grow by 2^32-1 pages");
    CHECK(wasm_memory_grow(mem, 0), "grow by 0 pages succeeds");
    CHECK(wasm_memory_grow(mem, 1), "grow up to exactly the max");
    CHECK_EQ_INT(wasm_memory_size(mem), 5, "at the maximum");
    CHECK(!wasm_memory_grow(mem, 1), "grow past an exhausted max");
    CHECK_EQ_INT(call1_i32(&inst, "load8", 0x1003), 4,
                 "store usable after failed grows");
    check_limits(mem, 2, 5, "type of a grown memory keeps its declaration");

    instance_release(&inst);
    wasm_module_delete(module);

    /* --- No maximum: max reads 0xffffffff (wasm_limits_max_default). --- */
    module = compile_module(store, "memory_nomax");
    inst = instantiate(store, module, NULL, 0);
    mem = wasm_extern_as_memory(export_named(&inst, "mem"));
    check_limits(mem, 1, 0xffffffffu, "memory without maximum");
    CHECK(wasm_memory_grow(mem, 3), "grow without maximum");
    CHECK_EQ_INT(wasm_memory_size(mem), 4, "pages");
    CHECK(!wasm_memory_grow(mem, 65536), "grow beyond 4 GiB fails");
    instance_release(&inst);
    wasm_module_delete(module);

    /* --- A host-created memory, imported by a module. --- */
    {
        wasm_limits_t lim = { 1, 2 };
        wasm_memorytype_t *mt = wasm_memorytype_new(&lim);
        wasm_memory_t *hm;
        wasm_extern_t *imports[1];
        byte_t *hb;

        CHECK(mt != NULL, "wasm_memorytype_new");
        hm = wasm_memory_new(store, mt);
        wasm_memorytype_delete(mt);
        CHECK(hm != NULL, "wasm_memory_new");
        check_limits(hm, 1, 2, "host memory type");
        module = compile_module(store, "memory_import");
        imports[0] = wasm_memory_as_extern(hm);
        inst = instantiate(store, module, imports, 1);

        CHECK_EQ_INT(call0_i32(&inst, "size"), 1, "wasm sees 1 page");
        EXPECT_NO_TRAP(store8(&inst, 100, 33));
        EXPECT_TRAP(store8(&inst, PAGE, 1), OOB);

        /* The host's object is the instance's memory (in WAMR too, once
           linked; WAMR fails here all the same, as its memory has an extra
           page of host-managed heap and does not grow from the host: rows
           of capi/README.md). */
        CHECK_EQ_INT(wasm_memory_size(hm), 1, "host memory pages");
        CHECK_EQ_INT(wasm_memory_data_size(hm), PAGE, "host memory bytes");
        hb = wasm_memory_data(hm);
        CHECK(hb != NULL, "host memory data");
        CHECK_EQ_INT(hb[100], 33, "host sees wasm's store to its memory");
        hb[200] = 44;
        CHECK_EQ_INT(call1_i32(&inst, "load8", 200), 44,
                     "wasm sees the host's write to the imported memory");
        CHECK(wasm_memory_grow(hm, 1), "grow the imported memory");
        CHECK_EQ_INT(call0_i32(&inst, "size"), 2, "wasm sees the grow");
        CHECK(!wasm_memory_grow(hm, 1), "grow past the import's max");
        instance_release(&inst);
        wasm_module_delete(module);
        wasm_memory_delete(hm);
    }

    /* --- A fresh host memory, before any instance uses it. --- */
    {
        wasm_limits_t lim = { 2, 3 };
        wasm_memorytype_t *mt = wasm_memorytype_new(&lim);
        wasm_memory_t *hm = wasm_memory_new(store, mt);
        byte_t *hb;
        wasm_memorytype_delete(mt);
        CHECK(hm != NULL, "wasm_memory_new");
        CHECK_EQ_INT(wasm_memory_size(hm), 2, "fresh host memory pages");
        CHECK_EQ_INT(wasm_memory_data_size(hm), 2 * PAGE, "bytes");
        hb = wasm_memory_data(hm);
        CHECK(hb != NULL && hb[0] == 0 && hb[2 * PAGE - 1] == 0,
              "fresh host memory is zeroed");
        CHECK(wasm_memory_grow(hm, 1), "grow fresh host memory");
        CHECK(!wasm_memory_grow(hm, 1), "past its max");
        wasm_memory_delete(hm);
    }

    wasm_store_delete(store);
    wasm_engine_delete(engine);
    test_pass();
    return 0;
}
