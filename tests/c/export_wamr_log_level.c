/* bh_log_set_verbose_level (issue 31 #1): WAMR's Go binding declares it
 * itself, as this program does, and calls it; WAMR's libiwasm exports it
 * though no header declares it. It sets the level
 * wasm_runtime_set_log_level sets (which calls it): 0 fatal, 1 error,
 * 2 warning (the default), 3 debug, 4 verbose; a line is written when its
 * level is at or below the current one (bh_log in bh_log.c).
 *
 * Recorded from a run of WAMR 2.4.3 (product-mini build, see
 * export_wamr.h): the warning "failed to link import function (env,
 * nothing_provides_this)" at instantiation is written at levels 2 and 5
 * and not at 0 or 1, whichever function set the level; "Found aux
 * __heap_base global" (its loader's verbose line) at 4, not at 2. WAMR
 * writes its lines on stdout, cranewasm on stderr: both are captured.
 * OURS: the line cranewasm writes the first time it refuses a pointer it
 * never handed out is a warning too, silent at level 0 and still to come
 * once warnings are back (WAMR would crash on such a pointer). */
#include <stdint.h>

#include "export_wamr.h"
#include "export_wamr_capture.h"

/* As WAMR's Go binding declares it (language-bindings/go/wamr/runtime.go). */
void bh_log_set_verbose_level(uint32_t level);

/* Loads and instantiates the module, returning what was written. */
static const char *instantiate_and_capture(void)
{
    wasm_module_t m;
    wasm_module_inst_t i;
    const char *out;
    capture_start();
    m = load("export_wamr_unlinked");
    i = new_instance(m, 0);
    wasm_runtime_deinstantiate(i);
    unload(m);
    out = capture_stop();
    return out;
}

#define WARNING "failed to link import function (env, nothing_provides_this)"
#define VERBOSE "Found aux __heap_base global"

int main(int argc, char **argv)
{
    const char *out;
    char fake[64] = { 0 };

    test_init(argc, argv, "export_wamr_log_level");
    CHECK(wasm_runtime_init(), "wasm_runtime_init");

    out = instantiate_and_capture();
    CHECK(strstr(out, WARNING) && !strstr(out, VERBOSE), "the default level, 2, writes warnings only: \"%s\"", out);
    bh_log_set_verbose_level(0);
    out = instantiate_and_capture();
    CHECK(!strstr(out, WARNING), "level 0 silences the warning: \"%s\"", out);
    wasm_runtime_set_log_level(WASM_LOG_LEVEL_WARNING);
    CHECK(strstr(instantiate_and_capture(), WARNING) != NULL, "wasm_runtime_set_log_level sets the same level");
    bh_log_set_verbose_level(1);
    CHECK(!strstr(instantiate_and_capture(), WARNING), "level 1: errors only");
    bh_log_set_verbose_level(4);
    out = instantiate_and_capture();
    CHECK(strstr(out, WARNING) && strstr(out, VERBOSE), "level 4 adds the verbose lines: \"%s\"", out);
    bh_log_set_verbose_level(5);
    CHECK(strstr(instantiate_and_capture(), VERBOSE) != NULL, "level 5 (the Go binding's most) shows all");
    bh_log_set_verbose_level(2);
    CHECK(!strstr(instantiate_and_capture(), VERBOSE), "back to 2");

    if (OURS("WAMR reads any pointer it is given as an object")) {
        bh_log_set_verbose_level(0);
        capture_start();
        wasm_runtime_deinstantiate((wasm_module_inst_t)fake);
        out = capture_stop();
        CHECK(out[0] == 0, "level 0: a pointer never handed out is refused without a word: \"%s\"", out);
        wasm_runtime_set_log_level(WASM_LOG_LEVEL_WARNING);
        capture_start();
        wasm_runtime_deinstantiate((wasm_module_inst_t)(fake + 32));
        wasm_runtime_deinstantiate((wasm_module_inst_t)fake);
        out = capture_stop();
        CHECK(strstr(out, "ignored a pointer that is not a live wasm_module_inst_t") != NULL,
              "the one-time line comes once warnings are back: \"%s\"", out);
        CHECK(strstr(strstr(out, "ignored a pointer") + 1, "ignored a pointer") == NULL, "and once only: \"%s\"", out);
    }

    wasm_runtime_destroy();
    test_pass();
    return 0;
}
