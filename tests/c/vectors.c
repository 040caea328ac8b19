/* The vector rules of ABI.md: _new_empty zeroes all five fields;
   _new_uninitialized sets size, leaves num_elems 0, zeroes data and sets
   size_of_elem; _new copies n elements; _copy is deep; _delete deletes
   owned elements, frees data, zeroes the struct, and is harmless twice or on
   an empty vector; buffers come from malloc, so a client may free() what it
   was given and give what it malloc()ed; runtime names end in a counted NUL
   while client names may or may not. */
#include "common.h"

static int all_zero(const void *p, size_t n)
{
    const unsigned char *b = p;
    size_t i;
    for (i = 0; i < n; i++)
        if (b[i])
            return 0;
    return 1;
}

#define CHECK_ZEROED(v, what)                                               \
    CHECK(all_zero(&(v), sizeof(v)), "%s: vector not all zero (size %zu "  \
          "num_elems %zu)", what, (v).size, (v).num_elems)

int main(int argc, char **argv)
{
    wasm_engine_t *engine;
    wasm_store_t *store;
    size_t i;

    test_init(argc, argv, "vectors");
    engine = wasm_engine_new();
    store = wasm_store_new(engine);

    /* _new_empty */
    {
        wasm_byte_vec_t b;
        wasm_valtype_vec_t t;
        wasm_extern_vec_t e;
        memset(&b, 0xa5, sizeof b);
        memset(&t, 0xa5, sizeof t);
        memset(&e, 0xa5, sizeof e);
        wasm_byte_vec_new_empty(&b);
        wasm_valtype_vec_new_empty(&t);
        wasm_extern_vec_new_empty(&e);
        CHECK_ZEROED(b, "byte _new_empty");
        CHECK_ZEROED(t, "valtype _new_empty");
        CHECK_ZEROED(e, "extern _new_empty");
        wasm_byte_vec_delete(&b);
        wasm_valtype_vec_delete(&t);
        wasm_extern_vec_delete(&e);
        CHECK_ZEROED(b, "empty byte vector after delete");
    }

    /* _new_uninitialized */
    {
        wasm_valtype_vec_t t;
        wasm_val_vec_t v;
        wasm_byte_vec_t b;
        memset(&t, 0xa5, sizeof t);
        wasm_valtype_vec_new_uninitialized(&t, 5);
        CHECK(t.size == 5 && t.num_elems == 0 &&
                  t.size_of_elem == sizeof(wasm_valtype_t *) &&
                  t.lock == NULL,
              "valtype _new_uninitialized: size %zu num_elems %zu elem %zu",
              t.size, t.num_elems, t.size_of_elem);
        CHECK(t.data && all_zero(t.data, 5 * sizeof(wasm_valtype_t *)),
              "pointer vector is all NULL");
        /* Fill it, then let _delete free the elements. */
        for (i = 0; i < 5; i++)
            t.data[i] = wasm_valtype_new(WASM_I32);
        t.num_elems = 5;
        wasm_valtype_vec_delete(&t);
        CHECK_ZEROED(t, "valtype vector after delete");
        wasm_valtype_vec_delete(&t); /* twice is harmless */

        wasm_val_vec_new_uninitialized(&v, 3);
        CHECK(v.size == 3 && v.num_elems == 0 &&
                  v.size_of_elem == sizeof(wasm_val_t),
              "val _new_uninitialized: size %zu num_elems %zu elem %zu",
              v.size, v.num_elems, v.size_of_elem);
        CHECK(all_zero(v.data, 3 * sizeof(wasm_val_t)), "vals zeroed");
        wasm_val_vec_delete(&v);

        wasm_byte_vec_new_uninitialized(&b, 100);
        CHECK(b.size == 100 && b.num_elems == 0 && b.size_of_elem == 1,
              "byte _new_uninitialized: size %zu num_elems %zu elem %zu",
              b.size, b.num_elems, b.size_of_elem);
        CHECK(all_zero(b.data, 100), "bytes zeroed");
        wasm_byte_vec_delete(&b);
        CHECK_ZEROED(b, "byte vector after delete");
    }

    /* _new copies; _copy is deep. */
    {
        wasm_valtype_t *src[3];
        wasm_valtype_vec_t t, c;
        wasm_val_t vals[2] = { WASM_I64_VAL(-9), WASM_F32_VAL(1.5f) };
        wasm_val_vec_t v, vc;
        src[0] = wasm_valtype_new(WASM_F32);
        src[1] = wasm_valtype_new(WASM_FUNCREF);
        src[2] = wasm_valtype_new(WASM_I64);
        wasm_valtype_vec_new(&t, 3, src);
        CHECK(t.size == 3 && t.num_elems == 3 &&
                  t.size_of_elem == sizeof(wasm_valtype_t *),
              "valtype _new: size %zu num_elems %zu elem %zu", t.size,
              t.num_elems, t.size_of_elem);
        CHECK(t.data[0] == src[0] && t.data[2] == src[2],
              "_new takes the element pointers");
        wasm_valtype_vec_copy(&c, &t);
        CHECK(c.num_elems == 3 && c.size == 3, "copy counts");
        for (i = 0; i < 3; i++) {
            CHECK(c.data[i] != t.data[i], "copy shares element %zu", i);
            CHECK_EQ_INT(wasm_valtype_kind(c.data[i]),
                         wasm_valtype_kind(t.data[i]), "copied kind");
        }
        wasm_valtype_vec_delete(&t);
        CHECK_EQ_INT(wasm_valtype_kind(c.data[1]), WASM_FUNCREF,
                     "copy survives the original");
        wasm_valtype_vec_delete(&c);

        wasm_val_vec_new(&v, 2, vals);
        CHECK(v.size == 2 && v.num_elems == 2 && v.data != vals,
              "val _new copies");
        vals[0].of.i64 = 0;
        CHECK(v.data[0].kind == WASM_I64 && v.data[0].of.i64 == -9,
              "val _new copied the values");
        wasm_val_vec_copy(&vc, &v);
        CHECK(vc.num_elems == 2 && vc.data != v.data &&
                  vc.data[1].kind == WASM_F32 && vc.data[1].of.f32 == 1.5f,
              "val _copy");
        wasm_val_vec_delete(&v);
        wasm_val_vec_delete(&vc);
    }

    /* Owned-pointer vectors delete their non-NULL elements. */
    {
        wasm_extern_vec_t e;
        wasm_limits_t lim = { 1, 1 };
        wasm_memorytype_t *mt = wasm_memorytype_new(&lim);
        wasm_extern_vec_new_uninitialized(&e, 3);
        e.data[1] = wasm_memory_as_extern(wasm_memory_new(store, mt));
        CHECK(e.data[1] != NULL, "memory");
        e.num_elems = 3;
        wasm_extern_vec_delete(&e); /* data[0], data[2] stay NULL */
        CHECK_ZEROED(e, "extern vector after delete");
        wasm_memorytype_delete(mt);
    }

    /* Buffers are malloc'd: the client may free() what it got and give
       what it malloc()ed. */
    {
        wasm_byte_vec_t b;
        char *mine = malloc(4);
        wasm_name_new_from_string(&b, "free me");
        free(b.data);
        memcpy(mine, "abcd", 4);
        b.data = mine;
        b.size = b.num_elems = 4;
        b.size_of_elem = 1;
        b.lock = NULL;
        wasm_byte_vec_delete(&b);
        CHECK_ZEROED(b, "byte vector holding a client buffer, deleted");
    }

    /* Names: the client's, with or without NUL, name the same import. */
    {
        wasm_name_t a, z;
        wasm_name_new_from_string(&a, "abc");
        wasm_name_new_from_string_nt(&z, "abc");
        CHECK(a.size == 3 && z.size == 4 && z.data[3] == '\0',
              "wasm_name_new_from_string(_nt) sizes %zu %zu", a.size, z.size);
        wasm_name_delete(&a);
        wasm_name_delete(&z);
    }

    /* A frame vector from a trap without frames is empty, not garbage. */
    {
        wasm_message_t m;
        wasm_trap_t *trap;
        wasm_frame_vec_t frames;
        wasm_name_new_from_string_nt(&m, "x");
        trap = wasm_trap_new(store, &m);
        wasm_name_delete(&m);
        memset(&frames, 0xa5, sizeof frames);
        wasm_trap_trace(trap, &frames);
        CHECK(frames.num_elems == 0 && frames.size == 0,
              "empty trace: size %zu num_elems %zu", frames.size,
              frames.num_elems);
        wasm_frame_vec_delete(&frames);
        wasm_trap_delete(trap);
    }

    wasm_store_delete(store);
    wasm_engine_delete(engine);
    test_pass();
    return 0;
}
