#!/usr/bin/env bash
# The cost of 64-bit memories (memory64): the compute kernels built with
# clang --target=wasm64, run by us and by wasmtime, next to the same
# kernels as wasm32 (the checked-in kernels/*.wasm) run by both, in REPS
# interleaved rounds (benches/README.md says how to read the table).
#
#   benches/wasm64.sh                 every kernel but simd, 5 rounds
#   REPS=9 KERNELS="sort hash" benches/wasm64.sh
#
# Columns: ours64, wasmtime64, ours32, wasmtime32; ratios ours64 over each
# of the others. The kernels' checksums must agree across all four columns
# (wasm64 and wasm32 builds of one C source compute the same thing).
#
# Environment: REPS, KERNELS, IWASM_LIB, CARGO_BUILD=0, WASMTIME_VERSION as
# for compare.sh. simd.c is left out by default: clang 14 (Debian 12's)
# fails on it for wasm64 ("Cannot select: extract_vector_elt" with an i64
# lane index), a compiler bug, not a runtime limit.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

REPS="${REPS:-5}"
KERNELS="${KERNELS:-$(kernel_names | grep -vx simd | tr '\n' ' ')}"
WASMTIME_VERSION="${WASMTIME_VERSION:-50.0.1}"
HARNESS_CFLAGS=(-O2 -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -I"$BENCH_DIR/harness")
out="$BUILD_DIR/wasm64"
mkdir -p "$out/kernels" "$out/results"
rm -f "$out"/results/*.txt
log() { echo "== $*" >&2; }

# ---- inputs: the kernels as wasm64, with the flags of the wasm32 build -------
log "kernels for wasm64: ${WASM_CFLAGS[*]/wasm32/wasm64}"
for name in $KERNELS; do
  [[ -f "$KERNEL_DIR/$name.c" ]] || { echo "no kernel named $name" >&2; exit 2; }
  read -r -a extra <<< "$(sed -n 's|^// wasm-cflags: ||p' "$KERNEL_DIR/$name.c")"
  "$CLANG" "${WASM_CFLAGS[@]/--target=wasm32/--target=wasm64}" "${extra[@]}" \
    -o "$out/kernels/$name.wasm" "$KERNEL_DIR/$name.c"
done

# ---- runners: the harness of compare.sh, on each library ---------------------
fetch_wasmtime_lib > /dev/null
wt_link=(-L"$BUILD_DIR/wasmtime" -lwasmtime -Wl,-rpath,"$BUILD_DIR/wasmtime")
"$CC" "${HARNESS_CFLAGS[@]}" -DABI_WASMC "$BENCH_DIR/harness/bench.c" "${wt_link[@]}" -o "$out/bench-wasmtime"
iwasm_lib="${IWASM_LIB:-$REPO_DIR/target/release/libiwasm.so}"
if [[ "${CARGO_BUILD:-1}" != 0 ]]; then
  log "cargo build --release -p cranewasm-capi"
  (cd "$REPO_DIR" && cargo build --release -p cranewasm-capi)
fi
[[ -f "$iwasm_lib" ]] || { echo "no $iwasm_lib (build it, or set IWASM_LIB)" >&2; exit 2; }
ours_link=(-I"$REPO_DIR/include" -L"$(dirname "$iwasm_lib")" -liwasm -Wl,-rpath,"$(dirname "$iwasm_lib")")
"$CC" "${HARNESS_CFLAGS[@]}" -DABI_WAMR "$BENCH_DIR/harness/bench.c" "${ours_link[@]}" -o "$out/bench-ours"

# ---- runs ------------------------------------------------------------------------
failures=()
record() { # column command...
  local column="$1"; shift
  if ! "$@" | tee -a "$out/results/$column.txt" | sed "s/^/   [$column] /" >&2; then
    failures+=("$column: $* (exit status ${PIPESTATUS[0]})")
  fi
}
columns=(ours64 wasmtime64 ours32 wasmtime32)
for round in $(seq "$REPS"); do
  log "round $round of $REPS"
  order=("${columns[@]}")
  (( round % 2 == 0 )) && order=(wasmtime32 ours32 wasmtime64 ours64)
  for name in $KERNELS; do
    n="$(kernel_param "$name" BENCH_N)"
    for col in "${order[@]}"; do
      case $col in
        ours64) record ours64 "$out/bench-ours" kernel "$name" "$out/kernels/$name.wasm" "$n" 1 ;;
        wasmtime64) record wasmtime64 "$out/bench-wasmtime" kernel "$name" "$out/kernels/$name.wasm" "$n" 1 ;;
        ours32) record ours32 "$out/bench-ours" kernel "$name" "$KERNEL_DIR/$name.wasm" "$n" 1 ;;
        wasmtime32) record wasmtime32 "$out/bench-wasmtime" kernel "$name" "$KERNEL_DIR/$name.wasm" "$n" 1 ;;
      esac
    done
  done
done

# ---- table ---------------------------------------------------------------------
for col in "${columns[@]}"; do touch "$out/results/$col.txt"; done
echo
echo "$REPS interleaved rounds; each cell: the minimum (the spread, max/min, in parentheses)."
echo "Ratios > 1 mean ours64 is slower; a difference within the spread is no difference."
status=0
files=()
for col in "${columns[@]}"; do files+=("$out/results/$col.txt"); done
awk -v cols="${columns[*]}" -f "$BENCH_DIR/table.awk" "${files[@]}" || status=1
for failure in "${failures[@]}"; do
  echo "FAILED: $failure"
  status=1
done
exit "$status"
