"""The package's ctypes declarations agree with include/wasm_c_api.h (and
include/wasm_export.h, for its WASI settings): every function it declares
is in a header with as many parameters, and the
structs it mirrors have the header's sizes (compiled with cc, which the
test command installs)."""

import ctypes as c
import re
import subprocess
from pathlib import Path


from cranewasm import _ffi

HEADER = Path(__file__).resolve().parents[2] / "include" / "wasm_c_api.h"
EXPORT_HEADER = HEADER.parent / "wasm_export.h"


def header_functions():
    text = HEADER.read_text() + EXPORT_HEADER.read_text()
    # Declarations span lines; join them and find `name(args);`.
    flat = re.sub(r"\s+", " ", re.sub(r"//[^\n]*|/\*.*?\*/", " ", text, flags=re.S))
    found = {}
    for m in re.finditer(r"\b((?:wasm|cranewasm)_\w+)\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)\s*;", flat):
        args = m.group(2).strip()
        found[m.group(1)] = 0 if args in ("", "void") else args.count(",") + 1
    return found


def test_every_declared_function_matches_the_header():
    declared = header_functions()
    for name, (_, argtypes) in _ffi._SIGNATURES.items():
        assert name in declared, f"{name} is not declared in {HEADER.name} or {EXPORT_HEADER.name}"
        assert declared[name] == len(argtypes), f"{name}: header has {declared[name]} parameters, _ffi {len(argtypes)}"


def test_struct_sizes_match_the_header(tmp_path):
    src = tmp_path / "sizes.c"
    src.write_text('#include <stdio.h>\n#include "wasm_c_api.h"\nint main(void) {\n'
                   ' printf("%zu %zu %zu %zu\\n", sizeof(wasm_byte_vec_t), sizeof(wasm_val_t),'
                   ' offsetof(wasm_val_t, of), sizeof(wasm_limits_t));\n return 0;\n}\n')
    exe = tmp_path / "sizes"
    subprocess.run(["cc", "-I", str(HEADER.parent), str(src), "-o", str(exe)], check=True)
    sizes = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()
    assert [int(x) for x in sizes] == [c.sizeof(_ffi.Vec), c.sizeof(_ffi.Val), _ffi.Val.of.offset, c.sizeof(_ffi.Limits)]
