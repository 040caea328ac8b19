/* Reflection: wasm_module_imports / wasm_module_exports list every import
   and export, in module order, with the right extern kind and type details
   (functype params/results, globaltype content/mutability, tabletype
   element/limits, memorytype limits); names the runtime hands out end in a
   NUL that is counted (ABI.md). Type objects built by the client read back
   what was put in, copies are deep, casts to the wrong kind give NULL, and
   an instance's exports have the kinds and types the module declared. */
#include "common.h"

static const char *kind_name(wasm_valkind_t k)
{
    switch (k) {
    case WASM_I32: return "i32";
    case WASM_I64: return "i64";
    case WASM_F32: return "f32";
    case WASM_F64: return "f64";
    case WASM_V128: return "v128";
    case WASM_EXTERNREF: return "externref";
    case WASM_FUNCREF: return "funcref";
    default: return "?";
    }
}

static void append(char *buf, size_t cap, const char *fmt, ...)
{
    size_t n = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, cap - n, fmt, ap);
    va_end(ap);
}

static void describe_valtypes(const wasm_valtype_vec_t *v, char *buf,
                              size_t cap)
{
    size_t i;
    CHECK(v != NULL, "valtype vector is NULL");
    CHECK(v->num_elems == v->size, "valtype vector size %zu num_elems %zu",
          v->size, v->num_elems);
    append(buf, cap, "(");
    for (i = 0; i < v->num_elems; i++)
        append(buf, cap, "%s%s", i ? " " : "",
               kind_name(wasm_valtype_kind(v->data[i])));
    append(buf, cap, ")");
}

static void describe_limits(const wasm_limits_t *l, char *buf, size_t cap)
{
    CHECK(l != NULL, "limits are NULL");
    if (l->max == wasm_limits_max_default)
        append(buf, cap, " %u..", l->min);
    else
        append(buf, cap, " %u..%u", l->min, l->max);
}

/* One line per extern type, e.g. "func (i32 f64) -> (i64)". */
static const char *describe(const wasm_externtype_t *et, char *buf,
                            size_t cap)
{
    buf[0] = '\0';
    CHECK(et != NULL, "extern type is NULL");
    switch (wasm_externtype_kind(et)) {
    case WASM_EXTERN_FUNC: {
        const wasm_functype_t *ft = wasm_externtype_as_functype_const(et);
        CHECK(ft != NULL, "as_functype");
        append(buf, cap, "func ");
        describe_valtypes(wasm_functype_params(ft), buf, cap);
        append(buf, cap, " -> ");
        describe_valtypes(wasm_functype_results(ft), buf, cap);
        break;
    }
    case WASM_EXTERN_GLOBAL: {
        const wasm_globaltype_t *gt = wasm_externtype_as_globaltype_const(et);
        CHECK(gt != NULL, "as_globaltype");
        append(buf, cap, "global %s%s",
               wasm_globaltype_mutability(gt) == WASM_VAR ? "mut " : "",
               kind_name(wasm_valtype_kind(wasm_globaltype_content(gt))));
        break;
    }
    case WASM_EXTERN_TABLE: {
        const wasm_tabletype_t *tt = wasm_externtype_as_tabletype_const(et);
        CHECK(tt != NULL, "as_tabletype");
        append(buf, cap, "table %s",
               kind_name(wasm_valtype_kind(wasm_tabletype_element(tt))));
        describe_limits(wasm_tabletype_limits(tt), buf, cap);
        break;
    }
    case WASM_EXTERN_MEMORY: {
        const wasm_memorytype_t *mt = wasm_externtype_as_memorytype_const(et);
        CHECK(mt != NULL, "as_memorytype");
        append(buf, cap, "memory");
        describe_limits(wasm_memorytype_limits(mt), buf, cap);
        break;
    }
    default:
        CHECK(0, "extern kind %d", wasm_externtype_kind(et));
    }
    return buf;
}

typedef struct {
    const char *module, *name, *type;
} expect_t;

static const expect_t imports[] = {
    { "env", "f", "func (i32 f64) -> (i64)" },
    { "env", "g", "global mut f32" },
    { "env", "t", "table funcref 1..8" },
    { "env", "m", "memory 1..3" },
    { "other module", "\xc3\xbcn\xc3\xaf" "code", "func () -> ()" },
};

static const expect_t exports[] = {
    { NULL, "func", "func (i64 externref) -> (i32 f32)" },
    { NULL, "glob", "global i64" },
    { NULL, "mglob", "global mut f64" },
    { NULL, "tab", "table externref 2.." },
    { NULL, "mem", "memory 1..3" },
    { NULL, "", "func (i32 f64) -> (i64)" },
    { NULL, "tab_import", "table funcref 1..8" },
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void check_vec_shape(size_t size, size_t num, size_t elem,
                            size_t expected, const char *what)
{
    CHECK(size == expected && num == expected,
          "%s: size %zu num_elems %zu, expected %zu", what, size, num,
          expected);
    CHECK(elem == sizeof(void *), "%s: size_of_elem %zu", what, elem);
}

static int name_is(const wasm_name_t *n, const char *s)
{
    size_t len = strlen(s);
    return n && n->num_elems >= len && memcmp(n->data, s, len) == 0 &&
           (n->num_elems == len ||
            (n->num_elems == len + 1 && n->data[len] == '\0'));
}

/* Position of expected import `which` in the runtime's import list; every
   expected import appears exactly once. */
static size_t import_index(const wasm_importtype_vec_t *v, size_t which)
{
    size_t i, found = (size_t)-1;
    for (i = 0; i < v->num_elems; i++)
        if (name_is(wasm_importtype_module(v->data[i]),
                    imports[which].module) &&
            name_is(wasm_importtype_name(v->data[i]), imports[which].name)) {
            CHECK(found == (size_t)-1, "import %s.%s listed twice",
                  imports[which].module, imports[which].name);
            found = i;
        }
    CHECK(found != (size_t)-1, "import %s.%s not listed",
          imports[which].module, imports[which].name);
    return found;
}

static wasm_trap_t *nop_cb(const wasm_val_vec_t *a, wasm_val_vec_t *r)
{
    (void)a;
    (void)r;
    return NULL;
}

int main(int argc, char **argv)
{
    wasm_engine_t *engine;
    wasm_store_t *store;
    wasm_module_t *module;
    wasm_importtype_vec_t itypes;
    wasm_exporttype_vec_t etypes;
    char buf[256];
    size_t i;

    test_init(argc, argv, "reflection");
    engine = wasm_engine_new();
    store = wasm_store_new(engine);
    module = compile_module(store, "reflection");

    /* --- Imports. Each listed once, found by name: the order is the one
       wasm_instance_new expects, which WAMR groups by kind (functions,
       globals, memories, tables) rather than keeping module order, and
       which ABI.md leaves open. --- */
    wasm_module_imports(module, &itypes);
    check_vec_shape(itypes.size, itypes.num_elems, itypes.size_of_elem,
                    COUNT(imports), "imports vector");
    for (i = 0; i < COUNT(imports); i++) {
        const wasm_importtype_t *it = itypes.data[import_index(&itypes, i)];
        wasm_importtype_t *copy;
        char what[64];
        snprintf(what, sizeof what, "import %zu module", i);
        check_runtime_name(wasm_importtype_module(it), imports[i].module,
                           what);
        snprintf(what, sizeof what, "import %zu name", i);
        check_runtime_name(wasm_importtype_name(it), imports[i].name, what);
        describe(wasm_importtype_type(it), buf, sizeof buf);
        CHECK(strcmp(buf, imports[i].type) == 0,
              "import %zu type \"%s\", expected \"%s\"", i, buf,
              imports[i].type);
        /* A copy is deep and reads the same. */
        copy = wasm_importtype_copy(it);
        CHECK(copy != NULL && copy != it, "wasm_importtype_copy");
        check_runtime_name(wasm_importtype_name(copy), imports[i].name,
                           "copied import name");
        describe(wasm_importtype_type(copy), buf, sizeof buf);
        CHECK(strcmp(buf, imports[i].type) == 0, "copied import type %s",
              buf);
        wasm_importtype_delete(copy);
    }

    /* --- Exports. --- */
    wasm_module_exports(module, &etypes);
    check_vec_shape(etypes.size, etypes.num_elems, etypes.size_of_elem,
                    COUNT(exports), "exports vector");
    for (i = 0; i < COUNT(exports); i++) {
        const wasm_exporttype_t *et = etypes.data[i];
        wasm_exporttype_t *copy;
        char what[64];
        snprintf(what, sizeof what, "export %zu name", i);
        check_runtime_name(wasm_exporttype_name(et), exports[i].name, what);
        describe(wasm_exporttype_type(et), buf, sizeof buf);
        CHECK(strcmp(buf, exports[i].type) == 0,
              "export %zu type \"%s\", expected \"%s\"", i, buf,
              exports[i].type);
        copy = wasm_exporttype_copy(et);
        CHECK(copy != NULL && copy != et, "wasm_exporttype_copy");
        check_runtime_name(wasm_exporttype_name(copy), exports[i].name,
                           "copied export name");
        wasm_exporttype_delete(copy);
    }

    /* A deep copy of the whole vector outlives the original. */
    {
        wasm_exporttype_vec_t copy;
        wasm_exporttype_vec_copy(&copy, &etypes);
        check_vec_shape(copy.size, copy.num_elems, copy.size_of_elem,
                        COUNT(exports), "copied exports vector");
        CHECK(copy.data != etypes.data && copy.data[0] != etypes.data[0],
              "wasm_exporttype_vec_copy is not deep");
        wasm_exporttype_vec_delete(&etypes);
        check_runtime_name(wasm_exporttype_name(copy.data[6]), "tab_import",
                           "export name in a copy after the original died");
        wasm_exporttype_vec_delete(&copy);
    }

    /* --- Types built by the client read back what was put in. --- */
    {
        wasm_limits_t lim = { 2, 9 };
        wasm_functype_t *ft;
        wasm_globaltype_t *gt =
            wasm_globaltype_new(wasm_valtype_new(WASM_I64), WASM_VAR);
        wasm_tabletype_t *tt =
            wasm_tabletype_new(wasm_valtype_new(WASM_EXTERNREF), &lim);
        wasm_memorytype_t *mt = wasm_memorytype_new(&lim);
        wasm_name_t mod, name;
        wasm_importtype_t *it;
        wasm_exporttype_t *xt;
        wasm_externtype_t *ext;
        const wasm_valkind_t p[2] = { WASM_F32, WASM_FUNCREF };
        const wasm_valkind_t r[1] = { WASM_V128 };

        ft = functype_of(p, 2, r, 1);
        CHECK(ft && gt && tt && mt, "type constructors");
        describe(wasm_functype_as_externtype_const(ft), buf, sizeof buf);
        CHECK(strcmp(buf, "func (f32 funcref) -> (v128)") == 0, "functype %s",
              buf);
        describe(wasm_globaltype_as_externtype_const(gt), buf, sizeof buf);
        CHECK(strcmp(buf, "global mut i64") == 0, "globaltype %s", buf);
        describe(wasm_tabletype_as_externtype_const(tt), buf, sizeof buf);
        CHECK(strcmp(buf, "table externref 2..9") == 0, "tabletype %s", buf);
        describe(wasm_memorytype_as_externtype_const(mt), buf, sizeof buf);
        CHECK(strcmp(buf, "memory 2..9") == 0, "memorytype %s", buf);
        CHECK_EQ_INT(wasm_externtype_kind(wasm_functype_as_externtype(ft)),
                     WASM_EXTERN_FUNC, "functype as externtype kind");
        CHECK_EQ_INT(wasm_externtype_kind(wasm_globaltype_as_externtype(gt)),
                     WASM_EXTERN_GLOBAL, "globaltype as externtype kind");
        CHECK_EQ_INT(wasm_externtype_kind(wasm_tabletype_as_externtype(tt)),
                     WASM_EXTERN_TABLE, "tabletype as externtype kind");
        CHECK_EQ_INT(wasm_externtype_kind(wasm_memorytype_as_externtype(mt)),
                     WASM_EXTERN_MEMORY, "memorytype as externtype kind");
        CHECK(wasm_externtype_as_functype(wasm_functype_as_externtype(ft)) ==
                  ft,
              "functype -> externtype -> functype is the same object");

        /* An import type takes ownership of its names and extern type. */
        wasm_name_new_from_string(&mod, "mod");
        wasm_name_new_from_string(&name, "nm");
        ext = wasm_globaltype_as_externtype(wasm_globaltype_copy(gt));
        it = wasm_importtype_new(&mod, &name, ext);
        CHECK(it != NULL, "wasm_importtype_new");
        describe(wasm_importtype_type(it), buf, sizeof buf);
        CHECK(strcmp(buf, "global mut i64") == 0, "importtype type %s", buf);
        CHECK(wasm_importtype_module(it)->num_elems >= 3 &&
                  memcmp(wasm_importtype_module(it)->data, "mod", 3) == 0,
              "importtype module name");
        wasm_importtype_delete(it);

        wasm_name_new_from_string(&name, "x");
        xt = wasm_exporttype_new(
            &name, wasm_memorytype_as_externtype(wasm_memorytype_copy(mt)));
        CHECK(xt != NULL, "wasm_exporttype_new");
        describe(wasm_exporttype_type(xt), buf, sizeof buf);
        CHECK(strcmp(buf, "memory 2..9") == 0, "exporttype type %s", buf);
        wasm_exporttype_delete(xt);

        wasm_functype_delete(ft);
        wasm_globaltype_delete(gt);
        wasm_tabletype_delete(tt);
        wasm_memorytype_delete(mt);
    }

    /* --- Casts to the wrong kind give NULL, never a reinterpreted object
       (WAMR's casts are unchecked and fail this). --- */
    {
        const wasm_externtype_t *fe =
            wasm_importtype_type(itypes.data[import_index(&itypes, 0)]);
        const wasm_externtype_t *ge =
            wasm_importtype_type(itypes.data[import_index(&itypes, 1)]);
        const wasm_externtype_t *te =
            wasm_importtype_type(itypes.data[import_index(&itypes, 2)]);
        const wasm_externtype_t *me =
            wasm_importtype_type(itypes.data[import_index(&itypes, 3)]);
        CHECK(wasm_externtype_as_globaltype_const(fe) == NULL &&
                  wasm_externtype_as_tabletype_const(fe) == NULL &&
                  wasm_externtype_as_memorytype_const(fe) == NULL,
              "a func type converts to another kind");
        CHECK(wasm_externtype_as_functype_const(ge) == NULL &&
                  wasm_externtype_as_tabletype_const(ge) == NULL &&
                  wasm_externtype_as_memorytype_const(ge) == NULL,
              "a global type converts to another kind");
        CHECK(wasm_externtype_as_functype_const(te) == NULL &&
                  wasm_externtype_as_globaltype_const(te) == NULL &&
                  wasm_externtype_as_memorytype_const(te) == NULL,
              "a table type converts to another kind");
        CHECK(wasm_externtype_as_functype_const(me) == NULL &&
                  wasm_externtype_as_globaltype_const(me) == NULL &&
                  wasm_externtype_as_tabletype_const(me) == NULL,
              "a memory type converts to another kind");
        CHECK(wasm_externtype_as_functype((wasm_externtype_t *)ge) == NULL,
              "non-const cast of a global type to a func type");
    }
    {
        wasm_limits_t lim = { 1, 1 };
        wasm_memorytype_t *mt = wasm_memorytype_new(&lim);
        wasm_memory_t *m = wasm_memory_new(store, mt);
        wasm_extern_t *e = wasm_memory_as_extern(m);
        CHECK(m != NULL, "wasm_memory_new");
        CHECK(wasm_extern_as_func(e) == NULL &&
                  wasm_extern_as_global(e) == NULL &&
                  wasm_extern_as_table(e) == NULL &&
                  wasm_extern_as_func_const(e) == NULL,
              "a memory extern converts to another kind");
        CHECK(wasm_extern_as_memory(e) == m, "memory -> extern -> memory");
        wasm_memory_delete(m);
        wasm_memorytype_delete(mt);
    }

    /* --- An instance's exports: same order, kinds and types. WAMR fails
       here: it cannot instantiate a module that imports a host table or a
       host memory. --- */
    {
        const wasm_valkind_t fp[2] = { WASM_I32, WASM_F64 };
        const wasm_valkind_t fr[1] = { WASM_I64 };
        wasm_functype_t *ft = functype_of(fp, 2, fr, 1);
        wasm_functype_t *ft0 = functype_of(NULL, 0, NULL, 0);
        wasm_globaltype_t *gt =
            wasm_globaltype_new(wasm_valtype_new(WASM_F32), WASM_VAR);
        wasm_limits_t tl = { 1, 8 }, ml = { 1, 3 };
        wasm_tabletype_t *tt =
            wasm_tabletype_new(wasm_valtype_new(WASM_FUNCREF), &tl);
        wasm_memorytype_t *mt = wasm_memorytype_new(&ml);
        wasm_val_t g0 = WASM_F32_VAL(0);
        wasm_func_t *f = wasm_func_new(store, ft, nop_cb);
        wasm_func_t *f0 = wasm_func_new(store, ft0, nop_cb);
        wasm_global_t *g = wasm_global_new(store, gt, &g0);
        wasm_table_t *t = wasm_table_new(store, tt, NULL);
        wasm_memory_t *m = wasm_memory_new(store, mt);
        wasm_extern_t *ims[5];
        instance_t inst;

        CHECK(f && f0 && g && t && m, "host objects for the imports");
        CHECK_EQ_INT(wasm_extern_kind(wasm_func_as_extern(f)),
                     WASM_EXTERN_FUNC, "host func extern kind");
        CHECK_EQ_INT(wasm_extern_kind(wasm_global_as_extern(g)),
                     WASM_EXTERN_GLOBAL, "host global extern kind");
        CHECK_EQ_INT(wasm_extern_kind(wasm_table_as_extern(t)),
                     WASM_EXTERN_TABLE, "host table extern kind");
        CHECK_EQ_INT(wasm_extern_kind(wasm_memory_as_extern(m)),
                     WASM_EXTERN_MEMORY, "host memory extern kind");
        /* In the order wasm_module_imports listed them. */
        ims[import_index(&itypes, 0)] = wasm_func_as_extern(f);
        ims[import_index(&itypes, 1)] = wasm_global_as_extern(g);
        ims[import_index(&itypes, 2)] = wasm_table_as_extern(t);
        ims[import_index(&itypes, 3)] = wasm_memory_as_extern(m);
        ims[import_index(&itypes, 4)] = wasm_func_as_extern(f0);
        inst = instantiate(store, module, ims, 5);
        CHECK_EQ_INT(inst.externs.num_elems, COUNT(exports),
                     "instance export count");
        for (i = 0; i < COUNT(exports); i++) {
            wasm_extern_t *e = inst.externs.data[i];
            wasm_externtype_t *et = wasm_extern_type(e);
            describe(et, buf, sizeof buf);
            CHECK(strcmp(buf, exports[i].type) == 0,
                  "instance export %zu type \"%s\", expected \"%s\"", i, buf,
                  exports[i].type);
            CHECK_EQ_INT(wasm_extern_kind(e), wasm_externtype_kind(et),
                         "extern kind matches its type");
            wasm_externtype_delete(et);
        }
        CHECK(wasm_extern_as_func(inst.externs.data[0]) != NULL,
              "export 0 is a func");
        CHECK(wasm_extern_as_global(inst.externs.data[1]) != NULL,
              "export 1 is a global");
        CHECK(wasm_extern_as_table(inst.externs.data[3]) != NULL,
              "export 3 is a table");
        CHECK(wasm_extern_as_memory(inst.externs.data[4]) != NULL,
              "export 4 is a memory");
        instance_release(&inst);
        wasm_func_delete(f);
        wasm_func_delete(f0);
        wasm_global_delete(g);
        wasm_table_delete(t);
        wasm_memory_delete(m);
        wasm_functype_delete(ft);
        wasm_functype_delete(ft0);
        wasm_globaltype_delete(gt);
        wasm_tabletype_delete(tt);
        wasm_memorytype_delete(mt);
    }

    wasm_importtype_vec_delete(&itypes);
    wasm_module_delete(module);
    wasm_store_delete(store);
    wasm_engine_delete(engine);
    test_pass();
    return 0;
}
