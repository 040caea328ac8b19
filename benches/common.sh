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
