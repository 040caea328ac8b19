/* Shared memories (the threads proposal) through the wasm-c-api. WAMR's
   wasm_c_api.h has no shared flag: a memory type is its limits alone, for
   shared memories too (WAMR's wasm_memorytype_new_internal(min, max)), and
   so it is here. A shared import takes another instance's shared export in
   the same store (both instances then count in one memory); an unshared
   host memory given for it is not linked (the instance gets a memory of
   its own, as WAMR never links memories; the host object then stands for
   it, see capi/src/c_api/link.rs). A
   shared memory never moves: its data pointer survives growth. */
#include "common.h"

static const wasm_limits_t *limits_of(const wasm_externtype_t *t)
{
    const wasm_memorytype_t *mt = wasm_externtype_as_memorytype_const(t);
    CHECK(mt != NULL, "a memory type");
    return wasm_memorytype_limits(mt);
}

int main(int argc, char **argv)
{
    wasm_engine_t *engine;
    wasm_store_t *store;
    wasm_module_t *def, *imp;
    wasm_exporttype_vec_t exports;
    wasm_importtype_vec_t imports;
    const wasm_limits_t *l;
    wasm_memorytype_t *mt;
    wasm_memory_t *mem, *host;
    wasm_extern_t *given[1];
    instance_t a, b, c;
    int32_t old = -1;
    char *data;
    wasm_limits_t host_limits = { 1, 4 };

    test_init(argc, argv, "shared_memory");
    engine = wasm_engine_new();
    store = wasm_store_new(engine);
    def = compile_module(store, "shared_memory");
    imp = compile_module(store, "shared_memory_import");

    /* Reflection: limits, no flag. */
    wasm_module_exports(def, &exports);
    l = limits_of(wasm_exporttype_type(exports.data[0]));
    CHECK(l->min == 1 && l->max == 4, "export limits %u..%u", l->min, l->max);
    wasm_exporttype_vec_delete(&exports);
    wasm_module_imports(imp, &imports);
    l = limits_of(wasm_importtype_type(imports.data[0]));
    CHECK(l->min == 1 && l->max == 4, "import limits %u..%u", l->min, l->max);
    wasm_importtype_vec_delete(&imports);

    /* The defining instance's memory: its type, and it never moves. */
    a = instantiate(store, def, NULL, 0);
    mem = wasm_extern_as_memory(export_named(&a, "mem"));
    mt = wasm_memory_type(mem);
    l = wasm_memorytype_limits(mt);
    CHECK(l->min == 1 && l->max == 4, "memory limits %u..%u", l->min, l->max);
    wasm_memorytype_delete(mt);
    data = wasm_memory_data(mem);
    CHECK(wasm_memory_grow(mem, 1), "grow a shared memory");
    CHECK_EQ_INT((int)wasm_memory_size(mem), 2, "its size after growing");
    CHECK(wasm_memory_data(mem) == data, "a shared memory does not move when it grows");
    CHECK_EQ_INT((int)wasm_memory_data_size(mem), 2 * 65536, "data size");
    CHECK(!wasm_memory_grow(mem, 3), "not past its maximum");

    /* An importing instance given that memory counts in it too. */
    given[0] = wasm_memory_as_extern(mem);
    b = instantiate(store, imp, given, 1);
    EXPECT_NO_TRAP(call_i32(export_func(&a, "add"), 5, &old));
    EXPECT_NO_TRAP(call_i32(export_func(&b, "add"), 7, &old));
    CHECK_EQ_INT(old, 5, "the importer sees the definer's add");
    CHECK_EQ_INT(*(int32_t *)data, 12, "both adds are in the one memory");

    /* An unshared host memory is not linked to a shared import. */
    mt = wasm_memorytype_new(&host_limits);
    host = wasm_memory_new(store, mt);
    wasm_memorytype_delete(mt);
    given[0] = wasm_memory_as_extern(host);
    c = instantiate(store, imp, given, 1);
    EXPECT_NO_TRAP(call_i32(export_func(&c, "add"), 3, &old));
    CHECK_EQ_INT(old, 0, "the instance has a memory of its own");
    CHECK_EQ_INT(*(int32_t *)wasm_memory_data(host), 3, "the host object now stands for that memory, as in WAMR");
    CHECK_EQ_INT(*(int32_t *)data, 12, "the shared memory is untouched");

    instance_release(&c);
    instance_release(&b);
    instance_release(&a);
    wasm_memory_delete(host);
    wasm_module_delete(imp);
    wasm_module_delete(def);
    wasm_store_delete(store);
    wasm_engine_delete(engine);
    test_pass();
    return 0;
}
