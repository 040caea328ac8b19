/* WAMR's traps (wasm_trap_new, wasm_trap_message, and the message a trap
 * of a host callback or of wasm code gets: wasm_runtime_invoke_c_api_native
 * and wasm_set_exception). Rows "traps: ..." of the table in
 * capi/README.md.
 *
 *  - wasm_trap_new keeps exactly message->size bytes: no NUL is added and
 *    a NUL the caller put there is kept; wasm_trap_message hands back the
 *    same bytes. A NULL message makes a trap without one, and
 *    wasm_trap_message then leaves *out untouched.
 *  - A trap a host callback returns becomes "Exception: " followed by its
 *    message up to the first NUL, at most 107 bytes of it; an empty
 *    message becomes "Exception: native function throw unknown exception".
 *  - Wasm traps read "Exception: <cause>"; running out of stack is
 *    "Exception: wasm operand stack overflow".
 *  - A start function's trap fails instantiation with
 *    "wasm_instance_new_with_args_ex failed: WASM module instantiate
 *    failed: Exception: unreachable".
 * Messages handed out by the runtime end in a counted NUL (EXPECT_TRAP).
 */
#include "wamr.h"

static void trap_new_keeps_exact_bytes(void)
{
    wasm_message_t plain = name_of("a fake trap"), nt, out;
    wasm_trap_t *t;

    t = wasm_trap_new(store, &plain);
    CHECK(t != NULL, "wasm_trap_new");
    wasm_trap_message(t, &out);
    CHECK(out.size == 11 && out.num_elems == 11
              && memcmp(out.data, "a fake trap", 11) == 0,
          "message without NUL kept as is: size %zu num_elems %zu", out.size,
          out.num_elems);
    wasm_byte_vec_delete(&out);
    wasm_trap_delete(t);
    /* The message stays the caller's. */
    CHECK(plain.size == 11 && plain.data != NULL, "caller's message intact");
    wasm_byte_vec_delete(&plain);

    wasm_name_new_from_string_nt(&nt, "with nul");
    t = wasm_trap_new(store, &nt);
    wasm_trap_message(t, &out);
    CHECK(out.size == 9 && out.num_elems == 9 && out.data[8] == '\0',
          "message with NUL kept as is: size %zu", out.size);
    wasm_byte_vec_delete(&out);
    wasm_trap_delete(t);
    wasm_byte_vec_delete(&nt);
}

static void trap_without_message(void)
{
    char keep[2] = "k";
    wasm_message_t out = { 1, keep, 1, 1, NULL }, empty = WASM_EMPTY_VEC;
    wasm_trap_t *t = wasm_trap_new(store, NULL);
    CHECK(t != NULL, "wasm_trap_new(store, NULL) makes a trap");
    wasm_trap_message(t, &out);
    CHECK(out.size == 1 && out.data == keep && out.num_elems == 1,
          "wasm_trap_message of a trap without message leaves *out");
    wasm_trap_delete(t);

    t = wasm_trap_new(store, &empty);
    CHECK(t != NULL, "wasm_trap_new with an empty message");
    memset(&out, 0x5a, sizeof out);
    wasm_trap_message(t, &out);
    CHECK(out.size == 0 && out.data == NULL && out.num_elems == 0,
          "an empty message comes back empty");
    wasm_trap_delete(t);
}

/* The host function "fail" returns a trap with the message `fail_with`
   (NULL: a trap made without message). */
static const wasm_message_t *fail_with;
static wasm_trap_t *fail_cb(const wasm_val_vec_t *args, wasm_val_vec_t *results)
{
    (void)args;
    (void)results;
    return wasm_trap_new(store, fail_with);
}

static wasm_module_t *module;
static wasm_instance_t *instance;

static void setup(void)
{
    wasm_functype_t *ft = wasm_functype_new_0_0();
    wasm_extern_t *imports[1];
    wasm_trap_t *trap;
    imports[0] = wasm_func_as_extern(wasm_func_new(store, ft, fail_cb));
    wasm_functype_delete(ft);
    module = compile_module(store, "wamr_calls");
    instance = try_instantiate(store, module, imports, 1, &trap);
    EXPECT_NO_TRAP(trap);
    CHECK(instance != NULL, "instantiate wamr_calls");
}

static void host_fails_with(const char *bytes, size_t n, const char *expected)
{
    wasm_message_t m;
    wasm_byte_vec_new(&m, n, bytes);
    fail_with = &m;
    EXPECT_TRAP(call_export(module, instance, "host_fail", NULL, 0, NULL),
                expected);
    wasm_byte_vec_delete(&m);
}

static void host_trap_messages(void)
{
    char longer[200];
    char expected[160];
    setup();
    host_fails_with("callback abort", 15, "Exception: callback abort");
    host_fails_with("boom", 4, "Exception: boom");
    host_fails_with("ab\0cd", 5, "Exception: ab");
    memset(longer, 'x', sizeof longer);
    strcpy(expected, "Exception: ");
    memset(expected + 11, 'x', 107);
    expected[11 + 107] = '\0';
    host_fails_with(longer, sizeof longer, expected);
    host_fails_with("", 0,
                    "Exception: native function throw unknown exception");
}

static void host_trap_without_message(void)
{
    if (SAFE_ONLY("a host trap made with a NULL message: WAMR reads "
                  "through the NULL")) {
        setup();
        fail_with = NULL;
        EXPECT_TRAP(call_export(module, instance, "host_fail", NULL, 0, NULL),
                    "Exception: native function throw unknown exception");
    }
}

static void wasm_trap_texts(void)
{
    setup();
    EXPECT_TRAP(call_export(module, instance, "tick_trap", NULL, 0, NULL),
                "Exception: unreachable");
    EXPECT_TRAP(call_export(module, instance, "recurse", NULL, 0, NULL),
                "Exception: wasm operand stack overflow");
}

static void start_trap_fails_instantiation(void)
{
    wasm_module_t *m = compile_module(store, "wamr_start");
    wasm_trap_t *trap = NULL;
    wasm_instance_t *inst = wasm_instance_new(store, m, NULL, &trap);
    CHECK(inst == NULL, "a trapping start function fails instantiation");
    EXPECT_TRAP(trap, "wasm_instance_new_with_args_ex failed: WASM module "
                      "instantiate failed: Exception: unreachable");
    wasm_module_delete(m);
}

int main(int argc, char **argv)
{
    test_init(argc, argv, "wamr_traps");
    RUN_PART(trap_new_keeps_exact_bytes);
    RUN_PART(trap_without_message);
    RUN_PART(host_trap_messages);
    RUN_PART(host_trap_without_message);
    RUN_PART(wasm_trap_texts);
    RUN_PART(start_trap_fails_instantiation);
    test_pass();
    return 0;
}
