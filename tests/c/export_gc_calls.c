/* GC objects as arguments and results of wasm_export.h's calls (issue 40),
 * as WAMR's GC build passes them: a reference of the any hierarchy is the
 * wasm_obj_t itself, two cells in argv (wasm_runtime_call_wasm), of.foreign
 * of a wasm_val_t of kind WASM_EXTERNREF (_call_wasm_a), a pointer among
 * the variadic arguments (_call_wasm_v). (This test sees wasm_c_api.h's
 * wasm_val_t, whose union calls those 8 bytes `ref`.) Objects the host
 * makes reach wasm and come back the same object; results survive
 * collections while the instance lives; an object of the wrong type, a
 * foreign pointer or a NULL where none is allowed is refused with an
 * exception before wasm runs. */
#include "export_common.h"
#include "gc_export.h"

static const char *WAT =
    "(module\n"
    "  (type $point (struct (field $x i32) (field $y (mut i32))))\n"
    "  (type $other (struct (field i64)))\n"
    "  (type $node (struct (field (ref null $node)) (field i32)))\n"
    "  (func (export \"make\") (param i32 i32) (result (ref $point))\n"
    "    (struct.new $point (local.get 0) (local.get 1)))\n"
    "  (func (export \"sum\") (param (ref null $point)) (result i32)\n"
    "    (if (result i32) (ref.is_null (local.get 0)) (then (i32.const -1))\n"
    "      (else (i32.add (struct.get $point $x (local.get 0)) (struct.get $point $y (local.get 0))))))\n"
    "  (func (export \"strict\") (param (ref $point)) (result i32) (struct.get $point $x (local.get 0)))\n"
    "  (func (export \"same\") (param anyref eqref) (result i32)\n"
    "    (ref.eq (ref.cast eqref (local.get 0)) (local.get 1)))\n"
    "  (func (export \"echo\") (param anyref) (result anyref) (local.get 0))\n"
    "  (func (export \"i31\") (param i31ref) (result i32) (i31.get_s (local.get 0)))\n"
    "  (func (export \"churn\") (param $times i32)\n"
    "    (local $l (ref null $node)) (local $i i32)\n"
    "    (loop $again\n"
    "      (local.set $l (ref.null $node)) (local.set $i (i32.const 1000))\n"
    "      (loop $add\n"
    "        (local.set $l (struct.new $node (local.get $l) (local.get $i)))\n"
    "        (br_if $add (local.tee $i (i32.sub (local.get $i) (i32.const 1)))))\n"
    "      (br_if $again (local.tee $times (i32.sub (local.get $times) (i32.const 1)))))))\n";

enum { T_POINT, T_OTHER };

static wasm_function_inst_t fn(wasm_module_inst_t i, const char *name)
{
    wasm_function_inst_t f = wasm_runtime_lookup_function(i, name);
    CHECK(f != NULL, "export %s", name);
    return f;
}

/* Calls `name` with one object argument through _call_wasm_a and returns
 * its i32 result, or INT32_MIN after a refusal (exception set). */
static int32_t call_obj_a(wasm_exec_env_t env, wasm_module_inst_t i, const char *name, void *obj)
{
    wasm_val_t arg = { .kind = WASM_EXTERNREF, .of.ref = (wasm_ref_t *)(obj) };
    wasm_val_t res = { 0 };
    if (!wasm_runtime_call_wasm_a(env, fn(i, name), 1, &res, 1, &arg))
        return INT32_MIN;
    CHECK_EQ_INT(res.kind, WASM_I32, "an i32 result");
    return res.of.i32;
}

static wasm_struct_obj_t make_a(wasm_exec_env_t env, wasm_module_inst_t i, int32_t x, int32_t y)
{
    wasm_val_t args[2] = { { .kind = WASM_I32, .of.i32 = x }, { .kind = WASM_I32, .of.i32 = y } };
    wasm_val_t res = { 0 };
    CHECK(wasm_runtime_call_wasm_a(env, fn(i, "make"), 1, &res, 2, args), "make: %s", exception(i));
    CHECK_EQ_INT(res.kind, WASM_EXTERNREF, "a GC result's kind is WASM_EXTERNREF");
    CHECK(wasm_obj_is_struct_obj((wasm_obj_t)res.of.ref), "make returns a struct object");
    return (wasm_struct_obj_t)res.of.ref;
}

static void expect_refused(wasm_module_inst_t i, int32_t got, const char *part, const char *what)
{
    const char *e = exception(i);
    CHECK(got == INT32_MIN, "%s: refused (got %d)", what, got);
    CHECK(e && strstr(e, part), "%s: exception \"%s\" should mention \"%s\"", what, e ? e : "(none)", part);
    wasm_runtime_clear_exception(i);
}

int main(int argc, char **argv)
{
    wasm_module_t m;
    wasm_module_inst_t i, i2;
    wasm_exec_env_t env, env2;
    wasm_struct_obj_t p, q, held[32];
    wasm_value_t field;
    int k;

    test_init(argc, argv, "export_gc_calls");
    CHECK(wasm_runtime_init(), "wasm_runtime_init");
    m = load_wat(WAT);
    i = instantiate_module(m, 0);
    i2 = instantiate_module(m, 0);
    env = wasm_runtime_create_exec_env(i, 65536);
    env2 = wasm_runtime_create_exec_env(i2, 65536);
    CHECK(env && env2, "exec envs");

    /* A result of _call_wasm_a, read from C and passed back. */
    p = make_a(env, i, 30, 12);
    wasm_struct_obj_get_field(p, 1, false, &field);
    CHECK_EQ_INT(field.i32, 12, "y read from C");
    CHECK_EQ_INT(call_obj_a(env, i, "sum", p), 42, "sum of wasm's struct");
    CHECK_EQ_INT(call_obj_a(env, i, "sum", NULL), -1, "NULL is a null reference");

    /* Host-made objects reach wasm. */
    q = wasm_struct_obj_new_with_typeidx(env, T_POINT);
    CHECK(q != NULL, "a host struct");
    field.i32 = 5;
    wasm_struct_obj_set_field(q, 0, &field);
    field.i32 = 6;
    wasm_struct_obj_set_field(q, 1, &field);
    CHECK_EQ_INT(call_obj_a(env, i, "sum", q), 11, "sum of the host's struct");

    /* Identity: echo gives back the same object; ref.eq agrees. */
    {
        wasm_val_t arg = { .kind = WASM_EXTERNREF, .of.ref = (wasm_ref_t *)(p) }, res = { 0 };
        wasm_val_t two[2] = { arg, arg };
        CHECK(wasm_runtime_call_wasm_a(env, fn(i, "echo"), 1, &res, 1, &arg), "echo");
        CHECK(res.kind == WASM_EXTERNREF && res.of.ref, "echo's result");
        two[1].of.ref = res.of.ref;
        CHECK(wasm_runtime_call_wasm_a(env, fn(i, "same"), 1, &res, 2, two), "same");
        CHECK_EQ_INT(res.of.i32, 1, "the echoed object is ref.eq to p");
        two[1].of.ref = (wasm_ref_t *)(q);
        CHECK(wasm_runtime_call_wasm_a(env, fn(i, "same"), 1, &res, 2, two) && res.of.i32 == 0, "p is not q");
    }

    /* i31 words, both ways. */
    {
        wasm_i31_obj_t w = wasm_i31_obj_new((uint32_t)-9);
        wasm_val_t arg = { .kind = WASM_EXTERNREF, .of.ref = (wasm_ref_t *)(w) }, res = { 0 };
        CHECK_EQ_INT(call_obj_a(env, i, "i31", (void *)w), -9, "an i31 argument");
        CHECK(wasm_runtime_call_wasm_a(env, fn(i, "echo"), 1, &res, 1, &arg), "echo an i31");
        CHECK((uintptr_t)res.of.ref == (uintptr_t)w, "an i31 result is the same word");
    }

    /* wasm_runtime_call_wasm: an object is two cells, the result too. */
    {
        uint32_t argv_[2];
        uintptr_t o = (uintptr_t)p;
        memcpy(argv_, &o, sizeof o);
        CHECK(wasm_runtime_call_wasm(env, fn(i, "sum"), 2, argv_), "sum via cells: %s", exception(i));
        CHECK_EQ_INT((int32_t)argv_[0], 42, "sum via cells");
        memcpy(argv_, &o, sizeof o);
        CHECK(wasm_runtime_call_wasm(env, fn(i, "echo"), 2, argv_), "echo via cells");
        memcpy(&o, argv_, sizeof o);
        CHECK(wasm_obj_is_struct_obj((wasm_obj_t)o), "echo via cells gives a struct object");
        memcpy(argv_, &o, sizeof o);
        CHECK(!wasm_runtime_call_wasm(env, fn(i, "sum"), 1, argv_), "one cell is too few for an object");
        wasm_runtime_clear_exception(i);
    }

    /* The variadic form: the object as a pointer. */
    {
        wasm_val_t res = { 0 };
        CHECK(wasm_runtime_call_wasm_v(env, fn(i, "sum"), 1, &res, 1, (void *)q), "sum via varargs");
        CHECK_EQ_INT(res.of.i32, 11, "sum via varargs");
    }

    /* Results outlive collections (each cell pins its object). */
    for (k = 0; k < 32; k++)
        held[k] = make_a(env, i, k, 1);
    for (k = 0; k < 30; k++) {
        wasm_val_t arg = { .kind = WASM_I32, .of.i32 = 100 };
        CHECK(wasm_runtime_call_wasm_a(env, fn(i, "churn"), 0, NULL, 1, &arg), "churn: %s", exception(i));
    }
    for (k = 0; k < 32; k++) {
        wasm_struct_obj_get_field(held[k], 0, false, &field);
        CHECK_EQ_INT(field.i32, k, "a held struct after 48 MB of garbage");
        CHECK_EQ_INT(call_obj_a(env, i, "sum", held[k]), k + 1, "wasm reads the moved struct");
    }

    /* Refusals: wrong type, NULL for a non-null parameter, foreign
     * pointers, objects of another instance's store. */
    {
        wasm_struct_obj_t o = wasm_struct_obj_new_with_typeidx(env, T_OTHER);
        static int not_an_object;
        wasm_val_t arg = { .kind = WASM_I32, .of.i32 = 1 }, res = { 0 };
        CHECK(o != NULL, "a struct of another type");
        expect_refused(i, call_obj_a(env, i, "sum", o), "not of the parameter's type", "another struct type");
        expect_refused(i, call_obj_a(env, i, "sum", (void *)wasm_i31_obj_new(1)), "not of the parameter's type",
                       "an i31 for a struct");
        expect_refused(i, call_obj_a(env, i, "strict", NULL), "not of the parameter's type", "NULL for (ref $point)");
        expect_refused(i, call_obj_a(env, i, "sum", &not_an_object), "conversion", "a foreign pointer");
        expect_refused(i, call_obj_a(env, i, "sum", (void *)((uintptr_t)&not_an_object + 2)), "conversion",
                       "an unaligned foreign pointer");
        CHECK(!wasm_runtime_call_wasm_a(env, fn(i, "sum"), 1, &res, 1, &arg), "an i32 for an object is refused");
        wasm_runtime_clear_exception(i);
        {
            wasm_struct_obj_t theirs = make_a(env2, i2, 1, 1);
            expect_refused(i, call_obj_a(env, i, "sum", theirs), "conversion",
                           "an object of another instance's store");
        }
    }

    wasm_runtime_destroy_exec_env(env2);
    wasm_runtime_deinstantiate(i2);
    wasm_runtime_destroy_exec_env(env);
    wasm_runtime_deinstantiate(i);
    wasm_runtime_unload(m);
    wasm_runtime_destroy();
    test_pass();
    return 0;
}
