"""Wasm exceptions across the Python boundary: a host function raises
``WasmException(tag, payload)`` to throw into its wasm caller, which a
``try_table`` there catches with the payload; one nothing catches comes
out of the outer call as ``WasmException`` with the same tag and payload.
Bad tags and payloads are refused as a host function's errors are: a
``Trap`` whose ``__cause__`` says what was wrong."""

import pytest

import cranewasm as w

WAT = """(module
  (tag $e (export "e") (param i32 f64))
  (tag $none (export "none"))
  (tag $ref (export "ref") (param externref))
  (import "host" "throw" (func $throw (param i32)))
  (func (export "caught") (param i32) (result i32 f64)
    (block $h (result i32 f64)
      (try_table (catch $e $h) (call $throw (local.get 0)))
      (i32.const -1) (f64.const 0)))
  (func (export "caught_none") (param i32) (result i32)
    (block $h
      (try_table (catch $none $h) (call $throw (local.get 0)))
      (return (i32.const -1)))
    (i32.const 1))
  (func (export "caught_ref") (param i32) (result externref)
    (block $h (result externref)
      (try_table (catch $ref $h) (call $throw (local.get 0)))
      (ref.null extern)))
  (func (export "legacy") (param i32) (result i32)
    try (result i32)
      (call $throw (local.get 0))
      (i32.const -1)
    catch $e
      (drop)
    end)
  (func (export "uncaught") (param i32) (call $throw (local.get 0))))"""


def instance_with(store, throw):
    """The module, its host function ``throw(x)`` running ``throw``."""
    module = w.Module(store.engine, WAT)
    return w.Instance(store, module, [w.Func(store, w.FuncType([w.ValType.i32()], []), throw)])


def test_a_host_function_throws_into_a_try_table(store):
    box = {}

    def throw(x):
        raise w.WasmException(box["inst"].exports["e"], [x * 2, 0.5])

    inst = box["inst"] = instance_with(store, throw)
    tag = inst.exports["e"]
    assert isinstance(tag, w.Tag) and tag.params == [w.ValType.i32(), w.ValType.f64()]
    assert tag == inst.exports.e and tag != inst.exports["none"] and "e" in inst.exports
    assert "e" not in list(inst.exports), "iteration lists no tags"
    assert inst.exports.caught(21) == (42, 0.5)
    assert inst.exports.legacy(3) == 6, "a legacy try catches it too"


def test_an_uncaught_host_exception_leaves_with_its_tag_and_payload(store):
    box = {}

    def throw(x):
        raise w.WasmException(box["inst"].exports["e"], (x, 2.5))

    inst = box["inst"] = instance_with(store, throw)
    with pytest.raises(w.WasmException) as info:
        inst.exports.uncaught(7)
    e = info.value
    assert e.payload == [7, 2.5] and e.tag == inst.exports["e"] and e.code is None
    assert e.message == "Exception: uncaught wasm exception" and repr(e) == "WasmException([7, 2.5])"
    assert inst.exports.caught(1) == (1, 2.5), "the store goes on"


def test_payloads_of_no_values_and_of_references(store):
    box = {}
    marker = object()

    def throw(x):
        if x == 0:
            raise w.WasmException(box["inst"].exports["none"])
        raise w.WasmException(box["inst"].exports["ref"], [marker])

    inst = box["inst"] = instance_with(store, throw)
    assert inst.exports.caught_none(0) == 1
    assert inst.exports.caught_ref(1) is marker


def test_a_host_function_rethrows_what_a_nested_call_threw(store):
    box = {}

    def throw(x):
        if x > 100:
            raise w.WasmException(box["inst"].exports["e"], [x, 1.0])
        try:
            box["inst"].exports.uncaught(x + 1000)
        except w.WasmException as e:
            raise e  # the same tag and payload, thrown on
        raise AssertionError("the nested call threw")

    inst = box["inst"] = instance_with(store, throw)
    assert inst.exports.caught(5) == (1005, 1.0)


def test_through_a_linker(engine):
    store = w.Store(engine)
    linker = w.Linker(engine)
    box = {}

    def throw(x: int) -> None:
        raise w.WasmException(box["inst"].exports["e"], [x + 1, -1.5])

    linker.define_func("host", "throw", throw)
    inst = box["inst"] = linker.instantiate(store, w.Module(engine, WAT))
    assert inst.exports.caught(1) == (2, -1.5)
    with pytest.raises(w.WasmException) as info:
        inst.exports.uncaught(9)
    assert info.value.payload == [10, -1.5]
    store.close()


@pytest.mark.parametrize("payload, why", [
    ([1], "carries 2 values, the payload has 1"),
    ([1, 2.5, 3], "carries 2 values, the payload has 3"),
    (["one", 2.5], "cannot pass 'one' as"),
    ([1 << 40, 2.5], "out of range for i32"),
])
def test_a_bad_payload_is_a_clear_error(store, payload, why):
    box = {"payload": payload}

    def throw(x):
        raise w.WasmException(box["inst"].exports["e"], box["payload"])

    inst = box["inst"] = instance_with(store, throw)
    with pytest.raises(w.Trap) as info:
        inst.exports.caught(1)
    assert not isinstance(info.value, w.WasmException)
    assert isinstance(info.value.__cause__, TypeError) and why in str(info.value.__cause__)
    box["payload"] = [1, 2.5]
    assert inst.exports.caught(1) == (1, 2.5), "the store goes on"


def test_a_tag_of_another_store_is_refused(engine):
    mine, other = w.Store(engine), w.Store(engine)
    foreign = instance_with(other, lambda x: None).exports["e"]

    def throw(x):
        raise w.WasmException(foreign, [x, 1.0])

    inst = instance_with(mine, throw)
    with pytest.raises(w.Trap) as info:
        inst.exports.caught(1)
    cause = info.value.__cause__
    assert isinstance(cause, w.WasmError) and "another store" in str(cause)
    assert foreign != inst.exports["e"]
    mine.close()
    other.close()


def test_the_constructor_checks_its_arguments(store):
    inst = instance_with(store, lambda x: None)
    with pytest.raises(TypeError, match="is not a Tag"):
        w.WasmException("e", [1, 2.5])
    with pytest.raises(TypeError, match="list or tuple"):
        w.WasmException(inst.exports["e"], 5)
    with pytest.raises(KeyError):
        inst.exports["nothing"]
    with pytest.raises(AttributeError):
        inst.exports.nothing
    assert "caught" in inst.exports and "nothing" not in inst.exports and 3 not in inst.exports
    assert repr(inst.exports["e"]) == "Tag([ValType.i32(), ValType.f64()])"
