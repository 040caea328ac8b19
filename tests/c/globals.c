/* Globals: host-created globals imported by wasm, exported globals of every
   numeric type, reads and writes from both sides, and what WAMR's C API
   checks (capi/README.md, rows on globals): wasm_global_set checks neither
   mutability nor kind, linking compares the value kind but not the
   mutability, a host global is unreadable until an instance links it, and
   wasm_global_new takes an initial value of any kind. A module writing a
   const global does not compile. */
#include "common.h"

static wasm_val_t get(const wasm_global_t *g)
{
    wasm_val_t v;
    memset(&v, 0xAA, sizeof v);
    wasm_global_get(g, &v);
    return v;
}

static wasm_global_t *exported_global(const instance_t *inst, const char *n)
{
    wasm_global_t *g = wasm_extern_as_global(export_named(inst, n));
    CHECK(g != NULL, "export %s is not a global", n);
    return g;
}

static void check_type(const wasm_global_t *g, wasm_valkind_t kind,
                       wasm_mutability_t mut, const char *what)
{
    wasm_globaltype_t *gt = wasm_global_type(g);
    CHECK(gt != NULL, "%s: wasm_global_type", what);
    CHECK_EQ_INT(wasm_valtype_kind(wasm_globaltype_content(gt)), kind, what);
    CHECK_EQ_INT(wasm_globaltype_mutability(gt), mut, what);
    wasm_globaltype_delete(gt);
}

static wasm_val_t call0(const instance_t *inst, const char *name)
{
    wasm_val_t r[1] = { WASM_INIT_VAL };
    EXPECT_NO_TRAP(call(export_func(inst, name), NULL, 0, r, 1));
    return r[0];
}

static void call1(const instance_t *inst, const char *name, wasm_val_t arg)
{
    EXPECT_NO_TRAP(call(export_func(inst, name), &arg, 1, NULL, 0));
}

static wasm_global_t *new_global(wasm_store_t *store, wasm_valkind_t kind,
                                 wasm_mutability_t mut, wasm_val_t init)
{
    wasm_globaltype_t *gt = wasm_globaltype_new(wasm_valtype_new(kind), mut);
    wasm_global_t *g;
    CHECK(gt != NULL, "wasm_globaltype_new");
    g = wasm_global_new(store, gt, &init);
    wasm_globaltype_delete(gt);
    return g;
}

int main(int argc, char **argv)
{
    wasm_engine_t *engine;
    wasm_store_t *store;
    wasm_module_t *module;
    wasm_global_t *ci, *vi, *f32g, *f64g, *i32g, *vi_again;
    wasm_extern_t *imports[2];
    instance_t inst;
    wasm_val_t v;

    test_init(argc, argv, "globals");
    engine = wasm_engine_new();
    store = wasm_store_new(engine);
    module = compile_module(store, "globals");

    ci = new_global(store, WASM_I32, WASM_CONST,
                    (wasm_val_t)WASM_I32_VAL(42));
    vi = new_global(store, WASM_I64, WASM_VAR,
                    (wasm_val_t)WASM_I64_VAL(100));
    CHECK(ci && vi, "wasm_global_new");
    check_type(ci, WASM_I32, WASM_CONST, "host const i32 type");
    check_type(vi, WASM_I64, WASM_VAR, "host var i64 type");

    imports[0] = wasm_global_as_extern(ci);
    imports[1] = wasm_global_as_extern(vi);
    inst = instantiate(store, module, imports, 2);
    f32g = exported_global(&inst, "var_f32");
    f64g = exported_global(&inst, "const_f64");
    i32g = exported_global(&inst, "var_i32");
    vi_again = exported_global(&inst, "var_i64_again");
    check_type(f32g, WASM_F32, WASM_VAR, "exported var f32 type");
    check_type(f64g, WASM_F64, WASM_CONST, "exported const f64 type");
    check_type(i32g, WASM_I32, WASM_VAR, "exported var i32 type");
    check_type(vi_again, WASM_I64, WASM_VAR, "re-exported import type");

    /* 1. Globals defined by the module: initial values, writes from either
       side seen by the other. */
    v = call0(&inst, "get_ci");
    CHECK(v.kind == WASM_I32 && v.of.i32 == 42, "wasm reads imported const");
    v = call0(&inst, "get_vi");
    CHECK(v.kind == WASM_I64 && v.of.i64 == 100, "wasm reads imported var");
    v = get(f32g);
    CHECK(v.kind == WASM_F32 && v.of.f32 == 1.5f, "exported f32 initial");
    v = get(f64g);
    CHECK(v.kind == WASM_F64 && v.of.f64 == 2.25, "exported f64 initial");
    v = get(i32g);
    CHECK(v.kind == WASM_I32 && v.of.i32 == 7, "exported i32 initial");
    v = (wasm_val_t)WASM_F32_VAL(-0.125f);
    wasm_global_set(f32g, &v);
    v = call0(&inst, "get_f32");
    CHECK(v.kind == WASM_F32 && v.of.f32 == -0.125f,
          "wasm sees the host's write to an exported global");
    v = (wasm_val_t)WASM_I32_VAL(-1);
    wasm_global_set(i32g, &v);
    v = call0(&inst, "get_i32");
    CHECK(v.of.i32 == -1, "exported i32 written by host");
    call1(&inst, "set_f32", (wasm_val_t)WASM_F32_VAL(3.75f));
    v = get(f32g);
    CHECK(v.of.f32 == 3.75f, "host sees wasm's write to an exported f32");
    call1(&inst, "set_i32", (wasm_val_t)WASM_I32_VAL(99));
    v = get(i32g);
    CHECK(v.of.i32 == 99, "host sees wasm's write to an exported i32");

    /* 2. As in WAMR, wasm_global_set checks neither mutability nor kind:
       a const global is set, and a value of another kind is stored by its
       payload at the global's width (the low 4 bytes of 1.0's bits, 0). */
    v = (wasm_val_t)WASM_F64_VAL(-1.0);
    wasm_global_set(f64g, &v);
    v = call0(&inst, "get_f64");
    CHECK(v.of.f64 == -1.0, "exported const global set to -1: %g", v.of.f64);
    v = get(f64g);
    CHECK(v.of.f64 == -1.0, "exported const global reads %g", v.of.f64);
    v = (wasm_val_t)WASM_F64_VAL(1.0);
    wasm_global_set(i32g, &v);
    v = get(i32g);
    CHECK(v.kind == WASM_I32 && v.of.i32 == 0,
          "i32 global set with an f64 value: kind %d value %d", v.kind,
          v.of.i32);

    /* 3. A module that writes a const global is invalid. */
    {
        static const uint8_t set_const[] = {
            0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
            /* type section: () -> () */
            0x01, 0x04, 0x01, 0x60, 0x00, 0x00,
            /* function section: one function of type 0 */
            0x03, 0x02, 0x01, 0x00,
            /* global section: (global i32 (i32.const 0)) */
            0x06, 0x06, 0x01, 0x7f, 0x00, 0x41, 0x00, 0x0b,
            /* code: i32.const 1; global.set 0; end */
            0x0a, 0x08, 0x01, 0x06, 0x00, 0x41, 0x01, 0x24, 0x00, 0x0b,
        };
        wasm_byte_vec_t bytes;
        wasm_byte_vec_new(&bytes, sizeof set_const, (const char *)set_const);
        CHECK(!wasm_module_validate(store, &bytes),
              "module writing a const global validated");
        CHECK(wasm_module_new(store, &bytes) == NULL,
              "module writing a const global compiled");
        /* The same bytes with a mutable global are fine. */
        bytes.data[22] = 0x01;
        CHECK(wasm_module_validate(store, &bytes),
              "same module with (mut i32) should validate");
        wasm_byte_vec_delete(&bytes);
    }

    /* 4. Linking compares the value kind, not the mutability (WAMR): a
       const global satisfies a (mut i64) import, a (mut i32) global an
       (i32) import; an i32 global where an i64 is imported fails. */
    {
        wasm_global_t *const_i64 = new_global(
            store, WASM_I64, WASM_CONST, (wasm_val_t)WASM_I64_VAL(1));
        wasm_global_t *var_i32 = new_global(store, WASM_I32, WASM_VAR,
                                            (wasm_val_t)WASM_I32_VAL(1));
        wasm_extern_t *given[2];
        wasm_extern_vec_t vec = { 2, given, 2, sizeof(wasm_extern_t *), NULL };
        wasm_trap_t *trap = NULL;
        wasm_instance_t *i;

        given[0] = wasm_global_as_extern(ci);
        given[1] = wasm_global_as_extern(const_i64);
        i = wasm_instance_new(store, module, &vec, &trap);
        EXPECT_NO_TRAP(trap);
        CHECK(i != NULL, "a const global satisfies a (mut i64) import");
        wasm_instance_delete(i);

        given[0] = wasm_global_as_extern(var_i32);
        given[1] = wasm_global_as_extern(vi);
        i = wasm_instance_new(store, module, &vec, &trap);
        EXPECT_NO_TRAP(trap);
        CHECK(i != NULL, "a (mut i32) global satisfies an (i32) import");
        wasm_instance_delete(i);

        given[1] = wasm_global_as_extern(var_i32);
        i = wasm_instance_new(store, module, &vec, &trap);
        CHECK(i == NULL, "an i32 global satisfied an i64 import");
        EXPECT_TRAP(trap, "wasm_instance_new_with_args_ex failed: Failed to "
                          "validate imports");
        wasm_global_delete(const_i64);
        wasm_global_delete(var_i32);
    }

    /* 5. Host globals are WAMR's: before an instance links one, reading it
       leaves the value alone and setting it does nothing; once linked, it
       stands for the instance's global (a write on either side is seen by
       the other), and, as any global, it is set even when const. */
    {
        wasm_global_t *fresh = new_global(store, WASM_F64, WASM_VAR,
                                          (wasm_val_t)WASM_F64_VAL(0.5));
        v = get(fresh);
        CHECK(v.kind == 0xAA, "an unlinked host global leaves *out: kind %d",
              v.kind);
        v = (wasm_val_t)WASM_F64_VAL(-8.0);
        wasm_global_set(fresh, &v);
        v = get(fresh);
        CHECK(v.kind == 0xAA, "an unlinked host global stays unreadable");
        wasm_global_delete(fresh);
    }
    v = get(ci);
    CHECK(v.kind == WASM_I32 && v.of.i32 == 42,
          "a linked host const i32 reads the instance's: kind %d value %d",
          v.kind, v.of.i32);
    v = (wasm_val_t)WASM_I64_VAL(-5000000000LL);
    wasm_global_set(vi, &v);
    v = call0(&inst, "get_vi");
    CHECK(v.of.i64 == -5000000000LL,
          "wasm sees the host's write to an imported global: %lld",
          (long long)v.of.i64);
    v = get(vi_again);
    CHECK(v.of.i64 == -5000000000LL, "re-export is the same global");
    call1(&inst, "set_vi", (wasm_val_t)WASM_I64_VAL(0x123456789abcLL));
    v = get(vi);
    CHECK(v.kind == WASM_I64 && v.of.i64 == 0x123456789abcLL,
          "host sees wasm's write to an imported global");
    v = (wasm_val_t)WASM_I32_VAL(7);
    wasm_global_set(ci, &v);
    v = get(ci);
    CHECK(v.of.i32 == 7, "host const global set to 7: %d", v.of.i32);
    v = call0(&inst, "get_ci");
    CHECK(v.of.i32 == 7, "wasm sees the const global set: %d", v.of.i32);

    /* 6. wasm_global_new takes a value of another kind, as WAMR does (its
       payload is read at the type's width when an instance links it). */
    {
        wasm_global_t *other = new_global(store, WASM_I32, WASM_VAR,
                                          (wasm_val_t)WASM_F32_VAL(1.0f));
        CHECK(other != NULL, "wasm_global_new with an f32 for an i32");
        wasm_global_delete(other);
    }

    instance_release(&inst);
    wasm_global_delete(ci);
    wasm_global_delete(vi);
    wasm_module_delete(module);
    wasm_store_delete(store);
    wasm_engine_delete(engine);
    test_pass();
    return 0;
}
