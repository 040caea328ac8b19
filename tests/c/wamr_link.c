/* WAMR's imports and linking (wasm_module_imports, wasm_instance_new and
 * its do_link / interp_link_func / interp_link_global /
 * check_linked_symbol). Rows "imports: ..." and "linking: ..." of the
 * table in capi/README.md.
 *
 *  - wasm_module_imports lists the imports grouped by kind: functions,
 *    then globals, then memories, then tables, each group in module order.
 *  - wasm_instance_new links the import vector by kind and position: the
 *    i-th function extern of the vector goes to the i-th imported
 *    function, the i-th global to the i-th imported global, whatever the
 *    interleaving of kinds in the vector or the module. Names play no part.
 *  - At link time a function must have the imported type and a global the
 *    imported value kind (its mutability is not compared); otherwise
 *    instantiation fails with "...: Failed to validate imports". A NULL
 *    element fails the same way.
 *  - Missing functions are allowed: the instance is made and calling one
 *    traps with "Exception: failed to call unlinked import function (m, f)".
 *    A missing global fails instantiation ("failed to link import global
 *    (m, g)"), so does an empty or NULL vector for a module that imports
 *    globals. Placeholders (wasm_extern_new_empty) count as missing.
 *  - Memory and table externs in the vector are not linked or checked:
 *    the instance gets memories and tables of the declared types, whatever
 *    the vector holds (WAMR satisfies them from the "env" module).
 *  - Failure messages are "wasm_instance_new_with_args_ex failed: " and
 *    the reason, NUL-terminated with the NUL counted.
 *  - InstantiationArgs.max_memory_pages caps the maximum of the module's
 *    memories (between their minimum and their declared maximum).
 * More externs of a kind than the module imports make WAMR write past its
 * import table; there our library fails instantiation like a mismatch.
 * Rows kept or not followed (see wamr.h): a memory imported from another
 * module than "env" (WAMR fails) is made as for "env"; a successful
 * instantiation sets *trap to NULL (WAMR leaves it); a module instantiated
 * again links afresh (WAMR keeps the globals of the first link).
 */
#include "wamr.h"

#define LINK_FAIL "wasm_instance_new_with_args_ex failed: "
#define VALIDATE LINK_FAIL "Failed to validate imports"
#define MISSING_GLOBAL(m, g) \
    LINK_FAIL "WASM module instantiate failed: failed to link import global (" m ", " g ")"

static wasm_trap_t *f1_cb(const wasm_val_vec_t *args, wasm_val_vec_t *results)
{
    (void)args;
    results->data[0].kind = WASM_I32;
    results->data[0].of.i32 = 111;
    return NULL;
}

static wasm_trap_t *f2_cb(const wasm_val_vec_t *args, wasm_val_vec_t *results)
{
    results->data[0].kind = WASM_I32;
    results->data[0].of.i32 = args->data[0].of.i32 + 1000;
    return NULL;
}

/* The externs the wamr_link module imports, made fresh for each use. */
enum { F1, F2, G1, G2, MEM, TAB, NEXT };
static wasm_extern_t *ext[NEXT];

static wasm_global_t *new_global(wasm_valkind_t kind, wasm_mutability_t mut,
                                 wasm_val_t init)
{
    wasm_globaltype_t *gt = wasm_globaltype_new(wasm_valtype_new(kind), mut);
    wasm_global_t *g = wasm_global_new(store, gt, &init);
    wasm_globaltype_delete(gt);
    CHECK(g != NULL, "wasm_global_new");
    return g;
}

static void make_externs(void)
{
    wasm_functype_t *t1 = wasm_functype_new_0_1(wasm_valtype_new(WASM_I32));
    wasm_functype_t *t2 = wasm_functype_new_1_1(wasm_valtype_new(WASM_I32),
                                                wasm_valtype_new(WASM_I32));
    wasm_limits_t ml = { 1, 2 }, tl = { 2, 4 };
    wasm_memorytype_t *mt = wasm_memorytype_new(&ml);
    wasm_tabletype_t *tt = wasm_tabletype_new(wasm_valtype_new(WASM_FUNCREF),
                                              &tl);
    ext[F1] = wasm_func_as_extern(wasm_func_new(store, t1, f1_cb));
    ext[F2] = wasm_func_as_extern(wasm_func_new(store, t2, f2_cb));
    ext[G1] = wasm_global_as_extern(
        new_global(WASM_I32, WASM_CONST, (wasm_val_t)WASM_I32_VAL(5)));
    ext[G2] = wasm_global_as_extern(
        new_global(WASM_I64, WASM_VAR, (wasm_val_t)WASM_I64_VAL(7)));
    ext[MEM] = wasm_memory_as_extern(wasm_memory_new(store, mt));
    ext[TAB] = wasm_table_as_extern(wasm_table_new(store, tt, NULL));
    wasm_functype_delete(t1);
    wasm_functype_delete(t2);
    wasm_memorytype_delete(mt);
    wasm_tabletype_delete(tt);
}

/* Instantiates wamr_link with the externs named by `order` (indices into
   ext[], -1 for NULL); returns the instance or NULL with *trap set. */
static wasm_instance_t *link_in(const wasm_module_t *m, const int *order,
                             size_t n, wasm_trap_t **trap)
{
    wasm_extern_t *v[16];
    size_t i;
    for (i = 0; i < n; i++)
        v[i] = order[i] < 0 ? NULL : ext[order[i]];
    return try_instantiate(store, m, v, n, trap);
}

static void check_linked(const wasm_module_t *m, const wasm_instance_t *inst)
{
    wasm_val_t one[1] = { WASM_I32_VAL(1) };
    CHECK_EQ_INT(call_i32_export(m, inst, "call_f1", NULL, 0), 111,
                 "f1 linked to the first function import");
    CHECK_EQ_INT(call_i32_export(m, inst, "call_f2", one, 1), 1001,
                 "f2 linked to the second function import");
    CHECK_EQ_INT(call_i32_export(m, inst, "get_g1", NULL, 0), 5,
                 "g1 linked to the first global import");
    CHECK_EQ_INT(call_i64_export(m, inst, "get_g2", NULL, 0), 7,
                 "g2 linked to the second global import");
    /* Not the page count: WAMR adds its 32 KiB host-managed heap to a
       memory whose maximum allows it (a row of its own in the table). */
    {
        wasm_val_t at[2] = { WASM_I32_VAL(65535), WASM_I32_VAL(42) };
        EXPECT_NO_TRAP(call_export(m, inst, "store", at, 2, NULL));
        CHECK_EQ_INT(call_i32_export(m, inst, "load", at, 1), 42,
                     "the memory holds at least the declared page");
    }
    CHECK_EQ_INT(call_i32_export(m, inst, "tab_size", NULL, 0), 2,
                 "table of the declared size");
}

/* Instantiates wamr_link with `order` and checks every import landed. */
static void expect_linked(const wasm_module_t *m, const int *order, size_t n,
                          const char *what)
{
    wasm_trap_t *trap;
    wasm_instance_t *inst = link_in(m, order, n, &trap);
    EXPECT_NO_TRAP(trap);
    CHECK(inst != NULL, "%s: instantiation failed", what);
    if (inst) {
        check_linked(m, inst);
        wasm_instance_delete(inst);
    }
}

static void imports_grouped_by_kind(void)
{
    static const struct {
        const char *module, *name;
        wasm_externkind_t kind;
    } expected[] = {
        { "host", "f1", WASM_EXTERN_FUNC },   { "host", "f2", WASM_EXTERN_FUNC },
        { "env", "g1", WASM_EXTERN_GLOBAL },  { "host", "g2", WASM_EXTERN_GLOBAL },
        { "env", "mem", WASM_EXTERN_MEMORY }, { "env", "tab", WASM_EXTERN_TABLE },
    };
    wasm_module_t *m = compile_module(store, "wamr_link");
    wasm_importtype_vec_t imports;
    size_t i;
    wasm_module_imports(m, &imports);
    CHECK_EQ_INT(imports.num_elems, 6, "import count");
    for (i = 0; i < 6 && i < imports.num_elems; i++) {
        char what[64];
        snprintf(what, sizeof what, "import %zu", i);
        check_runtime_name(wasm_importtype_module(imports.data[i]),
                           expected[i].module, what);
        check_runtime_name(wasm_importtype_name(imports.data[i]),
                           expected[i].name, what);
        CHECK_EQ_INT(wasm_externtype_kind(wasm_importtype_type(imports.data[i])),
                     expected[i].kind, what);
    }
    wasm_importtype_vec_delete(&imports);
    wasm_module_delete(m);
}

static void link_by_kind_and_position(void)
{
    static const int orders[3][6] = {
        { F1, F2, G1, G2, MEM, TAB }, /* wasm_module_imports' order */
        { G1, F1, MEM, G2, TAB, F2 }, /* the module's order */
        { TAB, MEM, G1, F1, G2, F2 }, /* any interleaving of kinds */
    };
    static const char *what[3] = { "grouped", "module order", "interleaved" };
    wasm_module_t *m = compile_module(store, "wamr_link");
    size_t k;
    for (k = 0; k < 3; k++) {
        make_externs();
        expect_linked(m, orders[k], 6, what[k]);
    }
    wasm_module_delete(m);
}

static void expect_link_failure(const int *order, size_t n,
                                const char *message)
{
    wasm_module_t *m = compile_module(store, "wamr_link");
    wasm_trap_t *trap;
    wasm_instance_t *inst = link_in(m, order, n, &trap);
    CHECK(inst == NULL, "instantiation succeeded, expected \"%s\"", message);
    EXPECT_TRAP(trap, message);
    /* Not wasm_instance_delete(NULL): WAMR dereferences it. */
    if (inst)
        wasm_instance_delete(inst);
    wasm_module_delete(m);
}

static void functions_linked_by_position_not_name(void)
{
    /* f2 first: it goes to import f1, whose type differs. */
    static const int order[] = { F2, F1, G1, G2, MEM, TAB };
    make_externs();
    expect_link_failure(order, 6, VALIDATE);
}

static void global_kind_mismatch_fails(void)
{
    static const int order[] = { F1, F2, G2, G1, MEM, TAB };
    make_externs();
    expect_link_failure(order, 6, VALIDATE);
}

static void null_element_fails(void)
{
    static const int order[] = { F1, -1, G1, G2 };
    make_externs();
    expect_link_failure(order, 4, VALIDATE);
}

static void global_mutability_not_compared(void)
{
    static const int order[] = { F1, F2, G1, G2 };
    wasm_module_t *m = compile_module(store, "wamr_link");
    wasm_trap_t *trap;
    wasm_instance_t *inst;
    wasm_global_t *g2;
    wasm_val_t nine[1] = { WASM_I64_VAL(9) }, v;

    make_externs();
    /* g1 is imported const: give a var; g2 imported mut: give a const. */
    ext[G1] = wasm_global_as_extern(
        new_global(WASM_I32, WASM_VAR, (wasm_val_t)WASM_I32_VAL(5)));
    g2 = new_global(WASM_I64, WASM_CONST, (wasm_val_t)WASM_I64_VAL(7));
    ext[G2] = wasm_global_as_extern(g2);
    inst = link_in(m, order, 4, &trap);
    EXPECT_NO_TRAP(trap);
    CHECK(inst != NULL, "globals of the other mutability link");
    if (inst) {
        CHECK_EQ_INT(call_i32_export(m, inst, "get_g1", NULL, 0), 5, "g1");
        CHECK_EQ_INT(call_i64_export(m, inst, "get_g2", NULL, 0), 7, "g2");
        EXPECT_NO_TRAP(call_export(m, inst, "set_g2", nine, 1, NULL));
        CHECK_EQ_INT(call_i64_export(m, inst, "get_g2", NULL, 0), 9,
                     "wasm sets the imported global");
        memset(&v, 0, sizeof v);
        wasm_global_get(g2, &v);
        CHECK(v.kind == WASM_I64 && v.of.i64 == 9,
              "the host's global object reads the linked global: kind %d "
              "value %lld", v.kind, (long long)v.of.i64);
    }
    wasm_instance_delete(inst);
    wasm_module_delete(m);
}

static void missing_functions_allowed(void)
{
    static const int order[] = { G1, G2, F1 };
    wasm_module_t *m = compile_module(store, "wamr_link");
    wasm_trap_t *trap;
    wasm_instance_t *inst;
    wasm_val_t one[1] = { WASM_I32_VAL(1) };

    make_externs();
    inst = link_in(m, order, 3, &trap);
    EXPECT_NO_TRAP(trap);
    CHECK(inst != NULL, "a missing function import is allowed");
    if (inst) {
        CHECK_EQ_INT(call_i32_export(m, inst, "call_f1", NULL, 0), 111, "f1");
        EXPECT_TRAP(call_export(m, inst, "call_f2", one, 1, NULL),
                    "Exception: failed to call unlinked import function "
                    "(host, f2)");
    }
    wasm_instance_delete(inst);
    wasm_module_delete(m);
}

static void missing_global_fails(void)
{
    static const int order[] = { F1, F2, G1 };
    make_externs();
    expect_link_failure(order, 3, MISSING_GLOBAL("host", "g2"));
}

static void empty_or_null_imports(void)
{
    wasm_module_t *funcs = compile_module(store, "wamr_funcs");
    wasm_module_t *link_m = compile_module(store, "wamr_link");
    wasm_extern_vec_t empty = WASM_EMPTY_VEC;
    const wasm_extern_vec_t *vectors[2] = { &empty, NULL };
    static const char *const names[2] = { "empty vector", "NULL vector" };
    static const char *const unlinked[2] = {
        "Exception: failed to call unlinked import function (host, f1)",
        "Exception: failed to call unlinked import function (host, f2)",
    };
    size_t k;

    for (k = 0; k < 2; k++) {
        wasm_trap_t *trap = NULL;
        wasm_instance_t *inst;

        /* Only function imports: made, and the calls trap. */
        inst = wasm_instance_new(store, funcs, vectors[k], &trap);
        EXPECT_NO_TRAP(trap);
        CHECK(inst != NULL, "%s, function imports only", names[k]);
        if (inst) {
            EXPECT_TRAP(call_export(funcs, inst, k ? "call_f2" : "call_f1",
                                    NULL, 0, NULL),
                        unlinked[k]);
            wasm_instance_delete(inst);
        }

        /* A global import: refused, naming the first global in module
           order. */
        trap = NULL;
        inst = wasm_instance_new(store, link_m, vectors[k], &trap);
        CHECK(inst == NULL, "%s with a global import", names[k]);
        EXPECT_TRAP(trap, MISSING_GLOBAL("env", "g1"));
        if (inst)
            wasm_instance_delete(inst);
    }
    wasm_module_delete(funcs);
    wasm_module_delete(link_m);
}

static void placeholders_count_as_missing(void)
{
    wasm_module_t *m = compile_module(store, "wamr_link");
    wasm_trap_t *trap;
    wasm_instance_t *inst;
    static const int order[] = { F1, F2, G1, G2 };
    wasm_val_t one[1] = { WASM_I32_VAL(1) };

    make_externs();
    ext[F1] = wasm_extern_new_empty(store, WASM_EXTERN_FUNC);
    CHECK(ext[F1] != NULL, "function placeholder");
    inst = link_in(m, order, 4, &trap);
    EXPECT_NO_TRAP(trap);
    CHECK(inst != NULL, "a function placeholder links");
    if (inst) {
        EXPECT_TRAP(call_export(m, inst, "call_f1", NULL, 0, NULL),
                    "Exception: failed to call unlinked import function "
                    "(host, f1)");
        CHECK_EQ_INT(call_i32_export(m, inst, "call_f2", one, 1), 1001,
                     "f2 still goes to the second function import");
    }
    wasm_instance_delete(inst);

    /* A fresh module: WAMR keeps a module's global links from one
       instantiation to the next (see the table). */
    wasm_module_delete(m);
    m = compile_module(store, "wamr_link");
    make_externs();
    ext[G1] = wasm_extern_new_empty(store, WASM_EXTERN_GLOBAL);
    CHECK(ext[G1] != NULL, "global placeholder");
    inst = link_in(m, order, 4, &trap);
    CHECK(inst == NULL, "a global placeholder leaves the global unlinked");
    EXPECT_TRAP(trap, MISSING_GLOBAL("env", "g1"));
    if (inst)
        wasm_instance_delete(inst);
    wasm_module_delete(m);
}

static void memories_and_tables_not_checked(void)
{
    wasm_module_t *m = compile_module(store, "wamr_link");
    wasm_limits_t big = { 3, 10 }, tl = { 8, 16 }, odd = { 5, 1 };
    wasm_memorytype_t *mt = wasm_memorytype_new(&big);
    wasm_memorytype_t *omt = wasm_memorytype_new(&odd);
    wasm_tabletype_t *tt = wasm_tabletype_new(wasm_valtype_new(WASM_EXTERNREF),
                                              &tl);
    static const int all[] = { F1, F2, G1, G2, MEM, TAB };
    static const int extra[] = { F1, F2, MEM, G1, MEM, G2, TAB, TAB };
    static const int none[] = { F1, F2, G1, G2 };

    /* Other limits and element type than imported: not compared. */
    make_externs();
    ext[MEM] = wasm_memory_as_extern(wasm_memory_new(store, mt));
    ext[TAB] = wasm_table_as_extern(wasm_table_new(store, tt, NULL));
    expect_linked(m, all, 6, "a memory and table of other types");

    /* Limits no memory could have (min above max): still made, and
       ignored by the link. */
    make_externs();
    ext[MEM] = wasm_memory_as_extern(wasm_memory_new(store, omt));
    CHECK(ext[MEM] != NULL, "wasm_memory_new with min 5, max 1");
    expect_linked(m, all, 5, "a memory of impossible limits");

    /* More of them than imported: ignored. */
    make_externs();
    expect_linked(m, extra, 8, "extra memories and tables");

    /* None at all: the declared ones. */
    make_externs();
    expect_linked(m, none, 4, "no memory or table given");
    wasm_memorytype_delete(mt);
    wasm_memorytype_delete(omt);
    wasm_tabletype_delete(tt);
    wasm_module_delete(m);
}

static void extra_functions_or_globals_fail(void)
{
    if (SAFE_ONLY("more externs of a kind than imports: WAMR writes past "
                  "its import table")) {
        static const int funcs[] = { F1, F2, F2, G1, G2 };
        static const int globals[] = { F1, F2, G1, G2, G2 };
        make_externs();
        expect_link_failure(funcs, 5, VALIDATE);
        expect_link_failure(globals, 5, VALIDATE);
    }
}

static void null_data_with_elements_fails(void)
{
    if (SAFE_ONLY("a vector with num_elems > 0 and data NULL: WAMR "
                  "dereferences it")) {
        wasm_module_t *m = compile_module(store, "wamr_funcs");
        wasm_extern_vec_t v = { 2, NULL, 2, sizeof(wasm_extern_t *), NULL };
        wasm_trap_t *trap = NULL;
        wasm_instance_t *inst = wasm_instance_new(store, m, &v, &trap);
        CHECK(inst == NULL, "instantiated from a vector without data");
        EXPECT_TRAP(trap, VALIDATE);
        if (inst)
            wasm_instance_delete(inst);
        wasm_module_delete(m);
    }
}

static void max_memory_pages_caps_growth(void)
{
    wasm_module_t *m = compile_module(store, "wamr_grow");
    /* No host-managed heap: WAMR would add it as a page (see the table). */
    InstantiationArgs args = { 32 * 1024, 0, 2 };
    wasm_extern_vec_t none = WASM_EMPTY_VEC;
    wasm_trap_t *trap = NULL;
    wasm_instance_t *inst =
        wasm_instance_new_with_args_ex(store, m, &none, &trap, &args);
    wasm_val_t one[1] = { WASM_I32_VAL(1) };
    EXPECT_NO_TRAP(trap);
    CHECK(inst != NULL, "wasm_instance_new_with_args_ex");
    if (!inst)
        return;
    CHECK_EQ_INT(call_i32_export(m, inst, "grow", one, 1), 1, "1 -> 2 pages");
    CHECK_EQ_INT(call_i32_export(m, inst, "grow", one, 1), -1,
                 "no growth past max_memory_pages");
    wasm_module_delete(m);
}

static void memory_of_another_module(void)
{
    if (KEPT("WAMR makes imported memories and tables only for \"env\"")) {
        wasm_module_t *m = compile_module(store, "wamr_other_memory");
        wasm_trap_t *trap = NULL;
        wasm_instance_t *inst = wasm_instance_new(store, m, NULL, &trap);
        wasm_val_t at[1] = { WASM_I32_VAL(65535) };
        EXPECT_NO_TRAP(trap);
        CHECK(inst != NULL, "a memory and table of module \"lib\"");
        if (inst)
            CHECK_EQ_INT(call_i32_export(m, inst, "load", at, 1), 0,
                         "a fresh memory of the declared size");
        wasm_module_delete(m);
    }
}

static void trap_cleared_on_success(void)
{
    if (KEPT("WAMR leaves *trap as it was when instantiation succeeds")) {
        static const int order[] = { F1, F2, G1, G2 };
        wasm_module_t *m = compile_module(store, "wamr_link");
        wasm_extern_t *v[4];
        wasm_extern_vec_t vec = extern_array(v, 4);
        wasm_trap_t *trap = (wasm_trap_t *)&trap; /* not a trap */
        wasm_instance_t *inst;
        size_t i;
        make_externs();
        for (i = 0; i < 4; i++)
            v[i] = ext[order[i]];
        inst = wasm_instance_new(store, m, &vec, &trap);
        CHECK(inst != NULL && trap == NULL, "success sets *trap to NULL");
        wasm_module_delete(m);
    }
}

static void module_instantiated_again_links_afresh(void)
{
    if (NOT_FOLLOWED("WAMR keeps a module's global links from one "
                     "instantiation to the next")) {
        static const int all[] = { F1, F2, G1, G2 };
        static const int funcs[] = { F1, F2 };
        wasm_module_t *m = compile_module(store, "wamr_link");
        wasm_trap_t *trap;
        wasm_instance_t *inst;
        make_externs();
        inst = link_in(m, all, 4, &trap);
        EXPECT_NO_TRAP(trap);
        CHECK(inst != NULL, "first instantiation");
        inst = link_in(m, funcs, 2, &trap);
        CHECK(inst == NULL, "the globals of the first link are not reused");
        EXPECT_TRAP(trap, MISSING_GLOBAL("env", "g1"));
        wasm_module_delete(m);
    }
}

static void imports_not_linked_ahead(void)
{
    /* No natives are registered (wasm_export.h), in WAMR either: no import
       is linked ahead of instantiation. */
    wasm_module_t *m = compile_module(store, "wamr_link");
    wasm_importtype_vec_t imports;
    size_t i;
    wasm_module_imports(m, &imports);
    for (i = 0; i < imports.num_elems; i++)
        CHECK(!wasm_importtype_is_linked(imports.data[i]),
              "import %zu is linked", i);
    wasm_importtype_vec_delete(&imports);
    wasm_module_delete(m);
}

int main(int argc, char **argv)
{
    test_init(argc, argv, "wamr_link");
    RUN_PART(imports_grouped_by_kind);
    RUN_PART(link_by_kind_and_position);
    RUN_PART(functions_linked_by_position_not_name);
    RUN_PART(global_kind_mismatch_fails);
    RUN_PART(null_element_fails);
    RUN_PART(global_mutability_not_compared);
    RUN_PART(missing_functions_allowed);
    RUN_PART(missing_global_fails);
    RUN_PART(empty_or_null_imports);
    RUN_PART(placeholders_count_as_missing);
    RUN_PART(memories_and_tables_not_checked);
    RUN_PART(extra_functions_or_globals_fail);
    RUN_PART(null_data_with_elements_fails);
    RUN_PART(max_memory_pages_caps_growth);
    RUN_PART(memory_of_another_module);
    RUN_PART(trap_cleared_on_success);
    RUN_PART(module_instantiated_again_links_afresh);
    RUN_PART(imports_not_linked_ahead);
    test_pass();
    return 0;
}
