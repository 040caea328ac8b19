/* Native functions: registration with WAMR's signature strings (i I f F r,
 * * with ~, $), conversions and checks of pointer and string arguments
 * against the instance's memory, attachments, exec_env as the first
 * argument (and wasm_runtime_get_module_inst working inside a native),
 * natives that fail through the exception or re-enter wasm, raw natives, a
 * signature string that does not fit the import, a missing native,
 * unregistration, and the lookup without a leading underscore. */
#include "export_common.h"

static const char *WAT =
    "(module\n"
    "  (import \"test\" \"add3\" (func $add3 (param i32 i32 i32) (result i32)))\n"
    "  (import \"test\" \"mix\" (func $mix (param i64 f32 f64) (result i64)))\n"
    "  (import \"test\" \"sum_bytes\" (func $sum_bytes (param i32 i32) (result i32)))\n"
    "  (import \"test\" \"slen\" (func $slen (param i32) (result i32)))\n"
    "  (import \"test\" \"poke\" (func $poke (param i32)))\n"
    "  (import \"test\" \"pass_ref\" (func $pass_ref (param externref) (result externref)))\n"
    "  (import \"test\" \"attach\" (func $attach (result i32)))\n"
    "  (import \"test\" \"fail\" (func $fail (param i32)))\n"
    "  (import \"test\" \"reenter\" (func $reenter (param i32) (result i32)))\n"
    "  (import \"test\" \"raw_add\" (func $raw_add (param i32 i64 i32) (result i64)))\n"
    "  (import \"test\" \"fsum\" (func $fsum (param f64 f32) (result f64)))\n"
    "  (import \"test\" \"bad\" (func $bad (param i64) (result i32)))\n"
    "  (import \"test\" \"_under\" (func $under (result i32)))\n"
    "  (import \"test\" \"missing\" (func $missing))\n"
    "  (import \"gone\" \"f\" (func $gone (result i32)))\n"
    "  (memory (export \"memory\") 1)\n"
    "  (data (i32.const 16) \"\\01\\02\\03\\04hello\\00\")\n"
    "  (data (i32.const 65530) \"abcdef\")\n"
    "  (func (export \"t_add3\") (result i32) (call $add3 (i32.const 1) (i32.const 2) (i32.const 3)))\n"
    "  (func (export \"t_mix\") (result i64) (call $mix (i64.const 1000000000000) (f32.const 2.5) (f64.const 4)))\n"
    "  (func (export \"t_sum\") (param i32 i32) (result i32) (call $sum_bytes (local.get 0) (local.get 1)))\n"
    "  (func (export \"t_slen\") (param i32) (result i32) (call $slen (local.get 0)))\n"
    "  (func (export \"t_poke\") (param i32) (result i32) (call $poke (local.get 0)) (i32.load (local.get 0)))\n"
    "  (func (export \"t_ref\") (param externref) (result externref) (call $pass_ref (local.get 0)))\n"
    "  (func (export \"t_attach\") (result i32) (call $attach))\n"
    "  (func (export \"t_fail\") (param i32) (call $fail (local.get 0)) (unreachable))\n"
    "  (func (export \"t_reenter\") (param i32) (result i32) (call $reenter (local.get 0)))\n"
    "  (func (export \"twice\") (param i32) (result i32) (i32.mul (local.get 0) (i32.const 2)))\n"
    "  (func (export \"t_raw\") (result i64) (call $raw_add (i32.const 5) (i64.const 7000000000) (i32.const 16)))\n"
    "  (func (export \"t_fsum\") (result f64) (call $fsum (f64.const 0.5) (f32.const 0.25)))\n"
    "  (func (export \"t_bad\") (result i32) (call $bad (i64.const 1)))\n"
    "  (func (export \"t_under\") (result i32) (call $under))\n"
    "  (func (export \"t_missing\") (call $missing))\n"
    "  (func (export \"t_gone\") (result i32) (call $gone)))";

static wasm_exec_env_t seen_env;
static wasm_module_inst_t seen_inst;
static int attachment_value = 99;

static int32_t add3(wasm_exec_env_t env, int32_t a, int32_t b, int32_t c)
{
    seen_env = env;
    seen_inst = wasm_runtime_get_module_inst(env);
    return a * 100 + b * 10 + c;
}
static int64_t mix(wasm_exec_env_t env, int64_t a, float f, double d) { return a + (int64_t)(f * d); }
static int32_t sum_bytes(wasm_exec_env_t env, uint8_t *p, int32_t len)
{
    int32_t s = 0;
    for (int32_t k = 0; k < len; k++)
        s += p[k];
    return s;
}
static int32_t slen(wasm_exec_env_t env, const char *s) { return (int32_t)strlen(s); }
static void poke(wasm_exec_env_t env, int32_t *p) { *p = 0x1234; }
static uintptr_t pass_ref(wasm_exec_env_t env, uintptr_t r) { return r + 1; }
static int32_t attach(wasm_exec_env_t env) { return *(int *)wasm_runtime_get_function_attachment(env); }
static void fail(wasm_exec_env_t env, int32_t code)
{
    char msg[64];
    snprintf(msg, sizeof msg, "native failed with %d", code);
    wasm_runtime_set_exception(wasm_runtime_get_module_inst(env), msg);
}
static int32_t reenter(wasm_exec_env_t env, int32_t x)
{
    wasm_module_inst_t inst = wasm_runtime_get_module_inst(env);
    uint32_t argv[1] = { (uint32_t)x };
    if (!wasm_runtime_call_wasm(env, wasm_runtime_lookup_function(inst, "twice"), 1, argv))
        return -1;
    return (int32_t)argv[0] + 1;
}
static void raw_add(wasm_exec_env_t env, uint64_t *args)
{
    native_raw_return_type(int64_t, args);
    native_raw_get_arg(int32_t, a, args);
    native_raw_get_arg(int64_t, b, args);
    native_raw_get_arg(uint8_t *, p, args);
    native_raw_set_return(a + b + p[0]);
}
static double fsum(wasm_exec_env_t env, double a, float b) { return a + b; }
static int32_t bad(wasm_exec_env_t env, int32_t x) { return x; }
static int32_t under(wasm_exec_env_t env) { return 77; }
static int32_t gone(wasm_exec_env_t env) { return 1; }

static NativeSymbol natives[] = {
    { "add3", (void *)add3, "(iii)i", NULL },
    { "mix", (void *)mix, "(IfF)I", NULL },
    { "sum_bytes", (void *)sum_bytes, "(*~)i", NULL },
    { "slen", (void *)slen, "($)i", NULL },
    { "poke", (void *)poke, "(*)", NULL },
    { "pass_ref", (void *)pass_ref, "(r)r", NULL },
    { "attach", (void *)attach, "()i", &attachment_value },
    { "fail", (void *)fail, "(i)", NULL },
    { "reenter", (void *)reenter, "(i)i", NULL },
    { "fsum", (void *)fsum, "(Ff)F", NULL },
    /* The import takes an i64: this signature does not fit. */
    { "bad", (void *)bad, "(i)i", NULL },
    { "under", (void *)under, NULL, NULL },
};
static NativeSymbol raw_natives[] = { { "raw_add", (void *)raw_add, "(iI*)I", NULL } };
static NativeSymbol gone_natives[] = { { "f", (void *)gone, "()i", NULL } };

/* Calls export `name` with i32 cells; true on success. */
static int call_export(wasm_exec_env_t env, wasm_module_inst_t inst, const char *name, uint32_t argc, uint32_t *argv)
{
    wasm_function_inst_t f = wasm_runtime_lookup_function(inst, name);
    CHECK(f != NULL, "export %s", name);
    return wasm_runtime_call_wasm(env, f, argc, argv);
}

int main(int argc, char **argv)
{
    RuntimeInitArgs init;
    wasm_module_t m;
    wasm_module_inst_t i;
    wasm_exec_env_t env;
    uint32_t cells[4];
    int64_t i64;
    double d;
    wasm_val_t arg, res;

    test_init(argc, argv, "export_natives");
    /* Natives registered with the runtime's initialisation. */
    memset(&init, 0, sizeof init);
    init.mem_alloc_type = Alloc_With_System_Allocator;
    init.native_module_name = "test";
    init.native_symbols = natives;
    init.n_native_symbols = sizeof natives / sizeof natives[0];
    CHECK(wasm_runtime_full_init(&init), "full_init with natives");
    CHECK(wasm_runtime_register_natives_raw("test", raw_natives, 1), "raw natives");
    CHECK(wasm_runtime_register_natives("gone", gone_natives, 1), "natives to unregister");
    CHECK(wasm_runtime_is_import_func_linked("gone", "f"), "gone.f is linked");
    CHECK(wasm_runtime_unregister_natives("gone", gone_natives), "unregister");
    CHECK(!wasm_runtime_unregister_natives("gone", gone_natives), "unregistered once");
    CHECK(!wasm_runtime_is_import_func_linked("gone", "f"), "gone.f is not linked any more");
    CHECK(!wasm_runtime_register_natives(NULL, natives, 1), "a NULL module name is refused");
    CHECK(wasm_runtime_is_import_func_linked("test", "add3") && wasm_runtime_is_import_func_linked("env", "printf")
              && wasm_runtime_is_import_func_linked("wasi_snapshot_preview1", "fd_write"),
          "registered natives, the builtin libc and WASI are linked");
    CHECK(wasm_runtime_is_import_global_linked("global", "NaN") && !wasm_runtime_is_import_global_linked("env", "x"),
          "builtin globals");

    m = load_wat(WAT);
    {
        /* The import list says which resolve. */
        wasm_import_t imp;
        int32_t n = wasm_runtime_get_import_count(m), linked = 0;
        for (int32_t k = 0; k < n; k++) {
            wasm_runtime_get_import_type(m, k, &imp);
            linked += imp.linked;
            if (!strcmp(imp.name, "bad") || !strcmp(imp.name, "missing") || !strcmp(imp.module_name, "gone"))
                CHECK(!imp.linked, "%s.%s is not linked", imp.module_name, imp.name);
        }
        CHECK_EQ_INT(n, 15, "imports");
        CHECK_EQ_INT(linked, 12, "linked imports");
    }
    i = instantiate_module(m, 0);
    env = wasm_runtime_create_exec_env(i, 65536);

    CHECK(call_export(env, i, "t_add3", 0, cells) && cells[0] == 123, "add3 = %u", cells[0]);
    CHECK(seen_env == env && seen_inst == i, "the native got the exec env, and its instance");
    CHECK(call_export(env, i, "t_mix", 0, cells), "mix");
    memcpy(&i64, cells, 8);
    CHECK(i64 == 1000000000010LL, "i64/f32/f64 arguments: %lld", (long long)i64);
    cells[0] = 16;
    cells[1] = 4;
    CHECK(call_export(env, i, "t_sum", 2, cells) && cells[0] == 10, "*~ gives the bytes: %u", cells[0]);
    cells[0] = 65530;
    cells[1] = 7;
    CHECK(!call_export(env, i, "t_sum", 2, cells), "a buffer past the end of memory traps");
    CHECK_EXCEPTION(i, "Exception: out of bounds memory access");
    wasm_runtime_clear_exception(i);
    cells[0] = 65536;
    cells[1] = 0;
    CHECK(call_export(env, i, "t_sum", 2, cells) && cells[0] == 0,
          "an empty buffer right at the end is fine: WAMR checks [offset, offset + length)");
    cells[0] = 20;
    CHECK(call_export(env, i, "t_slen", 1, cells) && cells[0] == 5, "$ gives the string");
    cells[0] = 65530;
    CHECK(!call_export(env, i, "t_slen", 1, cells), "a string without NUL before the end traps");
    CHECK_EXCEPTION(i, "Exception: out of bounds memory access");
    wasm_runtime_clear_exception(i);
    cells[0] = 64;
    CHECK(call_export(env, i, "t_poke", 1, cells) && cells[0] == 0x1234, "* writes through");
    cells[0] = 0xFFFFFFFF;
    CHECK(!call_export(env, i, "t_poke", 1, cells), "a pointer past memory traps");
    wasm_runtime_clear_exception(i);

    arg.kind = WASM_EXTERNREF;
    arg.of.ref = (struct wasm_ref_t *)(uintptr_t)0x1000;
    CHECK(wasm_runtime_call_wasm_a(env, wasm_runtime_lookup_function(i, "t_ref"), 1, &res, 1, &arg),
          "r: %s", exception(i));
    CHECK((uintptr_t)res.of.ref == 0x1001, "externrefs reach natives as host pointers");
    CHECK(call_export(env, i, "t_attach", 0, cells) && cells[0] == 99, "the attachment");
    CHECK(wasm_runtime_get_function_attachment(env) == NULL, "only during the native");

    cells[0] = 7;
    CHECK(!call_export(env, i, "t_fail", 1, cells), "a native that sets an exception makes the call trap");
    CHECK_EXCEPTION(i, "Exception: native failed with 7");
    wasm_runtime_clear_exception(i);
    cells[0] = 21;
    CHECK(call_export(env, i, "t_reenter", 1, cells) && cells[0] == 43, "a native calling back into wasm: %u", cells[0]);
    CHECK(call_export(env, i, "t_raw", 0, cells), "raw native: %s", exception(i));
    memcpy(&i64, cells, 8);
    CHECK(i64 == 7000000006LL, "raw arguments and result: %lld", (long long)i64);
    CHECK(call_export(env, i, "t_fsum", 0, cells), "fsum");
    memcpy(&d, cells, 8);
    CHECK(d == 0.75, "F and f: %f", d);
    CHECK(call_export(env, i, "t_under", 0, cells) && cells[0] == 77, "_under resolves to under");

    CHECK(!call_export(env, i, "t_bad", 0, cells), "a native whose signature does not fit is not linked");
    CHECK_EXCEPTION(i, "Exception: failed to call unlinked import function (test, bad)");
    wasm_runtime_clear_exception(i);
    CHECK(!call_export(env, i, "t_missing", 0, cells), "a missing native");
    CHECK_EXCEPTION(i, "Exception: failed to call unlinked import function (test, missing)");
    wasm_runtime_clear_exception(i);
    CHECK(!call_export(env, i, "t_gone", 0, cells), "an unregistered native");
    CHECK_EXCEPTION(i, "Exception: failed to call unlinked import function (gone, f)");

    wasm_runtime_destroy_exec_env(env);
    wasm_runtime_deinstantiate(i);
    wasm_runtime_unload(m);
    wasm_runtime_destroy();
    CHECK(!wasm_runtime_is_import_func_linked("test", "add3"), "destroying the runtime forgets the natives");
    test_pass();
    return 0;
}
