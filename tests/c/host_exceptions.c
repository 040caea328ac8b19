/* A host callback throws a wasm exception (cranewasm extensions,
 * capi/src/ext/exceptions.rs): it returns the trap that
 * cranewasm_trap_new_exception makes for a tag the instance exports
 * (cranewasm_instance_export_tag) and a payload. A try_table in the wasm
 * caller catches it with its payload; one nothing catches comes out of
 * wasm_func_call as an uncaught exception whose tag and payload the trap
 * gives back. A callback that returns the exception trap of a nested call
 * rethrows that exception. Bad inputs (another store's tag, a payload of
 * the wrong length or kinds, NULLs) get NULL and a reason, never a crash.
 */
#include "common.h"

static const char *wat =
    "(module\n"
    "  (tag $e (export \"e\") (param i32 f64))\n"
    "  (tag $other (export \"other\") (param i32))\n"
    "  (import \"host\" \"throw\" (func $throw (param i32)))\n"
    "  (import \"host\" \"relay\" (func $relay (param i32)))\n"
    "  (func (export \"caught\") (param i32) (result i32 f64)\n"
    "    (block $h (result i32 f64)\n"
    "      (try_table (catch $e $h) (call $throw (local.get 0)))\n"
    "      (i32.const -1) (f64.const 0)))\n"
    "  (func (export \"caught_all\") (param i32) (result i32)\n"
    "    (block $h\n"
    "      (try_table (catch_all $h) (call $throw (local.get 0)))\n"
    "      (return (i32.const -1)))\n"
    "    (i32.const 1))\n"
    "  (func (export \"uncaught\") (param i32) (call $throw (local.get 0)))\n"
    "  (func (export \"relayed\") (param i32) (result i32 f64)\n"
    "    (block $h (result i32 f64)\n"
    "      (try_table (catch $e $h) (call $relay (local.get 0)))\n"
    "      (i32.const -1) (f64.const 0))))\n";

/* What the callbacks see: their store, the tag they throw, the payload's
   f64, and for the relay the export whose exception it passes on. */
typedef struct {
    wasm_store_t *store;
    cranewasm_tag_t *tag;
    double f;
    const wasm_func_t *nested;
    wasm_trap_t *foreign; /* a trap of another store to return, once */
} env_t;

static wasm_trap_t *throw_cb(void *p, const wasm_val_vec_t *args,
                             wasm_val_vec_t *results)
{
    env_t *env = p;
    wasm_val_t vals[2] = { WASM_I32_VAL(args->data[0].of.i32),
                           WASM_F64_VAL(env->f) };
    wasm_val_vec_t payload = { 2, vals, 2, sizeof(wasm_val_t), NULL };
    wasm_trap_t *t;
    (void)results;
    if (env->foreign) {
        t = env->foreign;
        env->foreign = NULL;
        return t;
    }
    t = cranewasm_trap_new_exception(env->store, env->tag, &payload);
    CHECK(t != NULL, "cranewasm_trap_new_exception");
    return t;
}

static wasm_trap_t *relay_cb(void *p, const wasm_val_vec_t *args,
                             wasm_val_vec_t *results)
{
    env_t *env = p;
    wasm_val_t arg[1] = { WASM_I32_VAL(args->data[0].of.i32 + 1) };
    wasm_trap_t *t = call(env->nested, arg, 1, NULL, 0);
    (void)results;
    CHECK(t != NULL, "the nested call throws");
    return t;
}

static wasm_module_t *module_of(wasm_store_t *store, const char *text)
{
    wasm_module_t *m = try_compile_text(store, text);
    CHECK(m != NULL, "wasm_module_new");
    return m;
}

static wasm_name_t name_of(const char *s)
{
    wasm_name_t n;
    wasm_name_new_from_string(&n, s);
    return n;
}

static cranewasm_tag_t *tag_named(const wasm_instance_t *inst, const char *s)
{
    wasm_name_t n = name_of(s);
    cranewasm_tag_t *t = cranewasm_instance_export_tag(inst, &n);
    wasm_byte_vec_delete(&n);
    return t;
}

/* The last error contains `part`. */
static void expect_last_error(const char *part)
{
    wasm_byte_vec_t msg;
    char buf[512];
    size_t n;
    CHECK(cranewasm_last_error(&msg), "a last error (expected \"%s\")", part);
    n = msg.num_elems < sizeof buf - 1 ? msg.num_elems : sizeof buf - 1;
    memcpy(buf, msg.data, n);
    buf[n] = '\0';
    wasm_byte_vec_delete(&msg);
    CHECK(strstr(buf, part) != NULL, "last error \"%s\", expected \"%s\"", buf,
          part);
}

int main(int argc, char **argv)
{
    wasm_engine_t *engine;
    wasm_store_t *store, *store2;
    wasm_module_t *module;
    wasm_functype_t *ty;
    wasm_func_t *thrower, *relay;
    wasm_extern_t *imports[2];
    instance_t inst, inst2;
    env_t env = { 0 }, env2 = { 0 };
    cranewasm_tag_t *other, *tag2;
    wasm_val_t args[1] = { WASM_I32_VAL(7) };
    wasm_val_t res[2] = { WASM_INIT_VAL, WASM_INIT_VAL };
    wasm_trap_t *trap;
    const wasm_valkind_t i32[1] = { WASM_I32 };

    test_init(argc, argv, "host_exceptions");
    engine = wasm_engine_new();
    store = wasm_store_new(engine);
    store2 = wasm_store_new(engine);
    module = module_of(store, wat);
    ty = functype_of(i32, 1, NULL, 0);

    env.store = store;
    env.f = 2.5;
    thrower = wasm_func_new_with_env(store, ty, throw_cb, &env, NULL);
    relay = wasm_func_new_with_env(store, ty, relay_cb, &env, NULL);
    imports[0] = wasm_func_as_extern(thrower);
    imports[1] = wasm_func_as_extern(relay);
    inst = instantiate(store, module, imports, 2);
    env.tag = tag_named(inst.instance, "e");
    env.nested = export_func(&inst, "uncaught");
    CHECK(env.tag != NULL, "cranewasm_instance_export_tag(\"e\")");

    /* Its type: the payload's kinds as parameters. */
    {
        wasm_functype_t *tt = cranewasm_tag_type(env.tag);
        const wasm_valtype_vec_t *ps = wasm_functype_params(tt);
        CHECK_EQ_INT(ps->num_elems, 2, "tag parameters");
        CHECK_EQ_INT(wasm_valtype_kind(ps->data[0]), WASM_I32, "param 0");
        CHECK_EQ_INT(wasm_valtype_kind(ps->data[1]), WASM_F64, "param 1");
        CHECK_EQ_INT(wasm_functype_results(tt)->num_elems, 0, "tag results");
        wasm_functype_delete(tt);
    }
    /* Only tags are found, by their export name (a NUL-terminated name
       too). */
    CHECK(tag_named(inst.instance, "caught") == NULL, "a function is no tag");
    CHECK(tag_named(inst.instance, "none") == NULL, "no such export");
    {
        wasm_name_t n;
        cranewasm_tag_t *t;
        wasm_name_new_from_string_nt(&n, "e");
        t = cranewasm_instance_export_tag(inst.instance, &n);
        wasm_byte_vec_delete(&n);
        CHECK(cranewasm_tag_same(t, env.tag), "the same tag by a NUL name");
        cranewasm_tag_delete(t);
    }
    CHECK(cranewasm_instance_export_tag(NULL, NULL) == NULL, "NULLs");
    other = tag_named(inst.instance, "other");
    CHECK(other && !cranewasm_tag_same(other, env.tag), "two tags");

    /* Caught by the caller's try_table, with its payload. */
    EXPECT_NO_TRAP(call(export_func(&inst, "caught"), args, 1, res, 2));
    CHECK_EQ_INT(res[0].of.i32, 7, "payload i32 caught in wasm");
    CHECK(res[1].kind == WASM_F64 && res[1].of.f64 == 2.5,
          "payload f64 caught in wasm");
    {
        int32_t out = 0;
        EXPECT_NO_TRAP(call_i32(export_func(&inst, "caught_all"), 3, &out));
        CHECK_EQ_INT(out, 1, "catch_all catches a host exception");
    }

    /* Uncaught: the outer call's trap carries tag and payload. */
    trap = call(export_func(&inst, "uncaught"), args, 1, NULL, 0);
    CHECK(trap != NULL, "the exception leaves wasm");
    {
        wasm_val_vec_t payload;
        cranewasm_tag_t *t = cranewasm_trap_exception_tag(trap);
        CHECK(cranewasm_tag_same(t, env.tag), "the uncaught exception's tag");
        cranewasm_tag_delete(t);
        CHECK(cranewasm_trap_exception_payload(trap, &payload), "payload");
        CHECK_EQ_INT(payload.num_elems, 2, "payload size");
        CHECK_EQ_INT(payload.data[0].of.i32, 7, "payload i32 uncaught");
        CHECK(payload.data[1].of.f64 == 2.5, "payload f64 uncaught");
        wasm_val_vec_delete(&payload);
    }
    EXPECT_TRAP(trap, "Exception: uncaught wasm exception");

    /* Rethrown: the relay returns its nested call's exception, which the
       caller catches. */
    env.f = 4.0;
    EXPECT_NO_TRAP(call(export_func(&inst, "relayed"), args, 1, res, 2));
    CHECK_EQ_INT(res[0].of.i32, 8, "rethrown payload i32");
    CHECK(res[1].of.f64 == 4.0, "rethrown payload f64");

    /* Bad inputs: NULL, and the reason as the last error. */
    {
        wasm_val_t one[1] = { WASM_I32_VAL(1) };
        wasm_val_t wrong[2] = { WASM_I32_VAL(1), WASM_F32_VAL(1.0f) };
        wasm_val_vec_t v1 = { 1, one, 1, sizeof(wasm_val_t), NULL };
        wasm_val_vec_t v2 = { 2, wrong, 2, sizeof(wasm_val_t), NULL };
        CHECK(cranewasm_trap_new_exception(store, env.tag, &v1) == NULL,
              "one value for two");
        expect_last_error("the tag carries 2 values");
        CHECK(cranewasm_trap_new_exception(store, env.tag, NULL) == NULL,
              "no payload for two");
        CHECK(cranewasm_trap_new_exception(store, env.tag, &v2) == NULL,
              "an f32 for an f64");
        expect_last_error("payload value 1");
        CHECK(cranewasm_trap_new_exception(store2, env.tag, &v1) == NULL,
              "a tag of another store");
        expect_last_error("another store");
        CHECK(cranewasm_trap_new_exception(store, NULL, &v1) == NULL,
              "no tag");
        expect_last_error("not a live tag");
        CHECK(cranewasm_trap_new_exception(NULL, env.tag, &v1) == NULL,
              "no store");
        CHECK(cranewasm_trap_exception_tag(NULL) == NULL, "no trap");
        CHECK(cranewasm_tag_type(NULL) == NULL, "no tag type");
        /* A tag of no payload takes an empty one. */
        trap = cranewasm_trap_new_exception(store, other, &v1);
        CHECK(trap != NULL, "an exception of the other tag");
        wasm_trap_delete(trap);
    }

    /* An exception of another store, returned by a callback, is not
       thrown into this one: the call traps saying so. */
    {
        wasm_module_t *m2 = module_of(store2, wat);
        wasm_func_t *t2, *r2;
        wasm_extern_t *imp2[2];
        wasm_val_t one[2] = { WASM_I32_VAL(1), WASM_F64_VAL(0) };
        wasm_val_vec_t v = { 2, one, 2, sizeof(wasm_val_t), NULL };
        env2.store = store2;
        t2 = wasm_func_new_with_env(store2, ty, throw_cb, &env2, NULL);
        r2 = wasm_func_new_with_env(store2, ty, relay_cb, &env2, NULL);
        imp2[0] = wasm_func_as_extern(t2);
        imp2[1] = wasm_func_as_extern(r2);
        inst2 = instantiate(store2, m2, imp2, 2);
        tag2 = tag_named(inst2.instance, "e");
        env.foreign = cranewasm_trap_new_exception(store2, tag2, &v);
        CHECK(env.foreign != NULL, "an exception of store2");
        trap = call(export_func(&inst, "caught"), args, 1, res, 2);
        CHECK(cranewasm_trap_exception_tag(trap) == NULL,
              "not an exception here");
        EXPECT_TRAP(trap, "Exception: a host function threw an "
                          "exception of another store");
        /* The store goes on. */
        EXPECT_NO_TRAP(call(export_func(&inst, "caught"), args, 1, res, 2));
        CHECK_EQ_INT(res[0].of.i32, 7, "caught after the refusal");
        cranewasm_tag_delete(tag2);
        instance_release(&inst2);
        wasm_func_delete(t2);
        wasm_func_delete(r2);
        wasm_module_delete(m2);
    }

    cranewasm_tag_delete(other);
    cranewasm_tag_delete(env.tag);
    instance_release(&inst);
    wasm_func_delete(thrower);
    wasm_func_delete(relay);
    wasm_functype_delete(ty);
    wasm_module_delete(module);
    wasm_store_delete(store2);
    wasm_store_delete(store);
    wasm_engine_delete(engine);
    test_pass();
    return 0;
}
