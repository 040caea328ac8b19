/* GC references through wasm_c_api.h (issue 40): structs, arrays and i31s
   come out of wasm as wasm_ref_t objects, go back in as the same objects,
   survive collections while C holds them, and are read, written and made
   by the host with the cranewasm_ref_* / _struct_* / _array_* extensions.
   Every misuse is refused with a reason, never a crash. run.sh runs this
   under valgrind too: reference objects the test leaves undeleted are
   freed with their store, and their pins with them. */
#include "common.h"

static const char *const WAT =
    "(module\n"
    "  (type $point (struct (field $x i32) (field $y (mut i32))))\n"
    "  (type $bytes (array (mut i8)))\n"
    "  (type $node (struct (field $next (ref null $node)) (field $v i32)))\n"
    "  (global $kept (export \"kept\") (mut anyref) (ref.null any))\n"
    "  (table $t (export \"table\") 4 anyref)\n"
    "  (func (export \"make\") (param i32 i32) (result (ref $point))\n"
    "    (struct.new $point (local.get 0) (local.get 1)))\n"
    "  (func (export \"sum\") (param (ref null $point)) (result i32)\n"
    "    (i32.add (struct.get $point $x (local.get 0)) (struct.get $point $y (local.get 0))))\n"
    "  (func (export \"kind\") (param anyref) (result i32)\n"
    "    (if (result i32) (ref.is_null (local.get 0)) (then (i32.const 0))\n"
    "      (else (if (result i32) (ref.test (ref i31) (local.get 0)) (then (i32.const 1))\n"
    "        (else (if (result i32) (ref.test (ref struct) (local.get 0)) (then (i32.const 2))\n"
    "          (else (if (result i32) (ref.test (ref array) (local.get 0)) (then (i32.const 3))\n"
    "            (else (i32.const 4))))))))))\n"
    "  (func (export \"eq\") (param eqref eqref) (result i32) (ref.eq (local.get 0) (local.get 1)))\n"
    "  (func (export \"i31\") (param i32) (result i31ref) (ref.i31 (local.get 0)))\n"
    "  (func (export \"i31_get\") (param (ref i31)) (result i32) (i31.get_s (local.get 0)))\n"
    "  (func (export \"keep\") (param anyref) (global.set $kept (local.get 0)))\n"
    "  (func (export \"internalise\") (param externref) (result anyref) (any.convert_extern (local.get 0)))\n"
    "  (func (export \"externalise\") (param anyref) (result externref) (extern.convert_any (local.get 0)))\n"
    "  (func (export \"kept_ref\") (result anyref) (global.get $kept))\n"
    "  (func (export \"byte_sum\") (param (ref $bytes)) (result i32)\n"
    "    (local $i i32) (local $s i32)\n"
    "    (block $done (loop $l\n"
    "      (br_if $done (i32.ge_u (local.get $i) (array.len (local.get 0))))\n"
    "      (local.set $s (i32.add (local.get $s) (array.get_s $bytes (local.get 0) (local.get $i))))\n"
    "      (local.set $i (i32.add (local.get $i) (i32.const 1)))\n"
    "      (br $l)))\n"
    "    (local.get $s))\n"
    /* Lists of 1,000 nodes made and dropped: 16 KB each. */
    "  (func (export \"churn\") (param $times i32)\n"
    "    (local $l (ref null $node)) (local $i i32)\n"
    "    (loop $again\n"
    "      (local.set $l (ref.null $node)) (local.set $i (i32.const 1000))\n"
    "      (loop $add\n"
    "        (local.set $l (struct.new $node (local.get $l) (local.get $i)))\n"
    "        (br_if $add (local.tee $i (i32.sub (local.get $i) (i32.const 1)))))\n"
    "      (br_if $again (local.tee $times (i32.sub (local.get $times) (i32.const 1)))))))\n";

/* Type indices in WAT's type section. */
enum { POINT = 0, BYTES = 1 };

static wasm_ref_t *ref_result(const wasm_func_t *f, const wasm_val_t *args, size_t n)
{
    wasm_val_t r[1] = { WASM_INIT_VAL };
    EXPECT_NO_TRAP(call(f, args, n, r, 1));
    CHECK(r[0].kind == WASM_EXTERNREF, "a GC reference's kind byte is WASM_ANYREF (%d)", r[0].kind);
    return r[0].of.ref;
}

static int32_t i32_result(const wasm_func_t *f, const wasm_val_t *args, size_t n)
{
    wasm_val_t r[1] = { WASM_INIT_VAL };
    EXPECT_NO_TRAP(call(f, args, n, r, 1));
    return r[0].of.i32;
}

static int32_t kind_in_wasm(const instance_t *inst, wasm_ref_t *r)
{
    wasm_val_t a[1] = { WASM_REF_VAL(r) };
    return i32_result(export_func(inst, "kind"), a, 1);
}

/* `trap` is a trap whose message contains `part`; deleted. */
static void expect_trap_containing(wasm_trap_t *trap, const char *part, const char *what)
{
    wasm_message_t msg = { 0 };
    CHECK(trap != NULL, "%s: expected a trap", what);
    if (!trap)
        return;
    wasm_trap_message(trap, &msg);
    CHECK(msg.data && strstr(msg.data, part), "%s: trap \"%.*s\" should mention \"%s\"", what, (int)msg.size,
          msg.data ? msg.data : "", part);
    wasm_byte_vec_delete(&msg);
    wasm_trap_delete(trap);
}

/* The calling thread's last error contains `part`. */
static void expect_last_error(const char *part, const char *what)
{
    wasm_byte_vec_t msg = { 0 };
    bool got = cranewasm_last_error(&msg);
    CHECK(got && msg.data && strstr(msg.data, part), "%s: last error \"%.*s\" should mention \"%s\"", what,
          got ? (int)msg.size : 0, got && msg.data ? msg.data : "", part);
    wasm_byte_vec_delete(&msg);
}

static void structs_out_and_back(const instance_t *inst)
{
    wasm_val_t args[2] = { WASM_I32_VAL(30), WASM_I32_VAL(12) };
    wasm_ref_t *p = ref_result(export_func(inst, "make"), args, 2);
    wasm_val_t v = WASM_INIT_VAL;
    wasm_valkind_t kind = 99;
    uint8_t bits = 99;
    bool mutable_ = true;

    CHECK(p != NULL, "make returns a reference object");
    CHECK_EQ_INT(cranewasm_ref_gc_kind(p), CRANEWASM_REF_STRUCT, "make's result is a struct");
    CHECK_EQ_INT(cranewasm_struct_field_count(p), 2, "a point has two fields");
    CHECK(cranewasm_struct_field_type(p, 0, &kind, &bits, &mutable_), "field 0's type");
    CHECK(kind == WASM_I32 && bits == 0 && !mutable_, "field 0 is an immutable i32");
    CHECK(cranewasm_struct_get(p, 1, false, &v) && v.kind == WASM_I32 && v.of.i32 == 12, "y reads 12");

    /* Back into wasm: the same object. */
    {
        wasm_val_t a[1] = { WASM_REF_VAL(p) };
        CHECK_EQ_INT(i32_result(export_func(inst, "sum"), a, 1), 42, "sum of the point");
        CHECK_EQ_INT(kind_in_wasm(inst, p), 2, "wasm sees a struct");
    }

    /* Host writes are seen by wasm; immutable fields refuse them. */
    v = (wasm_val_t)WASM_I32_VAL(100);
    CHECK(cranewasm_struct_set(p, 1, &v), "y is mutable");
    {
        wasm_val_t a[1] = { WASM_REF_VAL(p) };
        CHECK_EQ_INT(i32_result(export_func(inst, "sum"), a, 1), 130, "sum after the host's write");
    }
    CHECK(!cranewasm_struct_set(p, 0, &v), "x is immutable");
    expect_last_error("immutable", "setting an immutable field");
    v = (wasm_val_t)WASM_I64_VAL(1);
    CHECK(!cranewasm_struct_set(p, 1, &v), "an i64 for an i32 field is refused");
    CHECK(!cranewasm_struct_get(p, 2, false, &v), "no field 2");
    expect_last_error("past", "reading past the last field");
    CHECK(!cranewasm_array_len(p, NULL), "a struct is not an array");

    /* Copies are the same object (ref.eq), and independent handles. */
    {
        wasm_ref_t *c = wasm_ref_copy(p);
        wasm_val_t a[2] = { WASM_REF_VAL(p), WASM_REF_VAL(c) };
        CHECK(c != NULL && c != p, "a copy is a new handle");
        CHECK(wasm_ref_same(p, c), "a copy is the same reference");
        CHECK_EQ_INT(i32_result(export_func(inst, "eq"), a, 2), 1, "ref.eq on the copy");
        wasm_ref_delete(p);
        CHECK(cranewasm_struct_get(c, 0, false, &v) && v.of.i32 == 30, "the copy outlives the original");
        /* p is left to the store to free. */
        wasm_ref_delete(c);
    }
}

/* The types of functions, globals and tables tell a concrete struct type
   from a function type: its kind is WASM_EXTERNREF (WASM_ANYREF), the
   kind of its values. */
static void reflection(const instance_t *inst)
{
    wasm_functype_t *ft = wasm_func_type(export_func(inst, "sum"));
    wasm_functype_t *mt = wasm_func_type(export_func(inst, "make"));
    const wasm_valtype_vec_t *params = wasm_functype_params(ft);
    const wasm_valtype_vec_t *results = wasm_functype_results(mt);
    wasm_globaltype_t *gt = wasm_global_type(wasm_extern_as_global(export_named(inst, "kept")));
    wasm_tabletype_t *tt = wasm_table_type(wasm_extern_as_table(export_named(inst, "table")));

    CHECK_EQ_INT(wasm_valtype_kind(params->data[0]), WASM_EXTERNREF, "sum's (ref null $point) parameter");
    CHECK_EQ_INT(wasm_valtype_kind(results->data[0]), WASM_EXTERNREF, "make's (ref $point) result");
    CHECK_EQ_INT(wasm_valtype_kind(wasm_globaltype_content(gt)), WASM_EXTERNREF, "an anyref global");
    CHECK_EQ_INT(wasm_valtype_kind(wasm_tabletype_element(tt)), WASM_EXTERNREF, "an anyref table");
    /* The module's export types say the same (inst->types: its exports). */
    {
        size_t i, found = 0;
        for (i = 0; i < inst->types.num_elems; i++) {
            const wasm_name_t *n = wasm_exporttype_name(inst->types.data[i]);
            const wasm_externtype_t *et = wasm_exporttype_type(inst->types.data[i]);
            if (n->num_elems >= 3 && memcmp(n->data, "sum", 3) == 0 && (n->num_elems == 3 || n->data[3] == 0)) {
                const wasm_functype_t *f = wasm_externtype_as_functype_const(et);
                CHECK_EQ_INT(wasm_valtype_kind(wasm_functype_params(f)->data[0]), WASM_EXTERNREF,
                             "the module's export type of sum");
                found++;
            }
        }
        CHECK_EQ_INT(found, 1, "sum among the module's exports");
    }
    wasm_functype_delete(ft);
    wasm_functype_delete(mt);
    wasm_globaltype_delete(gt);
    wasm_tabletype_delete(tt);
}

static void identity_and_globals(wasm_store_t *store, const instance_t *inst)
{
    wasm_val_t args[2] = { WASM_I32_VAL(1), WASM_I32_VAL(2) };
    wasm_ref_t *p = ref_result(export_func(inst, "make"), args, 2);
    wasm_ref_t *q = ref_result(export_func(inst, "make"), args, 2);
    wasm_val_t a[1] = { WASM_REF_VAL(p) };
    wasm_ref_t *k1, *k2;
    wasm_global_t *g = wasm_extern_as_global(export_named(inst, "kept"));
    wasm_table_t *t = wasm_extern_as_table(export_named(inst, "table"));
    wasm_val_t gv = WASM_INIT_VAL;

    CHECK(!wasm_ref_same(p, q), "two structs of equal fields are different objects");
    EXPECT_NO_TRAP(call(export_func(inst, "keep"), a, 1, NULL, 0));
    k1 = ref_result(export_func(inst, "kept_ref"), NULL, 0);
    k2 = ref_result(export_func(inst, "kept_ref"), NULL, 0);
    CHECK(k1 != k2 && wasm_ref_same(k1, k2) && wasm_ref_same(k1, p), "each result is a new handle of one object");

    /* The global, read and written from C. */
    wasm_global_get(g, &gv);
    CHECK(gv.kind == WASM_EXTERNREF && wasm_ref_same(gv.of.ref, p), "the global holds p");
    wasm_ref_delete(gv.of.ref);
    gv = (wasm_val_t)WASM_REF_VAL(q);
    wasm_global_set(g, &gv);
    wasm_global_get(g, &gv);
    CHECK(wasm_ref_same(gv.of.ref, q), "the global now holds q");
    wasm_ref_delete(gv.of.ref);

    /* The table: an i31 and a struct. */
    {
        wasm_ref_t *i = cranewasm_ref_i31_new(store, -5);
        wasm_ref_t *got;
        int32_t x = 0;
        CHECK(wasm_table_set(t, 0, i) && wasm_table_set(t, 1, p), "anyref table elements set from C");
        got = wasm_table_get(t, 0);
        CHECK(cranewasm_ref_i31_get(got, true, &x) && x == -5, "the table's i31 reads back -5");
        wasm_ref_delete(got);
        got = wasm_table_get(t, 1);
        CHECK(wasm_ref_same(got, p), "the table's struct is p");
        wasm_ref_delete(got);
        CHECK(wasm_table_get(t, 2) == NULL, "a null element reads as NULL");
        wasm_ref_delete(i);
    }
    wasm_ref_delete(k1);
    wasm_ref_delete(k2);
    wasm_ref_delete(q);
    wasm_ref_delete(p);
}

static void i31s(wasm_store_t *store, const instance_t *inst)
{
    wasm_ref_t *r = cranewasm_ref_i31_new(store, -7);
    int32_t x = 0;
    wasm_val_t a[1] = { WASM_REF_VAL(r) };

    CHECK_EQ_INT(cranewasm_ref_gc_kind(r), CRANEWASM_REF_I31, "an i31 reference");
    CHECK(cranewasm_ref_i31_get(r, true, &x) && x == -7, "sign-extended");
    CHECK(cranewasm_ref_i31_get(r, false, &x) && x == 0x7ffffff9, "zero-extended");
    CHECK_EQ_INT(i32_result(export_func(inst, "i31_get"), a, 1), -7, "wasm reads the host's i31");
    CHECK_EQ_INT(kind_in_wasm(inst, r), 1, "wasm sees an i31");
    wasm_ref_delete(r);

    a[0] = (wasm_val_t)WASM_I32_VAL(1234);
    r = ref_result(export_func(inst, "i31"), a, 1);
    CHECK(cranewasm_ref_i31_get(r, true, &x) && x == 1234, "wasm's i31 reads 1234 in C");
    {
        wasm_ref_t *same = cranewasm_ref_i31_new(store, 1234);
        CHECK(wasm_ref_same(r, same), "i31s of one value are the same reference");
        wasm_ref_delete(same);
    }
    wasm_ref_delete(r);
}

/* Host data made internal by wasm comes out as a GC reference of kind
   HOST, goes back in (boxed again), and converts back to the pointer. */
static void host_data(const instance_t *inst)
{
    static int host;
    wasm_val_t a[1] = { WASM_REF_VAL((wasm_ref_t *)&host) }, r[1] = { WASM_INIT_VAL };
    wasm_ref_t *any;

    EXPECT_NO_TRAP(call(export_func(inst, "internalise"), a, 1, r, 1));
    any = r[0].of.ref;
    CHECK_EQ_INT(cranewasm_ref_gc_kind(any), CRANEWASM_REF_HOST, "internalised host data");
    CHECK_EQ_INT(kind_in_wasm(inst, any), 4, "wasm sees an anyref that is no eqref");
    a[0] = (wasm_val_t)WASM_REF_VAL(any);
    EXPECT_NO_TRAP(call(export_func(inst, "externalise"), a, 1, r, 1));
    CHECK(r[0].kind == WASM_EXTERNREF && r[0].of.ref == (wasm_ref_t *)&host, "the same host pointer comes back");
    wasm_ref_delete(any);
}

static void host_made(wasm_store_t *store, const wasm_module_t *module, const instance_t *inst)
{
    wasm_val_t fields[2] = { WASM_I32_VAL(5), WASM_I32_VAL(6) };
    wasm_val_vec_t fv = { 2, fields, 2, sizeof(wasm_val_t), NULL };
    wasm_ref_t *p = cranewasm_struct_new(store, module, POINT, &fv);
    wasm_ref_t *d = cranewasm_struct_new(store, module, POINT, NULL);
    wasm_val_t init = WASM_I32_VAL(-1), v;
    wasm_ref_t *b = cranewasm_array_new(store, module, BYTES, &init, 10);
    uint32_t len = 0, type = 99;
    uint8_t bits = 0;

    CHECK(p && d && b, "host allocations succeed");
    {
        wasm_val_t a[1] = { WASM_REF_VAL(p) };
        CHECK_EQ_INT(i32_result(export_func(inst, "sum"), a, 1), 11, "wasm sums the host's struct");
        a[0] = (wasm_val_t)WASM_REF_VAL(d);
        CHECK_EQ_INT(i32_result(export_func(inst, "sum"), a, 1), 0, "a default struct is zero");
    }
    CHECK(cranewasm_ref_type_index(p, module, &type) && type == POINT, "the struct's type index");
    CHECK(cranewasm_ref_type_index(b, module, &type) && type == BYTES, "the array's type index");
    CHECK(cranewasm_array_len(b, &len) && len == 10, "ten elements");
    CHECK(cranewasm_array_elem_type(b, NULL, &bits, NULL) && bits == 8, "packed i8 elements");
    CHECK(cranewasm_array_get(b, 3, true, &v) && v.of.i32 == -1, "sign-extended element");
    CHECK(cranewasm_array_get(b, 3, false, &v) && v.of.i32 == 255, "zero-extended element");
    v = (wasm_val_t)WASM_I32_VAL(0x105); /* low 8 bits kept: 5 */
    CHECK(cranewasm_array_set(b, 0, &v), "set element 0");
    {
        wasm_val_t a[1] = { WASM_REF_VAL(b) };
        CHECK_EQ_INT(i32_result(export_func(inst, "byte_sum"), a, 1), 5 - 9, "wasm sums the host's bytes");
    }
    CHECK(!cranewasm_array_get(b, 10, false, &v), "index 10 is out of bounds");
    CHECK(!cranewasm_struct_new(store, module, BYTES, NULL), "an array type is not a struct type");
    expect_last_error("not a struct type", "struct_new of an array type");
    fv.num_elems = fv.size = 1;
    CHECK(!cranewasm_struct_new(store, module, POINT, &fv), "one value for two fields");
    CHECK(!cranewasm_array_new(store, module, POINT, NULL, 1), "a struct type is not an array type");
    CHECK(!cranewasm_array_new(NULL, module, BYTES, NULL, 1), "no store");
    /* A larger array than the heap may hold: refused, the store usable. */
    CHECK(!cranewasm_array_new(store, module, BYTES, NULL, 0xffffffffu), "a 4 GiB array");
    wasm_ref_delete(p);
    wasm_ref_delete(d);
    wasm_ref_delete(b);
}

static void collections(const instance_t *inst)
{
    wasm_val_t args[2] = { WASM_I32_VAL(7), WASM_I32_VAL(8) };
    wasm_ref_t *held[64];
    int i;
    wasm_val_t v;

    for (i = 0; i < 64; i++) {
        args[0].of.i32 = i;
        held[i] = ref_result(export_func(inst, "make"), args, 2);
    }
    /* 2,000 lists of 16 KB: 32 MB, many collections that move the held
       structs. */
    for (i = 0; i < 20; i++)
        EXPECT_NO_TRAP(call_i32(export_func(inst, "churn"), 100, NULL));
    for (i = 0; i < 64; i++) {
        wasm_val_t a[1] = { WASM_REF_VAL(held[i]) };
        CHECK(cranewasm_struct_get(held[i], 0, false, &v) && v.of.i32 == i, "held struct %d survives", i);
        CHECK_EQ_INT(i32_result(export_func(inst, "sum"), a, 1), i + 8, "wasm reads the moved struct");
        wasm_ref_delete(held[i]);
    }
    /* Results deleted as they come: a long loop holds nothing. */
    for (i = 0; i < 20000; i++)
        wasm_ref_delete(ref_result(export_func(inst, "make"), args, 2));
}

static void refused(wasm_engine_t *engine, wasm_store_t *store, const instance_t *inst)
{
    wasm_store_t *other = wasm_store_new(engine);
    wasm_foreign_t *foreign = wasm_foreign_new(store);
    wasm_ref_t *fr = wasm_foreign_as_ref(foreign);
    wasm_ref_t *i31 = cranewasm_ref_i31_new(store, 3);
    wasm_ref_t *alien = cranewasm_ref_i31_new(other, 3);
    wasm_val_t a[1] = { WASM_REF_VAL(fr) };
    wasm_val_t r[1] = { WASM_INIT_VAL };

    EXPECT_TRAP(call(export_func(inst, "kind"), a, 1, r, 1),
                "wasm_func_call: an anyref value must be NULL or a GC reference (a wasm_ref_t that wasm or "
                "cranewasm_*_new gave)");
    a[0] = (wasm_val_t)WASM_REF_VAL(i31);
    expect_trap_containing(call(export_func(inst, "sum"), a, 1, r, 1), "argument 0 is not a value of type",
                           "an i31 where a struct is expected");
    a[0] = (wasm_val_t)WASM_REF_VAL(NULL);
    expect_trap_containing(call(export_func(inst, "i31_get"), a, 1, r, 1),
                           "argument 0 is not a value of type (ref i31)", "NULL where a non-null i31 is expected");
    CHECK_EQ_INT(kind_in_wasm(inst, NULL), 0, "NULL is a null anyref");
    /* An i31 is no store's: one made in another store is still 3. */
    a[0] = (wasm_val_t)WASM_REF_VAL(alien);
    CHECK_EQ_INT(i32_result(export_func(inst, "i31_get"), a, 1), 3, "an i31 of another store");
    /* NULL and foreign pointers everywhere. */
    CHECK_EQ_INT(cranewasm_ref_gc_kind(NULL), CRANEWASM_REF_NOT_GC, "NULL");
    CHECK_EQ_INT(cranewasm_ref_gc_kind(fr), CRANEWASM_REF_NOT_GC, "a foreign reference");
    CHECK(!cranewasm_struct_get(fr, 0, false, r), "a foreign reference has no fields");
    CHECK(!cranewasm_ref_i31_get(NULL, true, NULL), "NULL is no i31");
    CHECK(!cranewasm_struct_new(store, NULL, 0, NULL), "no module");
    CHECK_EQ_INT(cranewasm_struct_field_count(i31), 0, "an i31 has no fields");
    /* NULL in every pointer position: refused, nothing written. */
    {
        wasm_val_t v = WASM_I32_VAL(1);
        uint32_t u = 7;
        CHECK(cranewasm_ref_i31_new(NULL, 1) == NULL, "i31_new(NULL)");
        CHECK(!cranewasm_ref_type_index(NULL, NULL, NULL) && !cranewasm_ref_type_index(i31, NULL, &u) && u == 7,
              "type_index(NULL...)");
        CHECK(cranewasm_struct_new(NULL, NULL, 0, NULL) == NULL, "struct_new(NULL...)");
        CHECK_EQ_INT(cranewasm_struct_field_count(NULL), 0, "field_count(NULL)");
        CHECK(!cranewasm_struct_field_type(NULL, 0, NULL, NULL, NULL), "field_type(NULL)");
        CHECK(!cranewasm_struct_get(NULL, 0, false, NULL) && !cranewasm_struct_set(NULL, 0, &v), "struct get/set(NULL)");
        CHECK(cranewasm_array_new(NULL, NULL, 0, NULL, 0) == NULL, "array_new(NULL...)");
        CHECK(!cranewasm_array_len(NULL, &u) && u == 7, "array_len(NULL)");
        CHECK(!cranewasm_array_elem_type(NULL, NULL, NULL, NULL), "elem_type(NULL)");
        CHECK(!cranewasm_array_get(NULL, 0, false, NULL) && !cranewasm_array_set(NULL, 0, NULL), "array get/set(NULL)");
    }

    wasm_ref_delete(alien);
    wasm_ref_delete(i31);
    wasm_ref_delete(fr);
    wasm_foreign_delete(foreign);
    wasm_store_delete(other);
}

static void structs_of_another_store(wasm_engine_t *engine, const instance_t *inst)
{
    wasm_store_t *other = wasm_store_new(engine);
    wasm_module_t *m2 = try_compile_text(other, WAT);
    instance_t inst2 = instantiate(other, m2, NULL, 0);
    wasm_val_t args[2] = { WASM_I32_VAL(1), WASM_I32_VAL(1) };
    wasm_ref_t *p2 = ref_result(export_func(&inst2, "make"), args, 2);
    wasm_val_t a[1] = { WASM_REF_VAL(p2) };
    wasm_val_t r[1] = { WASM_INIT_VAL };

    EXPECT_TRAP(call(export_func(inst, "sum"), a, 1, r, 1), "object used with a store it does not belong to");
    /* Deleting the other store frees p2 (left undeleted) with it. */
    instance_release(&inst2);
    wasm_module_delete(m2);
    wasm_store_delete(other);
}

int main(int argc, char **argv)
{
    wasm_engine_t *engine;
    wasm_store_t *store;
    wasm_module_t *module;
    instance_t inst;

    test_init(argc, argv, "gc_refs");
    engine = wasm_engine_new();
    store = wasm_store_new(engine);
    module = try_compile_text(store, WAT);
    CHECK(module != NULL, "the GC module compiles");
    inst = instantiate(store, module, NULL, 0);

    reflection(&inst);
    structs_out_and_back(&inst);
    identity_and_globals(store, &inst);
    i31s(store, &inst);
    host_data(&inst);
    host_made(store, module, &inst);
    collections(&inst);
    refused(engine, store, &inst);
    structs_of_another_store(engine, &inst);

    instance_release(&inst);
    wasm_module_delete(module);
    wasm_store_delete(store);
    wasm_engine_delete(engine);
    test_pass();
    return 0;
}
