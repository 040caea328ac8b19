#!/usr/bin/env python3
"""Hello through the cranewasm Python package: wasm calls back into Python.

    cargo build --release -p cranewasm-capi && pip install ./python
    python3 examples/python/hello_cranewasm.py
"""

import cranewasm as w

engine = w.Engine()
store = w.Store(engine)
module = w.Module(engine, """(module
  (import "host" "hello" (func $hello (param i32)))
  (func (export "run") (call $hello (i32.const 42)))
  (func (export "add") (param i32 i32) (result i32)
    (i32.add (local.get 0) (local.get 1))))""")
hello = w.Func(store, w.FuncType([w.ValType.i32()], []), lambda n: print(f"Hello from Python, wasm passed {n}"))
instance = w.Instance(store, module, [hello])
instance.exports.run()
print("add(2, 3) =", instance.exports.add(2, 3))
