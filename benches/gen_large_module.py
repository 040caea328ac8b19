#!/usr/bin/env python3
"""Writes a large, valid wasm module for the compile-time benchmark.

usage: gen_large_module.py OUT.wasm [FUNCTIONS]

Each of the FUNCTIONS functions (default 4000) has a ~1 KiB body of integer
arithmetic, if/else, a short loop, i64 math, memory loads and stores and a
conditional call to its predecessor, so the compiler sees ordinary code rather
than one huge repetitive function. The export "main" (i32) -> i32 calls every
function in turn, which checks that the compiled module runs and gives a value
that must agree between runtimes.

The bytes are written directly (no wabt needed); the output depends only on
FUNCTIONS, so every runtime compiles the same module.
"""
import random
import struct
import sys


def uleb(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def sleb(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        done = (n == 0 and not byte & 0x40) or (n == -1 and byte & 0x40)
        out.append(byte if done else byte | 0x80)
        if done:
            return bytes(out)


def vec(items):
    return uleb(len(items)) + b"".join(items)


def section(sid, payload):
    return bytes([sid]) + uleb(len(payload)) + payload


I32, I64 = 0x7F, 0x7E
# Opcodes used below.
BLOCK, LOOP, IF, ELSE, END, BR_IF = 0x02, 0x03, 0x04, 0x05, 0x0B, 0x0D
CALL = 0x10
LOCAL_GET, LOCAL_SET, LOCAL_TEE = 0x20, 0x21, 0x22
I32_LOAD, I32_STORE = 0x28, 0x36
I32_CONST, I64_CONST = 0x41, 0x42
I32_EQZ, I32_NE = 0x45, 0x47
I32_ADD, I32_SUB, I32_MUL, I32_AND, I32_XOR, I32_SHL = 0x6A, 0x6B, 0x6C, 0x71, 0x73, 0x74
I32_ROTL = 0x77
I64_MUL, I64_SHR_U = 0x7E, 0x88
I32_WRAP_I64, I64_EXTEND_I32_U = 0xA7, 0xAD
VOID = 0x40

A, B, C, D, K = 0, 1, 2, 3, 4  # params a, b; locals c, d, k (loop counter)


def i32c(v):
    v &= 0xFFFFFFFF  # i32.const takes a signed 32-bit immediate
    return bytes([I32_CONST]) + sleb(v - (1 << 32) if v >= 1 << 31 else v)


def get(i):
    return bytes([LOCAL_GET, i])


def put(i):
    return bytes([LOCAL_SET, i])


def snippet(rng):
    """One ~30-byte slice of straight-line work plus a branch and memory."""
    s = rng.randrange(1, 31)
    k1 = rng.randrange(-(1 << 31), 1 << 31)
    k2 = rng.randrange(1, 1 << 20)
    kind = rng.randrange(4)
    code = get(C) + get(D) + i32c(s) + bytes([I32_SHL, I32_XOR]) + i32c(k1) + bytes([I32_ADD]) + put(C)
    if kind == 0:  # if/else on a data bit
        code += get(C) + i32c(1 << rng.randrange(8)) + bytes([I32_AND, IF, VOID])
        code += get(D) + get(C) + bytes([I32_ADD]) + put(D)
        code += bytes([ELSE]) + get(D) + i32c(k2) + bytes([I32_SUB]) + put(D) + bytes([END])
    elif kind == 1:  # store then load at data-dependent addresses
        code += get(D) + i32c(0xFFFC) + bytes([I32_AND]) + get(C) + bytes([I32_STORE, 2, 0])
        code += get(C) + get(C) + i32c(0xFFFC) + bytes([I32_AND, I32_LOAD, 2, 0, I32_ADD]) + put(C)
    elif kind == 2:  # 64-bit multiply-high style mixing
        code += get(C) + bytes([I64_EXTEND_I32_U, I64_CONST]) + sleb(k1 | 1)
        code += bytes([I64_MUL, I64_CONST]) + sleb(29) + bytes([I64_SHR_U, I32_WRAP_I64]) + get(D)
        code += bytes([I32_XOR]) + put(D)
    else:  # rotate and multiply
        code += get(D) + i32c(s) + bytes([I32_ROTL]) + i32c(k2 | 1) + bytes([I32_MUL]) + get(C) + bytes([I32_ADD]) + put(D)
    return code


def function_body(index, rng, snippets):
    locals_decl = vec([uleb(3) + bytes([I32])])  # c, d, k
    code = get(A) + i32c(0x9E3779B1) + bytes([I32_MUL]) + get(B) + bytes([I32_ADD]) + put(C)
    code += get(B) + get(A) + bytes([I32_XOR]) + put(D)
    code += i32c(3) + put(K)
    # A short counted loop around a few snippets.
    code += bytes([BLOCK, VOID, LOOP, VOID])
    for _ in range(3):
        code += snippet(rng)
    code += get(K) + i32c(1) + bytes([I32_SUB, LOCAL_TEE, K, BR_IF, 0, END, END])
    for _ in range(snippets):
        code += snippet(rng)
    # Conditional call to the previous function: about one call in eight.
    if index > 0:
        code += get(A) + i32c(7) + bytes([I32_AND, I32_EQZ, IF, I32])
        code += get(C) + get(D) + bytes([CALL]) + uleb(index - 1)
        code += bytes([ELSE]) + get(C) + get(D) + bytes([I32_XOR, END])
    else:
        code += get(C) + get(D) + bytes([I32_XOR])
    body = locals_decl + code + bytes([END])
    return uleb(len(body)) + body


def main_body(functions):
    code = b""
    for index in range(functions):
        code += get(0) + i32c(index) + bytes([CALL]) + uleb(index) + put(0)
    body = vec([]) + code + get(0) + bytes([END])
    return uleb(len(body)) + body


def module(functions, snippets=24):
    rng = random.Random(20240601)
    types = vec([
        bytes([0x60]) + vec([bytes([I32]), bytes([I32])]) + vec([bytes([I32])]),  # 0: (i32 i32) -> i32
        bytes([0x60]) + vec([bytes([I32])]) + vec([bytes([I32])]),  # 1: (i32) -> i32
    ])
    funcs = vec([uleb(0)] * functions + [uleb(1)])
    memory = vec([bytes([0x00]) + uleb(1)])
    exports = vec([vec([bytes([c]) for c in b"main"]) + bytes([0x00]) + uleb(functions)])
    code = vec([function_body(i, rng, snippets) for i in range(functions)] + [main_body(functions)])
    return (b"\0asm" + struct.pack("<I", 1) + section(1, types) + section(3, funcs)
            + section(5, memory) + section(7, exports) + section(10, code))


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    count = int(sys.argv[2]) if len(sys.argv) == 3 else 4000
    data = module(count)
    with open(sys.argv[1], "wb") as out:
        out.write(data)
    print(f"{sys.argv[1]}: {count} functions, {len(data)} bytes")
