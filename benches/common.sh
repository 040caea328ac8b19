# Build settings shared by build-kernels.sh and compare.sh (sourced, not run).

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(dirname "$BENCH_DIR")"
KERNEL_DIR="$BENCH_DIR/kernels"
BUILD_DIR="$BENCH_DIR/build"

CLANG="${CLANG:-clang}"
CC="${CC:-cc}"

# Kernels as wasm: no libc at all, bulk-memory so memcpy/memset/memmove become
# memory.copy/memory.fill, no FP contraction so results match native bit for bit.
WASM_CFLAGS=(--target=wasm32 -O2 -nostdlib -mbulk-memory -ffp-contract=off
             -Wl,--no-entry -Wl,--export=run)

# Native builds, for the host's own instruction set (-march=native: the JITs
# use its SSE4.1/AVX too), in two columns:
#  - scalar: auto-vectorisation off, the fair limit for wasm without SIMD;
#  - vector: vectorised, the real limit.
# No FP contraction, so results agree with wasm (no fused multiply-add) bit
# for bit. -fno-math-errno lets sqrt be one instruction, as f64.sqrt is in
# wasm.
NATIVE_SCALAR_CFLAGS=(-O2 -march=native -fno-vectorize -fno-slp-vectorize -ffp-contract=off -fno-math-errno)
NATIVE_VECTOR_CFLAGS=(-O2 -march=native -ffp-contract=off -fno-math-errno)

# Kernel names, from the sources.
kernel_names() {
  local f
  for f in "$KERNEL_DIR"/*.c; do basename "$f" .c; done
}

# kernel_param NAME BENCH_N|TEST_N: a size declared in the kernel's source.
kernel_param() {
  sed -n "s/^#define $2 \\([0-9][0-9]*\\).*/\\1/p" "$KERNEL_DIR/$1.c"
}

# build_native_kernel NAME OUT scalar|vector: the kernel linked into the
# native driver.
build_native_kernel() {
  local flags=("${NATIVE_SCALAR_CFLAGS[@]}")
  [[ $3 == vector ]] && flags=("${NATIVE_VECTOR_CFLAGS[@]}")
  "$CLANG" "${flags[@]}" -DKERNEL_NAME="\"$1\"" -I"$KERNEL_DIR" \
    "$KERNEL_DIR/$1.c" "$BENCH_DIR/harness/native_main.c" -o "$2" -lm
}

# fetch_wasmtime_lib: prints the path of wasmtime's C library, taken out of
# its PyPI wheel (WASMTIME_VERSION) the first time.
fetch_wasmtime_lib() {
  local lib="$BUILD_DIR/wasmtime/libwasmtime.so"
  if [[ ! -f "$lib" ]]; then
    echo "== fetching the wasmtime $WASMTIME_VERSION wheel" >&2
    rm -rf "$BUILD_DIR/wasmtime-wheel"
    python3 -m pip download --quiet --no-deps --only-binary=:all: \
      -d "$BUILD_DIR/wasmtime-wheel" "wasmtime==$WASMTIME_VERSION" >&2
    mkdir -p "$BUILD_DIR/wasmtime"
    # The wheel is a zip holding wasmtime/<platform>/_libwasmtime.so.
    python3 - "$BUILD_DIR/wasmtime-wheel" "$lib" <<'EOF'
import glob, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/wasmtime-*.whl")[0]
with zipfile.ZipFile(wheel) as z:
    lib = [n for n in z.namelist() if n.endswith("/_libwasmtime.so")]
    if not lib:
        sys.exit(f"{wheel}: no _libwasmtime.so for this platform")
    with open(sys.argv[2], "wb") as out:
        out.write(z.read(lib[0]))
EOF
  fi
  echo "$lib"
}
