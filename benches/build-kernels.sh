#!/usr/bin/env bash
# Rebuilds the checked-in kernels/*.wasm from kernels/*.c and records, in
# kernels/expected.txt, each kernel's native checksum at its test size.
# Needs clang with the wasm32 target and wasm-ld; wabt's wasm-objdump, when
# present, is used to check that no kernel imports anything.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

tmp="$BUILD_DIR/native-test"
mkdir -p "$tmp"
expected="$KERNEL_DIR/expected.txt"
{
  echo "# Written by benches/build-kernels.sh; do not edit."
  echo "# kernel test_n native_checksum(test_n) bench_n"
} > "$expected.new"

for name in $(kernel_names); do
  test_n="$(kernel_param "$name" TEST_N)"
  bench_n="$(kernel_param "$name" BENCH_N)"
  if [[ -z "$test_n" || -z "$bench_n" ]]; then
    echo "$name.c: needs '#define TEST_N <n>' and '#define BENCH_N <n>'" >&2
    exit 1
  fi
  # A kernel may ask for more wasm flags (the SIMD one: -msimd128).
  read -r -a extra <<< "$(sed -n 's|^// wasm-cflags: ||p' "$KERNEL_DIR/$name.c")"
  "$CLANG" "${WASM_CFLAGS[@]}" "${extra[@]}" -o "$KERNEL_DIR/$name.wasm" "$KERNEL_DIR/$name.c"
  if command -v wasm-objdump > /dev/null; then
    if wasm-objdump -x -j Import "$KERNEL_DIR/$name.wasm" 2> /dev/null | grep ' <- ' > /dev/null; then
      echo "$name.wasm imports something; kernels must be self-contained" >&2
      exit 1
    fi
  fi
  build_native_kernel "$name" "$tmp/$name" scalar
  # RESULT <case> <ms> ms <checksum>
  check="$("$tmp/$name" "$test_n" 1 | awk '$1 == "RESULT" { print $5 }')"
  echo "$name $test_n $check $bench_n" >> "$expected.new"
  printf '%-10s test_n=%-8s checksum=%-22s bench_n=%s\n' "$name" "$test_n" "$check" "$bench_n"
done
mv "$expected.new" "$expected"
