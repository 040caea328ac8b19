/* WAMR's type constructors (wasm_c_api.c): what they do with the `own`
 * arguments they are given. Rows "types: ..." of the table in
 * capi/README.md.
 *
 *  - wasm_functype_new, wasm_importtype_new and wasm_exporttype_new take
 *    the caller's vectors by copying the vector struct: the new object
 *    uses the same buffer, and the caller's struct is left as it was (so
 *    the caller can still read it; deleting it too would free the buffer
 *    twice). NULL vectors make empty ones (functype).
 *  - Names given to importtype/exporttype are kept byte for byte: no NUL
 *    is added, a trailing NUL the caller put there is kept, and copies of
 *    the type copy the same bytes.
 *  - When a constructor fails (a NULL argument, a table element that is
 *    not a reference), it takes nothing: the caller still owns, and may
 *    use and delete, everything it passed.
 *  - wasm_globaltype_new keeps any mutability value it is given.
 */
#include "wamr.h"

static void functype_keeps_caller_vectors(void)
{
    wasm_valtype_vec_t p, r;
    wasm_valtype_t *ps[2] = { wasm_valtype_new(WASM_I32),
                              wasm_valtype_new(WASM_F64) };
    wasm_valtype_t *rs[1] = { wasm_valtype_new(WASM_I64) };
    wasm_functype_t *ft;
    const wasm_valtype_vec_t *fp, *fr;

    wasm_valtype_vec_new(&p, 2, ps);
    wasm_valtype_vec_new(&r, 1, rs);
    ft = wasm_functype_new(&p, &r);
    CHECK(ft != NULL, "wasm_functype_new");
    fp = wasm_functype_params(ft);
    fr = wasm_functype_results(ft);
    CHECK(p.size == 2 && p.num_elems == 2 && p.data != NULL,
          "the caller's params struct is left as it was: size %zu "
          "num_elems %zu data %p",
          p.size, p.num_elems, (void *)p.data);
    CHECK(r.size == 1 && r.num_elems == 1 && r.data != NULL,
          "the caller's results struct is left as it was");
    CHECK(fp && fp->data == p.data && fp->num_elems == 2,
          "the type uses the caller's params buffer");
    CHECK(fr && fr->data == r.data && fr->num_elems == 1,
          "the type uses the caller's results buffer");
    CHECK(wasm_valtype_kind(p.data[1]) == WASM_F64,
          "the caller can still read its vector");
    /* Only the type is deleted: p and r are its buffers now. */
    wasm_functype_delete(ft);
}

static void functype_of_null_vectors(void)
{
    wasm_functype_t *ft = wasm_functype_new(NULL, NULL);
    CHECK(ft != NULL, "wasm_functype_new(NULL, NULL) makes a type");
    CHECK(wasm_functype_params(ft) && wasm_functype_params(ft)->size == 0
              && wasm_functype_results(ft)
              && wasm_functype_results(ft)->size == 0,
          "with empty parameter and result lists");
    wasm_functype_delete(ft);
}

static void failed_type_constructors_take_nothing(void)
{
    wasm_limits_t limits = { 1, 2 };
    wasm_valtype_t *i32 = wasm_valtype_new(WASM_I32);
    wasm_valtype_t *fr = wasm_valtype_new(WASM_FUNCREF);

    CHECK(wasm_tabletype_new(i32, &limits) == NULL,
          "a table of i32 is refused");
    CHECK(wasm_valtype_kind(i32) == WASM_I32,
          "the refused element is still the caller's");
    CHECK(wasm_tabletype_new(fr, NULL) == NULL,
          "a table type without limits is refused");
    CHECK(wasm_valtype_kind(fr) == WASM_FUNCREF,
          "the element is still the caller's");
    wasm_valtype_delete(i32);
    wasm_valtype_delete(fr);
}

static void globaltype_keeps_mutability(void)
{
    wasm_globaltype_t *gt = wasm_globaltype_new(wasm_valtype_new(WASM_F32), 2);
    CHECK(gt != NULL, "wasm_globaltype_new with mutability 2 makes a type");
    if (gt) {
        CHECK_EQ_INT(wasm_globaltype_mutability(gt), 2, "mutability kept");
        CHECK(wasm_valtype_kind(wasm_globaltype_content(gt)) == WASM_F32,
              "content");
    }
    wasm_globaltype_delete(gt);
}

static void importtype_keeps_caller_names(void)
{
    wasm_name_t module = name_of("mA"), name = name_of("func#1");
    wasm_name_t nul;
    char *module_data = module.data, *name_data = name.data;
    wasm_importtype_t *it, *copy;
    const wasm_name_t *m, *n;

    it = wasm_importtype_new(&module, &name,
                             wasm_functype_as_externtype(
                                 wasm_functype_new_0_0()));
    CHECK(it != NULL, "wasm_importtype_new");
    CHECK(module.data == module_data && module.size == 2
              && module.num_elems == 2,
          "the caller's module name struct is left as it was");
    CHECK(name.data == name_data && name.size == 6 && name.num_elems == 6,
          "the caller's field name struct is left as it was");
    m = wasm_importtype_module(it);
    n = wasm_importtype_name(it);
    CHECK(m && m->data == module_data && m->size == 2 && m->num_elems == 2,
          "module name kept as given (no NUL added): size %zu",
          m ? m->size : 0);
    CHECK(n && n->data == name_data && n->size == 6 && n->num_elems == 6
              && memcmp(n->data, "func#1", 6) == 0,
          "field name kept as given: size %zu", n ? n->size : 0);

    copy = wasm_importtype_copy(it);
    CHECK(copy != NULL, "wasm_importtype_copy");
    m = wasm_importtype_module(copy);
    CHECK(m && m->size == 2 && m->num_elems == 2
              && memcmp(m->data, "mA", 2) == 0 && m->data != module_data,
          "the copy has its own copy of the same two bytes");
    wasm_importtype_delete(copy);
    wasm_importtype_delete(it);

    /* A NUL the caller put at the end is part of the name. */
    wasm_name_new_from_string_nt(&nul, "env");
    module = name_of("x");
    it = wasm_importtype_new(&nul, &module,
                             wasm_memorytype_as_externtype(
                                 wasm_memorytype_new(&(wasm_limits_t){ 1, 1 })));
    m = wasm_importtype_module(it);
    CHECK(m && m->size == 4 && m->num_elems == 4 && m->data[3] == '\0',
          "a given trailing NUL is kept: size %zu", m ? m->size : 0);
    wasm_importtype_delete(it);
}

static void exporttype_keeps_caller_name(void)
{
    wasm_name_t name = name_of("hello");
    char *data = name.data;
    wasm_exporttype_t *et, *copy;
    const wasm_name_t *n;

    et = wasm_exporttype_new(&name, wasm_globaltype_as_externtype(
                                        wasm_globaltype_new(
                                            wasm_valtype_new(WASM_F32),
                                            WASM_VAR)));
    CHECK(et != NULL, "wasm_exporttype_new");
    CHECK(name.data == data && name.size == 5 && name.num_elems == 5,
          "the caller's name struct is left as it was");
    n = wasm_exporttype_name(et);
    CHECK(n && n->data == data && n->size == 5 && n->num_elems == 5,
          "name kept as given (no NUL added): size %zu", n ? n->size : 0);
    copy = wasm_exporttype_copy(et);
    n = wasm_exporttype_name(copy);
    CHECK(n && n->size == 5 && memcmp(n->data, "hello", 5) == 0,
          "the copy has the same five bytes");
    wasm_exporttype_delete(copy);
    wasm_exporttype_delete(et);
}

static void failed_import_export_types_take_nothing(void)
{
    wasm_name_t module = name_of("m"), name = name_of("f");
    wasm_externtype_t *et = wasm_functype_as_externtype(wasm_functype_new_0_0());

    CHECK(wasm_importtype_new(NULL, &name, et) == NULL, "NULL module name");
    CHECK(wasm_importtype_new(&module, NULL, et) == NULL, "NULL field name");
    CHECK(wasm_importtype_new(&module, &name, NULL) == NULL, "NULL type");
    CHECK(wasm_exporttype_new(NULL, et) == NULL, "NULL export name");
    CHECK(wasm_exporttype_new(&name, NULL) == NULL, "NULL export type");
    /* Nothing was taken: all three are still the caller's. */
    CHECK(module.size == 1 && module.data && module.data[0] == 'm'
              && name.size == 1 && name.data && name.data[0] == 'f',
          "the names are intact");
    CHECK(wasm_externtype_kind(et) == WASM_EXTERN_FUNC,
          "the type is intact");
    wasm_byte_vec_delete(&module);
    wasm_byte_vec_delete(&name);
    wasm_externtype_delete(et);
}

int main(int argc, char **argv)
{
    test_init(argc, argv, "wamr_types");
    RUN_PART(functype_keeps_caller_vectors);
    RUN_PART(functype_of_null_vectors);
    RUN_PART(failed_type_constructors_take_nothing);
    RUN_PART(globaltype_keeps_mutability);
    RUN_PART(importtype_keeps_caller_names);
    RUN_PART(exporttype_keeps_caller_name);
    RUN_PART(failed_import_export_types_take_nothing);
    test_pass();
    return 0;
}
