/* WAMR's modules (wasm_module_new_ex, wasm_module_share / _obtain,
 * wasm_module_copy, wasm_instance_copy): rows "kept" of the table in
 * capi/README.md, where ours does more than WAMR and a program written
 * for WAMR cannot tell. Each part is KEPT (see wamr.h): it asserts ours,
 * and is skipped against WAMR.
 *
 *  - wasm_module_new reads the bytes in use of the binary (num_elems when
 *    set; WAMR reads size).
 *  - wasm_module_new_ex with clone_wasm_binary = false still copies the
 *    binary (WAMR keeps a pointer to the caller's), so the caller may free
 *    it at once.
 *  - wasm_module_share gives a new handle, which wasm_module_obtain turns
 *    into a module of another store (WAMR hands back the module itself).
 *  - wasm_instance_copy makes a new handle (WAMR's returns NULL).
 */
#include "wamr.h"

/* The bytes of tests/c/wat/NAME.wasm in a new byte vector. */
static wasm_byte_vec_t read_binary(const char *name)
{
    char path[512];
    wasm_byte_vec_t b = WASM_EMPTY_VEC;
    FILE *f;
    long n;
    snprintf(path, sizeof path, "%s/%s.wasm", test_wasm_dir, name);
    f = fopen(path, "rb");
    CHECK(f != NULL, "open %s", path);
    if (!f)
        return b;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    wasm_byte_vec_new_uninitialized(&b, (size_t)n);
    CHECK(fread(b.data, 1, (size_t)n, f) == (size_t)n, "read %s", path);
    fclose(f);
    return b;
}

static void binary_bytes_in_use(void)
{
    if (KEPT("WAMR reads size bytes of the binary, whatever num_elems says")) {
        wasm_byte_vec_t b = read_binary("wamr_funcs"), longer;
        wasm_module_t *m;
        /* The binary, then garbage: only num_elems bytes are the module. */
        wasm_byte_vec_new_uninitialized(&longer, b.size + 16);
        memcpy(longer.data, b.data, b.size);
        memset(longer.data + b.size, 0xee, 16);
        longer.num_elems = b.size;
        CHECK(wasm_module_validate(store, &longer), "validate num_elems bytes");
        m = wasm_module_new(store, &longer);
        CHECK(m != NULL, "compile num_elems bytes");
        wasm_module_delete(m);
        wasm_byte_vec_delete(&longer);
        wasm_byte_vec_delete(&b);
    }
}

static void binary_copied_without_clone(void)
{
    if (KEPT("WAMR keeps a pointer to the caller's binary")) {
        wasm_byte_vec_t b = read_binary("wamr_funcs");
        LoadArgs args;
        wasm_module_t *m;
        wasm_exporttype_vec_t exports;
        memset(&args, 0, sizeof args);
        args.clone_wasm_binary = false;
        m = wasm_module_new_ex(store, &b, &args);
        CHECK(m != NULL, "wasm_module_new_ex without clone");
        memset(b.data, 0, b.size); /* the caller's buffer, reused */
        wasm_byte_vec_delete(&b);
        CHECK(wasm_module_is_underlying_binary_freeable(m),
              "the binary may be freed");
        wasm_module_exports(m, &exports);
        CHECK_EQ_INT(exports.num_elems, 2, "exports after the binary is gone");
        wasm_exporttype_vec_delete(&exports);
        wasm_module_delete(m);
    }
}

static void share_and_copy_make_handles(void)
{
    if (KEPT("WAMR's share hands back the module itself, and its "
             "wasm_instance_copy returns NULL")) {
        wasm_module_t *m = compile_module(store, "wamr_grow");
        wasm_shared_module_t *shared = wasm_module_share(m);
        wasm_store_t *other = wasm_store_new(engine);
        wasm_module_t *there;
        wasm_instance_t *inst, *inst2;
        wasm_trap_t *trap = NULL;
        CHECK(shared != NULL && (void *)shared != (void *)m,
              "wasm_module_share gives a new handle");
        wasm_module_delete(m); /* the shared handle keeps the module */
        there = wasm_module_obtain(other, shared);
        CHECK(there != NULL, "obtained in another store");
        inst = wasm_instance_new(other, there, NULL, &trap);
        EXPECT_NO_TRAP(trap);
        CHECK(inst != NULL, "an instance of the obtained module");
        inst2 = wasm_instance_copy(inst);
        CHECK(inst2 != NULL && inst2 != inst,
              "wasm_instance_copy: a new handle");
        wasm_instance_delete(inst); /* the copy keeps the instance */
        inst = inst2;
        {
            wasm_extern_vec_t exports;
            wasm_instance_exports(inst2, &exports);
            CHECK_EQ_INT(exports.num_elems, 1, "exports through the copy");
            wasm_extern_vec_delete(&exports);
        }
        wasm_instance_delete(inst2);
        wasm_module_delete(there);
        wasm_shared_module_delete(shared);
        wasm_store_delete(other);
    }
}

int main(int argc, char **argv)
{
    test_init(argc, argv, "wamr_modules");
    RUN_PART(binary_bytes_in_use);
    RUN_PART(binary_copied_without_clone);
    RUN_PART(share_and_copy_make_handles);
    test_pass();
    return 0;
}
