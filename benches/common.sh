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

# Kernels natively: the same optimiser with auto-vectorisation off, since the
# wasm builds use no SIMD either. -fno-math-errno lets sqrt be one instruction,
# as f64.sqrt is in wasm.
NATIVE_CFLAGS=(-O2 -fno-vectorize -fno-slp-vectorize -ffp-contract=off -fno-math-errno)

# Kernel names, from the sources.
kernel_names() {
  local f
  for f in "$KERNEL_DIR"/*.c; do basename "$f" .c; done
}

# kernel_param NAME BENCH_N|TEST_N: a size declared in the kernel's source.
kernel_param() {
  sed -n "s/^#define $2 \\([0-9][0-9]*\\).*/\\1/p" "$KERNEL_DIR/$1.c"
}

# build_native_kernel NAME OUT: the kernel linked into the native driver.
build_native_kernel() {
  "$CLANG" "${NATIVE_CFLAGS[@]}" -DKERNEL_NAME="\"$1\"" -I"$KERNEL_DIR" \
    "$KERNEL_DIR/$1.c" "$BENCH_DIR/harness/native_main.c" -o "$2" -lm
}
