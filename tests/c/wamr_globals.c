/* WAMR's globals (wasm_global_new / _get / _set, interp_link_global,
 * wasm_val_to_rt_val). Rows "globals: ..." of the table in
 * capi/README.md.
 *
 *  - wasm_global_new does not compare the init value's kind with the
 *    type: the global is made, and linking it stores the init value's
 *    payload read at the type's width.
 *  - A global made by the host is not readable or writable until an
 *    instance has linked it: wasm_global_get leaves *out untouched and
 *    wasm_global_set does nothing. Once linked, both act on the
 *    instance's global, which wasm sees.
 *  - wasm_global_set checks neither mutability nor kind: a const global
 *    is set too, and the value's payload is stored at the global's width
 *    (an f32 value sets an i32 global to its bits).
 */
#include "wamr.h"

static wasm_global_t *host_global(wasm_valkind_t kind, wasm_mutability_t mut,
                                  const wasm_val_t *init)
{
    wasm_globaltype_t *gt = wasm_globaltype_new(wasm_valtype_new(kind), mut);
    wasm_global_t *g = wasm_global_new(store, gt, init);
    wasm_globaltype_delete(gt);
    return g;
}

static wasm_instance_t *link_globals(const wasm_module_t *m, wasm_global_t *g,
                                     wasm_global_t *c)
{
    wasm_extern_t *imports[2] = { wasm_global_as_extern(g),
                                  wasm_global_as_extern(c) };
    wasm_trap_t *trap;
    wasm_instance_t *inst = try_instantiate(store, m, imports, 2, &trap);
    EXPECT_NO_TRAP(trap);
    CHECK(inst != NULL, "instantiate wamr_globals");
    return inst;
}

static void init_of_another_kind(void)
{
    wasm_module_t *m = compile_module(store, "wamr_globals");
    wasm_val_t i32_3, g0 = WASM_I32_VAL(0);
    wasm_global_t *c, *g;
    wasm_globaltype_t *t;
    wasm_instance_t *inst;

    memset(&i32_3, 0, sizeof i32_3);
    i32_3.kind = WASM_I32;
    i32_3.of.i32 = 3;
    c = host_global(WASM_I64, WASM_CONST, &i32_3);
    CHECK(c != NULL, "an i64 global with an i32 init value is made");
    if (!c)
        return;
    t = wasm_global_type(c);
    CHECK(t && wasm_valtype_kind(wasm_globaltype_content(t)) == WASM_I64,
          "its type is the one given");
    wasm_globaltype_delete(t);
    g = host_global(WASM_I32, WASM_VAR, &g0);
    inst = link_globals(m, g, c);
    if (inst)
        CHECK_EQ_INT(call_i64_export(m, inst, "get_c", NULL, 0), 3,
                     "the payload is read at the type's width");
    wasm_module_delete(m);
}

static void unlinked_host_globals(void)
{
    wasm_module_t *m = compile_module(store, "wamr_globals");
    wasm_val_t seven = WASM_I32_VAL(7), nine = WASM_I32_VAL(9);
    wasm_val_t c0 = WASM_I64_VAL(1), eleven = WASM_I32_VAL(11), out;
    wasm_val_t args[1] = { WASM_I32_VAL(12) };
    wasm_global_t *g = host_global(WASM_I32, WASM_VAR, &seven);
    wasm_global_t *c = host_global(WASM_I64, WASM_CONST, &c0);
    wasm_instance_t *inst;

    out = (wasm_val_t)WASM_F32_VAL(3.5f);
    wasm_global_get(g, &out);
    CHECK(out.kind == WASM_F32 && out.of.f32 == 3.5f,
          "get before linking leaves *out: kind %d", out.kind);
    wasm_global_set(g, &nine);

    inst = link_globals(m, g, c);
    if (!inst)
        return;
    CHECK_EQ_INT(call_i32_export(m, inst, "get_g", NULL, 0), 7,
                 "a set before linking was ignored; wasm sees the init value");
    memset(&out, 0, sizeof out);
    wasm_global_get(g, &out);
    CHECK(out.kind == WASM_I32 && out.of.i32 == 7,
          "linked: get reads the instance's global: kind %d value %d",
          out.kind, out.of.i32);
    wasm_global_set(g, &eleven);
    CHECK_EQ_INT(call_i32_export(m, inst, "get_g", NULL, 0), 11,
                 "linked: wasm sees the host's set");
    EXPECT_NO_TRAP(call_export(m, inst, "set_g", args, 1, NULL));
    wasm_global_get(g, &out);
    CHECK(out.of.i32 == 12, "linked: the host sees wasm's set: %d",
          out.of.i32);
    wasm_module_delete(m);
}

/* Sets `g` to a value of `kind` whose 8 payload bytes are `bits` (an i32
   or f32 in the low 4), and reads it back. */
static wasm_val_t set_bits(wasm_global_t *g, wasm_valkind_t kind, int64_t bits)
{
    wasm_val_t v, out;
    memset(&v, 0, sizeof v);
    memset(&out, 0, sizeof out);
    v.kind = kind;
    v.of.i64 = bits;
    wasm_global_set(g, &v);
    wasm_global_get(g, &out);
    return out;
}

static void set_checks_neither_mutability_nor_kind(void)
{
    wasm_module_t *m = compile_module(store, "wamr_globals");
    wasm_val_t g0 = WASM_I32_VAL(0), c0 = WASM_I64_VAL(0), out;
    wasm_instance_t *inst = link_globals(m, host_global(WASM_I32, WASM_VAR, &g0),
                                         host_global(WASM_I64, WASM_CONST, &c0));
    wasm_global_t *k, *vg;
    if (!inst)
        return;
    k = wasm_extern_as_global(export_of(m, inst, "k"));
    vg = wasm_extern_as_global(export_of(m, inst, "v"));
    CHECK(k && vg, "exported globals");

    /* The exported const k (i32 10) is set. */
    out = set_bits(k, WASM_I32, -5);
    CHECK(out.kind == WASM_I32 && out.of.i32 == -5,
          "a const global is set: got %d", out.of.i32);
    CHECK_EQ_INT(call_i32_export(m, inst, "get_k", NULL, 0), -5,
                 "and wasm reads the new value");

    /* An f32 value (1.0f) sets the i32 global to its bits. */
    out = set_bits(k, WASM_F32, 0x3f800000);
    CHECK(out.kind == WASM_I32 && out.of.i32 == 0x3f800000,
          "i32 global set with an f32: kind %d bits %#x", out.kind,
          (unsigned)out.of.i32);

    /* An i32 value sets the i64 global v from the 8 bytes of the
       payload (zero here beyond the i32). */
    out = set_bits(vg, WASM_I32, 77);
    CHECK(out.kind == WASM_I64 && out.of.i64 == 77,
          "i64 global set with an i32: kind %d value %lld", out.kind,
          (long long)out.of.i64);
    CHECK_EQ_INT(call_i64_export(m, inst, "get_v", NULL, 0), 77, "wasm view");

    /* An i64 value sets the i32 global k from the low 4 bytes. */
    out = set_bits(k, WASM_I64, 0x100000005LL);
    CHECK(out.kind == WASM_I32 && out.of.i32 == 5,
          "i32 global set with an i64: value %d", out.of.i32);
    wasm_global_delete(k);
    wasm_global_delete(vg);
    wasm_module_delete(m);
}

int main(int argc, char **argv)
{
    test_init(argc, argv, "wamr_globals");
    RUN_PART(init_of_another_kind);
    RUN_PART(unlinked_host_globals);
    RUN_PART(set_checks_neither_mutability_nor_kind);
    test_pass();
    return 0;
}
