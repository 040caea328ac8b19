/* 64-bit memories and tables through the wasm-c-api, whose wasm_limits_t
   is 32 bits wide: the cranewasm extensions (capi/README.md) make 64-bit
   types (cranewasm_memorytype_new64, cranewasm_tabletype_new64) and read
   any type's whole limits and index type (cranewasm_*_limits64, _is64),
   a module's 64-bit imports and exports among them; a host-made 64-bit
   memory is imported and used with i64 addresses; a 32-bit memory given
   for a 64-bit import is not linked (the instance makes its own); NULL and wrong arguments give NULL or
   false. */
#include "common.h"

#define PAGE 65536u
#define OOB "Exception: out of bounds memory access"
#define NO_MAX64 UINT64_MAX

static void check64(const cranewasm_limits64_t *l, uint64_t min, uint64_t max,
                    const char *what)
{
    CHECK(l != NULL, "%s: limits64", what);
    if (l)
        CHECK(l->min == min && l->max == max,
              "%s: limits64 {%llu, %llu}, expected {%llu, %llu}", what,
              (unsigned long long)l->min, (unsigned long long)l->max,
              (unsigned long long)min, (unsigned long long)max);
}

static void check32(const wasm_limits_t *l, uint32_t min, uint32_t max,
                    const char *what)
{
    CHECK(l != NULL, "%s: limits", what);
    if (l)
        CHECK(l->min == min && l->max == max,
              "%s: limits {%u, %u}, expected {%u, %u}", what, l->min, l->max,
              min, max);
}

static wasm_trap_t *store8(const instance_t *inst, int64_t addr, int32_t v)
{
    wasm_val_t a[2] = { WASM_I64_VAL(addr), WASM_I32_VAL(v) };
    return call(export_func(inst, "store8"), a, 2, NULL, 0);
}

static int32_t load8(const instance_t *inst, int64_t addr)
{
    wasm_val_t a[1] = { WASM_I64_VAL(addr) };
    wasm_val_t r[1] = { WASM_INIT_VAL };
    EXPECT_NO_TRAP(call(export_func(inst, "load8"), a, 1, r, 1));
    return r[0].of.i32;
}

static int64_t size(const instance_t *inst)
{
    wasm_val_t r[1] = { WASM_INIT_VAL };
    EXPECT_NO_TRAP(call(export_func(inst, "size"), NULL, 0, r, 1));
    CHECK(r[0].kind == WASM_I64, "memory.size of a 64-bit memory is an i64");
    return r[0].of.i64;
}

/* The module's first import and its export "mem" are the same 64-bit
   memory type, {1, 4}. */
static void module_types(const wasm_module_t *module)
{
    wasm_importtype_vec_t imports;
    wasm_exporttype_vec_t exports;
    const wasm_memorytype_t *mt;

    wasm_module_imports(module, &imports);
    CHECK_EQ_INT(imports.num_elems, 1, "imports");
    mt = wasm_externtype_as_memorytype_const(
        wasm_importtype_type(imports.data[0]));
    CHECK(mt != NULL, "the import is a memory");
    CHECK(cranewasm_memorytype_is64(mt), "the imported memory is 64-bit");
    check64(cranewasm_memorytype_limits64(mt), 1, 4, "import");
    check32(wasm_memorytype_limits(mt), 1, 4, "import, 32-bit form");
    wasm_importtype_vec_delete(&imports);

    wasm_module_exports(module, &exports);
    CHECK_EQ_INT(exports.num_elems, 4, "exports");
    mt = wasm_externtype_as_memorytype_const(
        wasm_exporttype_type(exports.data[0]));
    CHECK(mt != NULL, "the first export is the memory");
    CHECK(cranewasm_memorytype_is64(mt), "the exported memory is 64-bit");
    check64(cranewasm_memorytype_limits64(mt), 1, 4, "export");
    wasm_exporttype_vec_delete(&exports);
}

/* Types made in C: 64-bit ones, 32-bit ones seen through limits64, and
   sizes past uint32_t in the 32-bit form. */
static void made_types(void)
{
    cranewasm_limits64_t big = { 5, (uint64_t)1 << 40 };
    cranewasm_limits64_t open = { 2, NO_MAX64 };
    wasm_limits_t small = { 1, 2 }, unbounded = { 3, wasm_limits_max_default };
    wasm_memorytype_t *m64 = cranewasm_memorytype_new64(&big);
    wasm_memorytype_t *m32 = wasm_memorytype_new(&small);
    wasm_memorytype_t *m32open = wasm_memorytype_new(&unbounded);
    wasm_memorytype_t *copy;
    wasm_tabletype_t *t64 =
        cranewasm_tabletype_new64(wasm_valtype_new(WASM_FUNCREF), &open);
    wasm_tabletype_t *t32 =
        wasm_tabletype_new(wasm_valtype_new(WASM_FUNCREF), &small);
    wasm_valtype_t *i32 = wasm_valtype_new(WASM_I32);

    CHECK(m64 && m32 && m32open && t64 && t32, "types made");
    CHECK(cranewasm_memorytype_is64(m64), "new64 is 64-bit");
    check64(cranewasm_memorytype_limits64(m64), 5, (uint64_t)1 << 40, "m64");
    check32(wasm_memorytype_limits(m64), 5, UINT32_MAX,
            "a maximum past uint32_t in the 32-bit form");
    copy = wasm_memorytype_copy(m64);
    CHECK(cranewasm_memorytype_is64(copy), "a copy stays 64-bit");
    check64(cranewasm_memorytype_limits64(copy), 5, (uint64_t)1 << 40, "copy");
    wasm_memorytype_delete(copy);

    CHECK(!cranewasm_memorytype_is64(m32), "wasm_memorytype_new is 32-bit");
    check64(cranewasm_memorytype_limits64(m32), 1, 2, "m32");
    check64(cranewasm_memorytype_limits64(m32open), 3, NO_MAX64,
            "no maximum reads as UINT64_MAX");

    CHECK(cranewasm_tabletype_is64(t64), "tabletype_new64 is 64-bit");
    check64(cranewasm_tabletype_limits64(t64), 2, NO_MAX64, "t64");
    check32(wasm_tabletype_limits(t64), 2, UINT32_MAX, "t64, 32-bit form");
    CHECK(wasm_valtype_kind(wasm_tabletype_element(t64)) == WASM_FUNCREF,
          "t64 element");
    CHECK(!cranewasm_tabletype_is64(t32), "wasm_tabletype_new is 32-bit");
    check64(cranewasm_tabletype_limits64(t32), 1, 2, "t32");

    /* Bad arguments: NULL, a number element, the other kind of type. */
    CHECK(cranewasm_memorytype_new64(NULL) == NULL, "new64(NULL)");
    CHECK(cranewasm_tabletype_new64(NULL, &open) == NULL, "no element");
    CHECK(cranewasm_tabletype_new64(i32, &open) == NULL,
          "a number element is refused (and stays the caller's)");
    {
        wasm_valtype_t *f = wasm_valtype_new(WASM_FUNCREF);
        CHECK(cranewasm_tabletype_new64(f, NULL) == NULL,
              "no limits (the element stays the caller's)");
        wasm_valtype_delete(f);
    }
    CHECK(!cranewasm_memorytype_is64(NULL), "is64(NULL)");
    CHECK(cranewasm_memorytype_limits64(NULL) == NULL, "limits64(NULL)");
    CHECK(!cranewasm_tabletype_is64(NULL), "table is64(NULL)");
    CHECK(cranewasm_tabletype_limits64(NULL) == NULL, "table limits64(NULL)");
    CHECK(cranewasm_memorytype_limits64((const wasm_memorytype_t *)t64) ==
              NULL,
          "a table type is not a memory type");
    CHECK(cranewasm_tabletype_limits64((const wasm_tabletype_t *)m64) == NULL,
          "a memory type is not a table type");

    wasm_valtype_delete(i32);
    wasm_memorytype_delete(m64);
    wasm_memorytype_delete(m32);
    wasm_memorytype_delete(m32open);
    wasm_tabletype_delete(t64);
    wasm_tabletype_delete(t32);
}

int main(int argc, char **argv)
{
    wasm_engine_t *engine;
    wasm_store_t *store;
    wasm_module_t *module;
    cranewasm_limits64_t lim = { 1, 4 };
    wasm_memorytype_t *mt;
    wasm_memory_t *mem;
    wasm_memorytype_t *got;
    wasm_extern_t *imports[1];
    instance_t inst;
    byte_t *data;

    test_init(argc, argv, "memory64");
    engine = wasm_engine_new();
    store = wasm_store_new(engine);
    made_types();

    module = compile_module(store, "memory64");
    module_types(module);

    /* A host-made 64-bit memory, imported. */
    mt = cranewasm_memorytype_new64(&lim);
    mem = wasm_memory_new(store, mt);
    CHECK(mem != NULL, "wasm_memory_new of a 64-bit type");
    got = wasm_memory_type(mem);
    CHECK(cranewasm_memorytype_is64(got), "the memory's type is 64-bit");
    check64(cranewasm_memorytype_limits64(got), 1, 4, "the memory's type");
    wasm_memorytype_delete(got);
    CHECK_EQ_INT(wasm_memory_size(mem), 1, "pages");

    imports[0] = wasm_memory_as_extern(mem);
    inst = instantiate(store, module, imports, 1);
    CHECK_EQ_INT(size(&inst), 1, "wasm sees 1 page");
    EXPECT_NO_TRAP(store8(&inst, PAGE - 1, 42));
    data = wasm_memory_data(mem);
    CHECK_EQ_INT(data[PAGE - 1], 42, "the host sees wasm's store");
    EXPECT_TRAP(store8(&inst, PAGE, 1), OOB);
    EXPECT_TRAP(store8(&inst, (int64_t)1 << 32, 1), OOB);
    EXPECT_TRAP(store8(&inst, -1, 1), OOB);
    CHECK(wasm_memory_grow(mem, 2), "grow by 2 pages");
    CHECK_EQ_INT(size(&inst), 3, "wasm sees the growth");
    EXPECT_NO_TRAP(store8(&inst, 3 * (int64_t)PAGE - 1, 7));
    CHECK_EQ_INT(load8(&inst, 3 * (int64_t)PAGE - 1), 7, "i64 address");
    CHECK(!wasm_memory_grow(mem, 2), "grow past the maximum");
    instance_release(&inst);

    /* A 32-bit memory where the module imports a 64-bit one is not linked:
       as for any memory WAMR does not link, the instance gets one of its
       own, of the declared type, and the object given then stands for it
       (capi/README.md; c_api/link.rs). */
    {
        wasm_limits_t l32 = { 1, 4 };
        wasm_memorytype_t *mt32 = wasm_memorytype_new(&l32);
        wasm_memory_t *mem32 = wasm_memory_new(store, mt32);
        wasm_memorytype_t *own;
        imports[0] = wasm_memory_as_extern(mem32);
        inst = instantiate(store, module, imports, 1);
        EXPECT_NO_TRAP(store8(&inst, 10, 9));
        CHECK_EQ_INT(load8(&inst, 10), 9, "the instance's own memory");
        own = wasm_memory_type(wasm_extern_as_memory(export_named(&inst, "mem")));
        CHECK(cranewasm_memorytype_is64(own), "its memory is 64-bit");
        check64(cranewasm_memorytype_limits64(own), 1, 4, "its memory");
        wasm_memorytype_delete(own);
        own = wasm_memory_type(mem32);
        CHECK(cranewasm_memorytype_is64(own), "the object given stands for it");
        wasm_memorytype_delete(own);
        CHECK_EQ_INT(wasm_memory_data(mem32)[10], 9, "and shows its bytes");
        instance_release(&inst);
        wasm_memory_delete(mem32);
        wasm_memorytype_delete(mt32);
    }

    wasm_memory_delete(mem);
    wasm_memorytype_delete(mt);
    wasm_module_delete(module);
    wasm_store_delete(store);
    wasm_engine_delete(engine);
    test_pass();
    return 0;
}
