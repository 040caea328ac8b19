/* Malformed and invalid modules: wasm_module_new returns NULL and
   wasm_module_validate returns false (ABI.md), for garbage, a bad header,
   every truncation of a valid module, bad sections and bodies that do not
   validate; the store keeps working throughout. A valid module is read from
   the vector's `size` (what the bytes vector holds), so one built with
   wasm_byte_vec_new_uninitialized and filled in place compiles, as WAMR's
   Python sample does it. */
#include "common.h"

#define HDR 0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00

static const uint8_t bad_magic[] = { 0x00, 0x61, 0x73, 0x6e, 0x01, 0, 0, 0 };
static const uint8_t bad_version[] = { 0x00, 0x61, 0x73, 0x6d, 0x02, 0, 0, 0 };
static const uint8_t only_magic[] = { 0x00, 0x61, 0x73, 0x6d };
static const uint8_t text[] = "(module)";
/* A section whose length runs past the end. */
static const uint8_t long_section[] = { HDR, 0x01, 0x10, 0x01, 0x60 };
/* An unknown section id. */
static const uint8_t unknown_section[] = { HDR, 0x20, 0x01, 0x00 };
/* Type section after the function section (out of order). */
static const uint8_t out_of_order[] = { HDR, 0x03, 0x01, 0x00,
                                        0x01, 0x01, 0x00 };
/* A LEB128 that never ends (section size). */
static const uint8_t endless_leb[] = { HDR, 0x01, 0x80, 0x80, 0x80, 0x80,
                                       0x80, 0x80 };
/* A function whose body returns i64 where the type says i32. */
static const uint8_t type_mismatch[] = {
    HDR,
    0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7f,       /* type () -> i32 */
    0x03, 0x02, 0x01, 0x00,                         /* func 0: type 0 */
    0x0a, 0x06, 0x01, 0x04, 0x00, 0x42, 0x00, 0x0b, /* i64.const 0 end */
};
/* A body using an opcode that does not exist. */
static const uint8_t bad_opcode[] = {
    HDR,
    0x01, 0x04, 0x01, 0x60, 0x00, 0x00,
    0x03, 0x02, 0x01, 0x00,
    0x0a, 0x05, 0x01, 0x03, 0x00, 0xff, 0x0b,
};
/* Function section declares a body the code section lacks. */
static const uint8_t missing_body[] = {
    HDR,
    0x01, 0x04, 0x01, 0x60, 0x00, 0x00,
    0x03, 0x02, 0x01, 0x00,
};
/* Two exports with the same name. */
static const uint8_t duplicate_export[] = {
    HDR,
    0x01, 0x04, 0x01, 0x60, 0x00, 0x00,
    0x03, 0x02, 0x01, 0x00,
    0x07, 0x09, 0x02, 0x01, 0x66, 0x00, 0x00, 0x01, 0x66, 0x00, 0x00,
    0x0a, 0x04, 0x01, 0x02, 0x00, 0x0b,
};
/* A call to a function index that does not exist. */
static const uint8_t bad_call[] = {
    HDR,
    0x01, 0x04, 0x01, 0x60, 0x00, 0x00,
    0x03, 0x02, 0x01, 0x00,
    0x0a, 0x06, 0x01, 0x04, 0x00, 0x10, 0x05, 0x0b,
};
/* A memory whose minimum exceeds its maximum. */
static const uint8_t bad_limits[] = { HDR, 0x05, 0x04, 0x01, 0x01, 0x02,
                                      0x01 };

static const struct {
    const char *what;
    const uint8_t *bytes;
    size_t len;
} cases[] = {
#define CASE(name, n) { #name, name, n }
    CASE(bad_magic, sizeof bad_magic),
    CASE(bad_version, sizeof bad_version),
    CASE(only_magic, sizeof only_magic),
    CASE(text, sizeof text - 1),
    CASE(long_section, sizeof long_section),
    CASE(unknown_section, sizeof unknown_section),
    CASE(out_of_order, sizeof out_of_order),
    CASE(endless_leb, sizeof endless_leb),
    CASE(type_mismatch, sizeof type_mismatch),
    CASE(bad_opcode, sizeof bad_opcode),
    CASE(missing_body, sizeof missing_body),
    CASE(duplicate_export, sizeof duplicate_export),
    CASE(bad_call, sizeof bad_call),
    CASE(bad_limits, sizeof bad_limits),
#undef CASE
};

/* True when the first `len` bytes of module `m` end at a section boundary
   that comes before the function section (id 3). */
static int is_valid_prefix(const uint8_t *m, size_t n, size_t len)
{
    size_t pos = 8;
    if (len < 8)
        return 0;
    while (pos < len) {
        uint8_t id = m[pos++];
        size_t size = 0;
        int shift = 0;
        if (id == 3)
            return 0;
        while (pos < n) {
            uint8_t b = m[pos++];
            size |= (size_t)(b & 0x7f) << shift;
            shift += 7;
            if (!(b & 0x80))
                break;
        }
        pos += size;
    }
    return pos == len;
}

static void expect_rejected(wasm_store_t *store, const uint8_t *bytes,
                            size_t len, const char *what)
{
    wasm_byte_vec_t v;
    wasm_module_t *m;
    if (len)
        wasm_byte_vec_new(&v, len, (const wasm_byte_t *)bytes);
    else
        wasm_byte_vec_new_empty(&v);
    CHECK(!wasm_module_validate(store, &v), "%s: validated", what);
    m = wasm_module_new(store, &v);
    CHECK(m == NULL, "%s: wasm_module_new returned a module", what);
    if (m)
        wasm_module_delete(m);
    wasm_byte_vec_delete(&v);
}

int main(int argc, char **argv)
{
    wasm_engine_t *engine;
    wasm_store_t *store;
    wasm_byte_vec_t good;
    wasm_module_t *module;
    size_t i;
    char what[64];

    test_init(argc, argv, "malformed");
    engine = wasm_engine_new();
    store = wasm_store_new(engine);
    good = load_wasm("calls");

    CHECK(wasm_module_validate(store, &good), "the valid module validates");
    expect_rejected(store, NULL, 0, "empty bytes");
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_rejected(store, cases[i].bytes, cases[i].len, cases[i].what);

    /* Every proper prefix of a valid module is malformed, except those that
       end between sections before the function section (a module with
       fewer sections is still a module); those must validate. */
    for (i = 0; i < good.size; i++) {
        snprintf(what, sizeof what, "prefix of %zu of %zu bytes", i,
                 good.size);
        if (is_valid_prefix((const uint8_t *)good.data, good.size, i)) {
            wasm_byte_vec_t v;
            wasm_byte_vec_new(&v, i, good.data);
            CHECK(wasm_module_validate(store, &v), "%s: a whole module up "
                  "to a section boundary did not validate", what);
            wasm_byte_vec_delete(&v);
        } else {
            expect_rejected(store, (const uint8_t *)good.data, i, what);
        }
    }
    /* So is the valid module followed by a stray byte. */
    {
        uint8_t *longer = malloc(good.size + 1);
        memcpy(longer, good.data, good.size);
        longer[good.size] = 0x00;
        expect_rejected(store, longer, good.size + 1, "trailing byte");
        free(longer);
    }

    /* The store works after all that. */
    module = wasm_module_new(store, &good);
    CHECK(module != NULL, "valid module after the malformed ones");
    wasm_module_delete(module);

    /* A vector from _new_uninitialized, filled in place: size is the
       length, num_elems stays 0 (ABI.md: Vectors). */
    {
        wasm_byte_vec_t v;
        wasm_byte_vec_new_uninitialized(&v, good.size);
        CHECK(v.size == good.size && v.num_elems == 0,
              "new_uninitialized: size %zu num_elems %zu", v.size,
              v.num_elems);
        memcpy(v.data, good.data, good.size);
        CHECK(wasm_module_validate(store, &v),
              "validate reads the bytes of a _new_uninitialized vector");
        module = wasm_module_new(store, &v);
        CHECK(module != NULL,
              "wasm_module_new reads the bytes of a _new_uninitialized "
              "vector (num_elems 0)");
        wasm_module_delete(module);
        wasm_byte_vec_delete(&v);
    }

    /* The module's bytes are copied: the client may free them at once. */
    {
        wasm_byte_vec_t copy;
        wasm_extern_vec_t none = WASM_EMPTY_VEC;
        wasm_instance_t *inst;
        wasm_trap_t *trap = NULL;
        wasm_byte_vec_copy(&copy, &good);
        module = wasm_module_new(store, &copy);
        memset(copy.data, 0xff, copy.size);
        wasm_byte_vec_delete(&copy);
        CHECK(module != NULL, "compile");
        inst = wasm_instance_new(store, module, &none, &trap);
        CHECK(inst != NULL && trap == NULL,
              "instantiate after the bytes were overwritten and freed");
        wasm_instance_delete(inst);
        wasm_module_delete(module);
    }

    wasm_byte_vec_delete(&good);
    wasm_store_delete(store);
    wasm_engine_delete(engine);
    test_pass();
    return 0;
}
