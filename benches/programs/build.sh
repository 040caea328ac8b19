#!/usr/bin/env bash
# Builds the real programs of benches/compare.sh, each three times:
#   benches/build/programs/NAME.wasm     for wasm32-wasi (no SIMD)
#   benches/build/programs/NAME.scalar   natively, -march=native, no
#                                        auto-vectorisation: the fair limit
#                                        for wasm without SIMD
#   benches/build/programs/NAME.vector   natively, -march=native, vectorised
# Each prints one integer, its check value, which must agree in every build.
#
#   C, sources from crates.io packages (cargo vendor of c/Cargo.toml the
#   first time, kept in benches/build/, never committed):
#     lua      Lua 5.4 (the lua-src crate) running benches/lua/bench.lua
#     sqlite   SQLite's amalgamation (the libsqlite3-sys crate), c/sqlite.c
#     zlib     zlib (the libz-sys crate), c/zlib.c
#   C, written here (wasi-libc's memcpy/memmove, which are C, in the wasm build):
#     sieve    a byte-array sieve of Eratosthenes, c/sieve.c
#     memmove  memmove/memcpy of 1-64 bytes, unaligned and overlapping, c/memmove.c
#     memmove_bulk  the same with -mbulk-memory (as newer clang does by
#              default): the copies become memory.copy instructions
#   Rust, crates from crates.io (rust/, one binary each):
#     regex markdown json deflate sha256 chacha20 png protobuf
#
# C is built with clang -O2 -ffp-contract=off everywhere (so floating point
# agrees bit for bit with wasm, which has no fused multiply-add), Rust with
# cargo's release profile (rust/Cargo.toml). Needs clang, lld, wasi-libc and
# libclang-rt-dev-wasm32 (apt), python3, cargo with the
# wasm32-wasip1 target (installed here with rustup if missing).
# PROGRAMS="lua zlib" builds only those.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"

HERE="$BENCH_DIR/programs"
OUT="$BUILD_DIR/programs"
mkdir -p "$OUT"
RUST_PROGRAMS=(regex markdown json deflate sha256 chacha20 png protobuf)
C_PROGRAMS=(lua sqlite zlib sieve memmove memmove_bulk)
PROGRAMS="${PROGRAMS:-${C_PROGRAMS[*]} ${RUST_PROGRAMS[*]}}"
wanted() { [[ " $PROGRAMS " == *" $1 "* ]]; }
log() { echo "== $*" >&2; }

# Whether NAME's three builds are newer than FILES and this script.
up_to_date() {
  local name=$1 out f
  shift
  for out in "$OUT/$name.wasm" "$OUT/$name.scalar" "$OUT/$name.vector"; do
    [[ -f $out ]] || return 1
    for f in "$@" "${BASH_SOURCE[0]}" "$BENCH_DIR/common.sh"; do [[ $out -nt $f ]] || return 1; done
  done
}

# build_c NAME SOURCES... -- FLAGS...: the three builds of a C program
# (unless they are up to date).
build_c() {
  local name=$1 sources=() flags=()
  shift
  while [[ $1 != -- ]]; do sources+=("$1"); shift; done
  shift
  flags=("$@")
  if up_to_date "$name" "${sources[@]}" "$HERE/c/gen.h" "$BENCH_DIR/lua/config.h" "$BENCH_DIR/lua/bench.lua"; then
    log "$name (C): up to date"
    return
  fi
  log "$name (C): wasm, scalar, vector"
  # A 1 MiB stack, as native programs have megabytes (wasm-ld's default is 64 KiB).
  "$CLANG" --target=wasm32-wasi -O2 -ffp-contract=off -w -Wl,-z,stack-size=1048576 "${flags[@]}" "${sources[@]}" \
    -o "$OUT/$name.wasm"
  "$CLANG" "${NATIVE_SCALAR_CFLAGS[@]}" -w "${flags[@]}" "${sources[@]}" -o "$OUT/$name.scalar" -lm
  "$CLANG" "${NATIVE_VECTOR_CFLAGS[@]}" -w "${flags[@]}" "${sources[@]}" -o "$OUT/$name.vector" -lm
}

# ---- C sources from crates.io, through cargo vendor -------------------------
if wanted sqlite || wanted zlib || wanted lua; then
  vendor="$OUT/vendor"
  if [[ ! -f "$vendor/.done" ]]; then
    log "fetching the C sources (cargo vendor of c/Cargo.toml)"
    rm -rf "$vendor"
    cargo vendor --quiet --locked --versioned-dirs --manifest-path "$HERE/c/Cargo.toml" "$vendor" > /dev/null
    touch "$vendor/.done"
  fi
fi
if wanted sqlite; then
  s="$vendor/libsqlite3-sys-0.30.1/sqlite3"
  # The demo VFS (SQLITE_OS_OTHER), in-memory temporary data, no threads,
  # no extension loading; long double as double (wasm32's is software).
  build_c sqlite "$s/sqlite3.c" "$s/wasm32-wasi-vfs.c" "$HERE/c/sqlite.c" -- -I"$s" -I"$HERE/c" \
    -DSQLITE_OS_OTHER=1 -DSQLITE_THREADSAFE=0 -DSQLITE_TEMP_STORE=3 -DSQLITE_OMIT_LOAD_EXTENSION \
    -DSQLITE_OMIT_DEPRECATED -DSQLITE_DEFAULT_MEMSTATUS=0 -DLONGDOUBLE_TYPE=double
fi
if wanted zlib; then
  z="$vendor/libz-sys-1.1.31/src/zlib"
  zsrc=()
  for f in adler32 compress crc32 deflate inffast inflate inftrees trees uncompr zutil; do zsrc+=("$z/$f.c"); done
  build_c zlib "${zsrc[@]}" "$HERE/c/zlib.c" -- -I"$z" -I"$HERE/c" -DHAVE_UNISTD_H
fi

# ---- C programs of our own ------------------------------------------------------
for name in sieve memmove; do
  wanted "$name" && build_c "$name" "$HERE/c/$name.c" -- -I"$HERE/c"
done
# (-mbulk-memory is ignored by the native builds' x86 target: clang only
# warns, and -w silences that.)
wanted memmove_bulk && build_c memmove_bulk "$HERE/c/memmove.c" -- -I"$HERE/c" -mbulk-memory

# ---- Lua 5.4, from the lua-src crate ------------------------------------------
if wanted lua; then
  src="$vendor/lua-src-551.1.0/lua-5.4.9"
  # bench.lua as a C string, so the program needs no file system.
  mkdir -p "$OUT/lua-gen"
  python3 - "$BENCH_DIR/lua/bench.lua" "$OUT/lua-gen/script.h" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
body = ",".join(str(b) for b in data + b"\0")
open(sys.argv[2], "w").write(f"static const char BENCH_SCRIPT[] = {{{body}}};\n")
PY
  lsrc=()
  for f in lapi lcode lctype ldebug ldo ldump lfunc lgc llex lmem lobject lopcodes lparser lstate lstring ltable ltm \
           lundump lvm lzio lauxlib lbaselib lcorolib lmathlib lstrlib ltablib lutf8lib; do
    lsrc+=("$src/$f.c")
  done
  # lua/config.h is forced into both builds (no setjmp in wasi-libc, fixed
  # seeds); the wasm build's shim header stands in for <setjmp.h>.
  build_c lua "${lsrc[@]}" "$BENCH_DIR/lua/driver.c" -- -include "$BENCH_DIR/lua/config.h" -I"$src" \
    -I"$OUT/lua-gen" -I"$BENCH_DIR/lua/wasm-shim"
fi

# ---- Rust programs -------------------------------------------------------------
rust_wanted=()
for p in "${RUST_PROGRAMS[@]}"; do wanted "$p" && rust_wanted+=("$p"); done
if [[ ${#rust_wanted[@]} -gt 0 ]]; then
  rustup target list --installed 2>/dev/null | grep -qx wasm32-wasip1 || rustup target add wasm32-wasip1
  bins=()
  for p in "${rust_wanted[@]}"; do bins+=(--bin "$p"); done
  manifest=(--manifest-path "$HERE/rust/Cargo.toml" --locked --release --quiet)
  log "Rust programs (${rust_wanted[*]}): wasm32-wasip1"
  cargo build "${manifest[@]}" --target wasm32-wasip1 --target-dir "$OUT/rust-wasm" "${bins[@]}"
  # Scalar: no loop or SLP vectorisation, and the crates' portable code
  # where they would pick SIMD at run time (sha2, chacha20); vectorised:
  # all of it. (png's crc32fast still picks PCLMULQDQ at run time in both.)
  log "Rust programs: native, scalar and vectorised"
  RUSTFLAGS="-C target-cpu=native -C no-vectorize-loops -C no-vectorize-slp --cfg chacha20_force_soft" \
    cargo build "${manifest[@]}" --target-dir "$OUT/rust-scalar" --features soft "${bins[@]}"
  RUSTFLAGS="-C target-cpu=native" cargo build "${manifest[@]}" --target-dir "$OUT/rust-vector" "${bins[@]}"
  for p in "${rust_wanted[@]}"; do
    cp "$OUT/rust-wasm/wasm32-wasip1/release/$p.wasm" "$OUT/$p.wasm"
    cp "$OUT/rust-scalar/release/$p" "$OUT/$p.scalar"
    cp "$OUT/rust-vector/release/$p" "$OUT/$p.vector"
  done
fi
