#!/usr/bin/env python3
"""Writes the module of the instantiate_64mib case: a 64 MiB memory (1024
pages) with 1 MiB of data in 16 active segments of 64 KiB, back to back from
address 1024 on as a C program's data section would be,
and an export "probe" (i32) -> i32 that loads the i32 at an address, which
the harness uses to check that every runtime laid the data out alike.

usage: gen_data_module.py OUT.wasm

The bytes are written directly (no wabt needed) and depend on nothing else,
so every runtime instantiates the same module. This is the shape of a
program whose initialised data is large (tables, fonts, a compiled-in
dictionary): what instantiation from a memory image is for.
"""
import sys

from gen_large_module import uleb, sleb

SEGMENTS, SEGMENT_BYTES, FIRST = 16, 64 << 10, 1024


def section(sid, body):
    return bytes([sid]) + uleb(len(body)) + body


def vec(items):
    return uleb(len(items)) + b"".join(items)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    types = section(1, vec([b"\x60" + vec([b"\x7f"]) + vec([b"\x7f"])]))
    funcs = section(3, vec([uleb(0)]))
    memory = section(5, vec([b"\x00" + uleb(1024)]))
    exports = section(7, vec([uleb(5) + b"probe" + b"\x00" + uleb(0)]))
    # probe: local.get 0; i32.load align=2 offset=0; end
    body = vec([]) + b"\x20\x00" + b"\x28\x02\x00" + b"\x0b"
    code = section(10, vec([uleb(len(body)) + body]))
    segments = []
    for k in range(SEGMENTS):
        data = bytes((i * 7 + k) & 0xFF for i in range(SEGMENT_BYTES))
        offset = b"\x41" + sleb(FIRST + k * SEGMENT_BYTES) + b"\x0b"
        segments.append(b"\x00" + offset + uleb(len(data)) + data)
    datas = section(11, vec(segments))
    with open(sys.argv[1], "wb") as out:
        out.write(b"\0asm\1\0\0\0" + types + funcs + memory + exports + code + datas)


if __name__ == "__main__":
    main()
