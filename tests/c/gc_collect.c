/* GC programs through the C API (issue 40): binary trees and rings of
   struct objects (cycles), made and dropped far past the collector's
   first trigger (4 MiB), so that collections run while wasm frames hold
   objects. The answers are checked, and run.sh runs this under valgrind
   too: the collector's copying, its release of the old space and the
   store's freeing of the heap must show no memory error or leak. */
#include "common.h"

static const char *const WAT =
    "(module\n"
    "  (type $node (struct (field $l (ref null $node)) (field $r (ref null $node)) (field $v i32)))\n"
    "  (func $make (param $d i32) (result (ref null $node))\n"
    "    (if (result (ref null $node)) (i32.eqz (local.get $d))\n"
    "      (then (struct.new $node (ref.null $node) (ref.null $node) (i32.const 0)))\n"
    "      (else (struct.new $node (call $make (i32.sub (local.get $d) (i32.const 1)))\n"
    "                              (call $make (i32.sub (local.get $d) (i32.const 1)))\n"
    "                              (local.get $d)))))\n"
    "  (func $sum (param $n (ref null $node)) (result i32)\n"
    "    (if (result i32) (ref.is_null (local.get $n)) (then (i32.const 0))\n"
    "      (else (i32.add (struct.get $node $v (local.get $n))\n"
    "        (i32.add (call $sum (struct.get $node $l (local.get $n)))\n"
    "                 (call $sum (struct.get $node $r (local.get $n))))))))\n"
    "  (func (export \"churn\") (param $times i32) (result i32)\n"
    "    (local $keep (ref null $node)) (local $last i32)\n"
    "    (local.set $keep (call $make (i32.const 10)))\n"
    "    (loop $again\n"
    "      (local.set $last (call $sum (call $make (i32.const 12))))\n"
    "      (br_if $again (local.tee $times (i32.sub (local.get $times) (i32.const 1)))))\n"
    "    (i32.add (local.get $last) (call $sum (local.get $keep))))\n"
    "  (type $link (struct (field $v i32) (field $next (mut (ref null $link)))))\n"
    "  (func (export \"rings\") (param $n i32) (param $times i32) (result i32)\n"
    "    (local $first (ref null $link)) (local $p (ref null $link)) (local $i i32) (local $sum i32)\n"
    "    (loop $again\n"
    "      (local.set $first (struct.new $link (i32.const 1) (ref.null $link)))\n"
    "      (local.set $p (local.get $first))\n"
    "      (local.set $i (i32.const 2))\n"
    "      (loop $add\n"
    "        (struct.set $link $next (local.get $p) (struct.new $link (local.get $i) (ref.null $link)))\n"
    "        (local.set $p (struct.get $link $next (local.get $p)))\n"
    "        (local.set $i (i32.add (local.get $i) (i32.const 1)))\n"
    "        (br_if $add (i32.le_u (local.get $i) (local.get $n))))\n"
    "      (struct.set $link $next (local.get $p) (local.get $first))\n"
    "      (br_if $again (local.tee $times (i32.sub (local.get $times) (i32.const 1)))))\n"
    "    (local.set $p (local.get $first))\n"
    "    (loop $walk\n"
    "      (local.set $sum (i32.add (local.get $sum) (struct.get $link $v (local.get $p))))\n"
    "      (local.set $p (struct.get $link $next (local.get $p)))\n"
    "      (br_if $walk (i32.eqz (ref.eq (local.get $p) (local.get $first)))))\n"
    "    (local.get $sum)))\n";

/* The sum $sum gives for a tree of depth d: level k holds 2^(d-k) nodes
   of value k. */
static int32_t tree_sum(int d)
{
    int32_t s = 0;
    int k;
    for (k = 1; k <= d; k++)
        s += k << (d - k);
    return s;
}

int main(int argc, char **argv)
{
    wasm_engine_t *engine;
    wasm_store_t *store;
    wasm_module_t *module;
    instance_t inst;
    wasm_val_t args[2], results[1];
    int32_t out = 0;

    test_init(argc, argv, "gc_collect");
    engine = wasm_engine_new();
    store = wasm_store_new(engine);
    module = try_compile_text(store, WAT);
    CHECK(module != NULL, "the GC module compiles");
    inst = instantiate(store, module, NULL, 0);

    /* 40 trees of 8,191 nodes of 24 bytes: 7.5 MiB, past the first
       collection, with a tree of depth 10 kept throughout. */
    EXPECT_NO_TRAP(call_i32(export_func(&inst, "churn"), 40, &out));
    CHECK_EQ_INT(out, tree_sum(12) + tree_sum(10), "churn's sums");

    /* 40 rings of 5,000 links (cycles): 4.6 MiB of garbage. */
    args[0] = (wasm_val_t)WASM_I32_VAL(5000);
    args[1] = (wasm_val_t)WASM_I32_VAL(40);
    results[0] = (wasm_val_t)WASM_INIT_VAL;
    EXPECT_NO_TRAP(call(export_func(&inst, "rings"), args, 2, results, 1));
    CHECK_EQ_INT(results[0].of.i32, 5000 * 5001 / 2, "the last ring's sum");

    instance_release(&inst);
    wasm_module_delete(module);
    wasm_store_delete(store);
    wasm_engine_delete(engine);
    test_pass();
    return 0;
}
