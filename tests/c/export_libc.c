/* WAMR's builtin libc, as modules built against its libc-builtin-sysroot
 * import it from `env`: printf and sprintf/snprintf over a wasm va_list
 * (WAMR's conversions, including %ld as 32 bits and %lld 8-byte aligned),
 * the checks on guest pointers and on the va_list's end, string and
 * memory functions, allocation in the app heap, strtol, abort and exit,
 * and a registered native taking precedence over the builtin one. */
#include "export_common.h"

static const char *WAT =
    "(module\n"
    "  (import \"env\" \"printf\" (func $printf (param i32 i32) (result i32)))\n"
    "  (import \"env\" \"sprintf\" (func $sprintf (param i32 i32 i32) (result i32)))\n"
    "  (import \"env\" \"snprintf\" (func $snprintf (param i32 i32 i32 i32) (result i32)))\n"
    "  (import \"env\" \"strlen\" (func $strlen (param i32) (result i32)))\n"
    "  (import \"env\" \"strcmp\" (func $strcmp (param i32 i32) (result i32)))\n"
    "  (import \"env\" \"memcpy\" (func $memcpy (param i32 i32 i32) (result i32)))\n"
    "  (import \"env\" \"malloc\" (func $malloc (param i32) (result i32)))\n"
    "  (import \"env\" \"calloc\" (func $calloc (param i32 i32) (result i32)))\n"
    "  (import \"env\" \"free\" (func $free (param i32)))\n"
    "  (import \"env\" \"strtol\" (func $strtol (param i32 i32 i32) (result i32)))\n"
    "  (import \"env\" \"atoi\" (func $atoi (param i32) (result i32)))\n"
    "  (import \"env\" \"abort\" (func $abort (param i32)))\n"
    "  (import \"env\" \"exit\" (func $exit (param i32)))\n"
    "  (import \"env\" \"puts\" (func $puts (param i32) (result i32)))\n"
    "  (import \"env\" \"toupper\" (func $toupper (param i32) (result i32)))\n"
    "  (import \"env\" \"isdigit\" (func $isdigit (param i32) (result i32)))\n"
    "  (import \"global\" \"NaN\" (global $nan f64))\n"
    "  (memory (export \"memory\") 1)\n"
    "  (data (i32.const 1024) \"i=%d u=%u x=%#x s=%s c=%c lld=%lld f=%.3f ld=%ld %% %q\\00\")\n"
    "  (data (i32.const 1100) \"hello\\00\")\n"
    "  (data (i32.const 1120) \"-123xyz\\00\")\n"
    "  (data (i32.const 1140) \"%s\\00\")\n"
    "  (data (i32.const 1150) \"%d %d\\00\")\n"
    "  (data (i32.const 1160) \"from puts\\00\")\n"
    "  (data (i32.const 2048) \"\\fb\\ff\\ff\\ff\\07\\00\\00\\00\\ff\\00\\00\\00\\4c\\04\\00\\00\\5a\\00\\00\\00\"\n"
    "    \"\\00\\00\\00\\00\\00\\00\\00\\00\\00\\01\\00\\00\\6e\\86\\1b\\f0\\f9\\21\\09\\40\\2a\\00\\00\\00\")\n"
    "  (data (i32.const 2200) \"\\00\\00\\03\\00\")\n"
    "  (func (export \"fmt\") (result i32) (call $sprintf (i32.const 4096) (i32.const 1024) (i32.const 2048)))\n"
    "  (func (export \"print\") (result i32) (call $printf (i32.const 1024) (i32.const 2048)))\n"
    "  (func (export \"snp\") (param i32) (result i32)\n"
    "    (call $snprintf (i32.const 4096) (local.get 0) (i32.const 1024) (i32.const 2048)))\n"
    "  (func (export \"va_at_end\") (result i32) (call $printf (i32.const 1150) (i32.const 131068)))\n"
    "  (func (export \"bad_string\") (result i32) (call $printf (i32.const 1140) (i32.const 2200)))\n"
    "  (func (export \"len\") (param i32) (result i32) (call $strlen (local.get 0)))\n"
    "  (func (export \"cmp\") (result i32) (call $strcmp (i32.const 1100) (i32.const 1100)))\n"
    "  (func (export \"copy\") (param i32 i32) (result i32)\n"
    "    (call $memcpy (local.get 0) (i32.const 1100) (local.get 1)))\n"
    "  (func (export \"alloc\") (param i32) (result i32) (call $malloc (local.get 0)))\n"
    "  (func (export \"zalloc\") (param i32 i32) (result i32) (call $calloc (local.get 0) (local.get 1)))\n"
    "  (func (export \"release\") (param i32) (call $free (local.get 0)))\n"
    "  (func (export \"parse\") (result i32) (call $strtol (i32.const 1120) (i32.const 3000) (i32.const 10)))\n"
    "  (func (export \"to_int\") (result i32) (call $atoi (i32.const 1120)))\n"
    "  (func (export \"die\") (param i32) (call $abort (local.get 0)) (unreachable))\n"
    "  (func (export \"quit\") (param i32) (call $exit (local.get 0)))\n"
    "  (func (export \"say\") (result i32) (call $puts (i32.const 1160)))\n"
    "  (func (export \"upper\") (param i32) (result i32) (call $toupper (local.get 0)))\n"
    "  (func (export \"digit\") (param i32) (result i32) (call $isdigit (local.get 0)))\n"
    "  (func (export \"nan\") (result i32) (f64.ne (global.get $nan) (global.get $nan))))";

static const char *EXPECTED = "i=-5 u=7 x=0xff s=hello c=Z lld=1099511627776 f=3.142 ld=42 % %q";

static int32_t my_strlen(wasm_exec_env_t env, const char *s) { return 1000 + (int32_t)strlen(s); }

static wasm_module_inst_t inst;
static wasm_exec_env_t env;

static int run(const char *name, int nargs, uint32_t a0, uint32_t a1, uint32_t *out)
{
    uint32_t cells[2] = { a0, a1 };
    int ok = wasm_runtime_call_wasm(env, wasm_runtime_lookup_function(inst, name), (uint32_t)nargs, cells);
    if (out)
        *out = cells[0];
    return ok;
}

int main(int argc, char **argv)
{
    wasm_module_t m;
    uint32_t r, a, b;
    const char *printed;
    static NativeSymbol override[] = { { "strlen", (void *)my_strlen, "($)i", NULL } };

    test_init(argc, argv, "export_libc");
    CHECK(wasm_runtime_init(), "init");
    m = load_wat(WAT);
    inst = instantiate_module(m, 8192);
    env = wasm_runtime_create_exec_env(inst, 65536);

    CHECK(run("fmt", 0, 0, 0, &r), "sprintf: %s", exception(inst));
    CHECK(strcmp(wasm_runtime_addr_app_to_native(inst, 4096), EXPECTED) == 0, "sprintf wrote \"%s\"",
          (char *)wasm_runtime_addr_app_to_native(inst, 4096));
    CHECK_EQ_INT(r, strlen(EXPECTED), "sprintf's count");
    capture_begin();
    CHECK(run("print", 0, 0, 0, &r), "printf: %s", exception(inst));
    printed = capture_end();
    CHECK(strcmp(printed, EXPECTED) == 0, "printf printed \"%s\"", printed);
    CHECK_EQ_INT(r, strlen(EXPECTED), "printf's count");
    CHECK(run("snp", 1, 10, 0, &r) && r == strlen(EXPECTED), "snprintf counts everything");
    CHECK(strcmp(wasm_runtime_addr_app_to_native(inst, 4096), "i=-5 u=7 ") == 0, "and writes 9 and a NUL");

    /* The heap added a page: memory ends at 128 KiB. */
    capture_begin();
    CHECK(!run("va_at_end", 0, 0, 0, NULL), "a va_list running past memory");
    printed = capture_end();
    CHECK(strcmp(printed, "0 ") == 0, "what came before the bad argument is printed, as in WAMR: \"%s\"", printed);
    CHECK_EXCEPTION(inst, "Exception: out of bounds memory access");
    wasm_runtime_clear_exception(inst);
    CHECK(!run("bad_string", 0, 0, 0, NULL), "a %%s argument past memory");
    CHECK_EXCEPTION(inst, "Exception: out of bounds memory access");
    wasm_runtime_clear_exception(inst);

    CHECK(run("len", 1, 1100, 0, &r) && r == 5, "strlen");
    *(char *)wasm_runtime_addr_app_to_native(inst, 131071) = 'x';
    CHECK(!run("len", 1, 131071, 0, NULL), "strlen of a string without NUL (checked by its signature)");
    wasm_runtime_clear_exception(inst);
    CHECK(run("cmp", 0, 0, 0, &r) && r == 0, "strcmp");
    CHECK(run("copy", 2, 5000, 6, &r) && r == 5000 && !strcmp(wasm_runtime_addr_app_to_native(inst, 5000), "hello"),
          "memcpy returns the destination");
    CHECK(!run("copy", 2, 131070, 6, NULL), "a destination running past memory");
    CHECK_EXCEPTION(inst, "Exception: out of bounds memory access");
    wasm_runtime_clear_exception(inst);
    CHECK(run("alloc", 1, 100, 0, &a) && a >= 65536, "malloc in the app heap: %u", a);
    CHECK(run("zalloc", 2, 4, 8, &b) && b && b != a, "calloc");
    CHECK(*(uint64_t *)wasm_runtime_addr_app_to_native(inst, b) == 0, "zeroed");
    CHECK(run("release", 1, a, 0, NULL), "free");
    CHECK(run("alloc", 1, 100, 0, &r) && r == a, "the freed block again");
    CHECK(run("alloc", 1, 1u << 20, 0, &r) && r == 0, "malloc of too much gives 0");
    CHECK(run("parse", 0, 0, 0, &r) && (int32_t)r == -123, "strtol");
    CHECK(*(uint32_t *)wasm_runtime_addr_app_to_native(inst, 3000) == 1124, "strtol's end as an app address");
    CHECK(run("to_int", 0, 0, 0, &r) && (int32_t)r == -123, "atoi");
    CHECK(run("upper", 1, 'q', 0, &r) && r == 'Q', "toupper");
    CHECK(run("upper", 1, 100000, 0, &r) && r == 100000, "toupper beyond a byte");
    CHECK(run("digit", 1, '7', 0, &r) && r != 0, "isdigit");
    CHECK(run("nan", 0, 0, 0, &r) && r == 1, "global.NaN");
    capture_begin();
    CHECK(run("say", 0, 0, 0, &r), "puts");
    printed = capture_end();
    CHECK(strcmp(printed, "from puts\n") == 0 && r == 10, "puts printed \"%s\"", printed);
    CHECK(!run("die", 1, 3, 0, NULL), "abort");
    CHECK_EXCEPTION(inst, "Exception: env.abort(3)");
    wasm_runtime_clear_exception(inst);
    CHECK(!run("quit", 1, 0, 0, NULL), "exit");
    CHECK_EXCEPTION(inst, "Exception: env.exit(0)");
    wasm_runtime_destroy_exec_env(env);
    wasm_runtime_deinstantiate(inst);

    /* A registered native of the same name wins. */
    CHECK(wasm_runtime_register_natives("env", override, 1), "register strlen");
    inst = instantiate_module(m, 0);
    env = wasm_runtime_create_exec_env(inst, 65536);
    CHECK(run("len", 1, 1100, 0, &r) && r == 1005, "the registered strlen: %u", r);
    wasm_runtime_destroy_exec_env(env);
    wasm_runtime_deinstantiate(inst);
    wasm_runtime_unload(m);
    wasm_runtime_destroy();
    test_pass();
    return 0;
}
