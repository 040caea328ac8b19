/* WAMR's vectors (wasm_c_api.c, WASM_DEFINE_VEC_PLAIN / _OWN over
 * bh_vector): the behaviour that differs from a plain reading of wasm.h.
 * Rows "vectors: ..." of the table in capi/README.md.
 *
 *  - A vector whose buffer would exceed UINT32_MAX bytes is not allocated:
 *    _new and _new_uninitialized leave it all zero (size 0, data NULL) and
 *    _new reads nothing from `data`.
 *  - wasm_byte_vec_copy / wasm_val_vec_copy copy `size` elements and set
 *    num_elems to `size`; with a NULL source they leave *out untouched.
 *  - Owning vectors copy and delete only their first num_elems elements
 *    (elements beyond are neither copied nor deleted); the copy has the
 *    source's size.
 */
#include "wamr.h"

static int finalized;
static void count_finalizer(void *p)
{
    (void)p;
    finalized++;
}

static void huge_sizes_give_empty_vectors(void)
{
    wasm_byte_vec_t b;
    wasm_valtype_vec_t t;
    wasm_val_vec_t v;
    wasm_extern_vec_t e;
    wasm_valtype_t *three[3] = { wasm_valtype_new(WASM_I32),
                                 wasm_valtype_new(WASM_I64),
                                 wasm_valtype_new(WASM_F32) };
    char small[4] = "abc";
    size_t i;

    memset(&b, 0x5a, sizeof b);
    wasm_byte_vec_new_uninitialized(&b, (size_t)1 << 33);
    CHECK(b.size == 0 && b.data == NULL && b.num_elems == 0,
          "byte vector of 8 GiB: size %zu data %p", b.size, (void *)b.data);
    wasm_byte_vec_delete(&b);

    /* 10^9 pointers are 8e9 bytes: over WAMR's limit, though 10^9 itself
       fits in 32 bits (the case of WAMR's own Python test). */
    memset(&t, 0x5a, sizeof t);
    wasm_valtype_vec_new_uninitialized(&t, 1000000000);
    CHECK(t.size == 0 && t.data == NULL && t.num_elems == 0,
          "valtype vector of 1e9: size %zu", t.size);
    wasm_valtype_vec_delete(&t);

    /* _new with a huge size must not read the (small) source array. */
    memset(&t, 0x5a, sizeof t);
    wasm_valtype_vec_new(&t, 1000000000, three);
    CHECK(t.size == 0 && t.data == NULL && t.num_elems == 0,
          "valtype vector _new of 1e9: size %zu", t.size);
    wasm_valtype_vec_delete(&t);

    memset(&b, 0x5a, sizeof b);
    wasm_byte_vec_new(&b, (size_t)1 << 32, small);
    CHECK(b.size == 0 && b.data == NULL, "byte vector _new of 4 GiB: size %zu",
          b.size);

    memset(&v, 0x5a, sizeof v);
    wasm_val_vec_new_uninitialized(&v, SIZE_MAX / 2);
    CHECK(v.size == 0 && v.data == NULL, "val vector of SIZE_MAX/2: size %zu",
          v.size);

    memset(&e, 0x5a, sizeof e);
    wasm_extern_vec_new_uninitialized(&e, SIZE_MAX);
    CHECK(e.size == 0 && e.data == NULL, "extern vector of SIZE_MAX: size %zu",
          e.size);

    for (i = 0; i < 3; i++)
        wasm_valtype_delete(three[i]);
}

static void plain_copies_copy_size_elements(void)
{
    wasm_byte_vec_t src, out;
    wasm_val_vec_t vsrc, vout;
    wasm_val_t vals[3] = { WASM_I32_VAL(1), WASM_I64_VAL(2), WASM_F64_VAL(3) };

    /* Capacity 4, two in use: the copy holds all 4 and says so. */
    wasm_byte_vec_new_uninitialized(&src, 4);
    memcpy(src.data, "wxyz", 4);
    src.num_elems = 2;
    wasm_byte_vec_copy(&out, &src);
    CHECK(out.size == 4 && out.num_elems == 4,
          "byte copy of size 4 / num_elems 2: size %zu num_elems %zu",
          out.size, out.num_elems);
    CHECK(out.data && memcmp(out.data, "wxyz", 4) == 0, "copied bytes");
    wasm_byte_vec_delete(&out);
    wasm_byte_vec_delete(&src);

    wasm_val_vec_new(&vsrc, 3, vals);
    vsrc.num_elems = 1;
    wasm_val_vec_copy(&vout, &vsrc);
    CHECK(vout.size == 3 && vout.num_elems == 3,
          "val copy of size 3 / num_elems 1: size %zu num_elems %zu",
          vout.size, vout.num_elems);
    CHECK(vout.data && vout.data[2].kind == WASM_F64
              && vout.data[2].of.f64 == 3,
          "third value copied");
    wasm_val_vec_delete(&vout);
    wasm_val_vec_delete(&vsrc);
}

static void plain_copy_of_null_leaves_out(void)
{
    char keep[1] = { 'k' };
    wasm_byte_vec_t out = { 1, keep, 1, 1, NULL };
    wasm_val_vec_t vout;
    wasm_valtype_vec_t tout;

    wasm_byte_vec_copy(&out, NULL);
    CHECK(out.size == 1 && out.data == keep && out.num_elems == 1,
          "wasm_byte_vec_copy(out, NULL) changed *out");

    memset(&vout, 0x5a, sizeof vout);
    wasm_val_vec_copy(&vout, NULL);
    CHECK(vout.size == 0x5a5a5a5a5a5a5a5aULL,
          "wasm_val_vec_copy(out, NULL) changed *out");

    /* Owning vectors zero *out first. */
    memset(&tout, 0x5a, sizeof tout);
    wasm_valtype_vec_copy(&tout, NULL);
    CHECK(tout.size == 0 && tout.data == NULL && tout.num_elems == 0,
          "wasm_valtype_vec_copy(out, NULL) leaves an empty vector");
}

/* Copies `src` and checks the copy: the source's size, `used` elements
   in use, and element i deep-copied for i < used, NULL beyond. */
static void check_owned_copy(const wasm_valtype_vec_t *src, size_t used)
{
    wasm_valtype_vec_t out;
    size_t i;
    wasm_valtype_vec_copy(&out, src);
    CHECK(out.size == src->size && out.num_elems == used,
          "copy: size %zu num_elems %zu, expected %zu / %zu", out.size,
          out.num_elems, src->size, used);
    for (i = 0; out.data && i < out.size; i++) {
        if (i < used)
            CHECK(out.data[i] && out.data[i] != src->data[i]
                      && wasm_valtype_kind(out.data[i])
                             == wasm_valtype_kind(src->data[i]),
                  "element %zu deep-copied", i);
        else
            CHECK(out.data[i] == NULL, "slot %zu beyond num_elems copied", i);
    }
    wasm_valtype_vec_delete(&out);
}

static void owned_copies_use_num_elems(void)
{
    wasm_valtype_vec_t src;

    /* Three slots, one in use: the copy has size 3 and one element. */
    wasm_valtype_vec_new_uninitialized(&src, 3);
    src.data[0] = wasm_valtype_new(WASM_F32);
    src.num_elems = 1;
    check_owned_copy(&src, 1);

    /* Filled but num_elems left 0: nothing is in use, so nothing is
       copied. */
    src.data[1] = wasm_valtype_new(WASM_I64);
    src.num_elems = 0;
    check_owned_copy(&src, 0);

    src.num_elems = 2;
    wasm_valtype_vec_delete(&src);
}

static wasm_trap_t *nop_cb(const wasm_val_vec_t *args, wasm_val_vec_t *results)
{
    (void)args;
    (void)results;
    return NULL;
}

static void owned_deletes_use_num_elems(void)
{
    wasm_functype_t *ft = wasm_functype_new_0_0();
    wasm_func_t *f = wasm_func_new(store, ft, nop_cb);
    wasm_extern_vec_t v;
    wasm_valtype_vec_t t;
    wasm_valtype_t *vt = wasm_valtype_new(WASM_I64);
    static int info;

    wasm_functype_delete(ft);
    CHECK(f != NULL, "wasm_func_new");
    wasm_func_set_host_info_with_finalizer(f, &info, count_finalizer);

    /* Slot 0 filled, num_elems left 0: deleting the vector frees the
       buffer only; the func stays the caller's. */
    wasm_extern_vec_new_uninitialized(&v, 1);
    v.data[0] = wasm_func_as_extern(f);
    wasm_extern_vec_delete(&v);
    CHECK_EQ_INT(finalized, 0, "func beyond num_elems deleted with its vector");

    /* In use (num_elems 1): deleted with the vector. */
    wasm_extern_vec_new_uninitialized(&v, 1);
    v.data[0] = wasm_func_as_extern(f);
    v.num_elems = 1;
    wasm_extern_vec_delete(&v);
    CHECK_EQ_INT(finalized, 1, "func in use deleted with its vector");

    wasm_valtype_vec_new_uninitialized(&t, 2);
    t.data[0] = vt;
    wasm_valtype_vec_delete(&t);
    CHECK(wasm_valtype_kind(vt) == WASM_I64,
          "a valtype beyond num_elems survives the vector's deletion");
    wasm_valtype_delete(vt);
}

int main(int argc, char **argv)
{
    test_init(argc, argv, "wamr_vectors");
    RUN_PART(huge_sizes_give_empty_vectors);
    RUN_PART(plain_copies_copy_size_elements);
    RUN_PART(plain_copy_of_null_leaves_out);
    RUN_PART(owned_copies_use_num_elems);
    RUN_PART(owned_deletes_use_num_elems);
    test_pass();
    return 0;
}
