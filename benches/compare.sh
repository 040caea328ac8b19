#!/usr/bin/env bash
# One command for the whole comparison: builds the real programs, the
# kernels natively, our release libiwasm.so, the wasmtime library and the
# harnesses, runs every case in REPS interleaved rounds and prints the table
# (benches/README.md says how to read it).
#
#   benches/compare.sh                      everything, 5 rounds
#   REPS=9 benches/compare.sh               more rounds
#   PROGRAMS="lua zlib" KERNELS="fib sort" benches/compare.sh   a subset
#
# Columns: ours (libiwasm.so: wasm_export.h for the programs, WAMR's
# wasm_c_api.h for the kernels and overheads), wasmtime (its C library from
# its PyPI wheel, through its own C API), native (clang/rustc
# -march=native, no auto-vectorisation: the fair limit for wasm without
# SIMD) and native-vec (-march=native, vectorised: the real limit).
#
# Environment:
#   REPS              rounds (default 5); every column runs every case once
#                     per round, after one untimed warm-up in the same process
#   PROGRAMS          real programs (default: all, see programs/build.sh);
#                     PROGRAMS=none for none
#   KERNELS           kernel names (default: all in kernels/); none for none
#   OVERHEAD=0        skip the compile/instantiate/call cases
#   IWASM_LIB         our libiwasm.so (default: target/release/libiwasm.so,
#                     built here with cargo)
#   CARGO_BUILD=0     do not run cargo for our library; use IWASM_LIB as it is
#   WASMTIME_VERSION  wasmtime wheel to fetch from PyPI (default 50.0.1)
#
# Exits non-zero if a runner fails or if the columns' check values disagree
# (a wrong result is never reported as a timing).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

REPS="${REPS:-5}"
KERNELS="${KERNELS:-$(kernel_names | tr '\n' ' ')}"
[[ "$KERNELS" == none ]] && KERNELS=""
PROGRAMS="${PROGRAMS:-lua sqlite zlib sieve memmove memmove_bulk regex markdown json deflate sha256 chacha20 png protobuf}"
[[ "$PROGRAMS" == none ]] && PROGRAMS=""
WASMTIME_VERSION="${WASMTIME_VERSION:-50.0.1}"
HARNESS_CFLAGS=(-O2 -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -I"$BENCH_DIR/harness")

mkdir -p "$BUILD_DIR/native" "$BUILD_DIR/results"
rm -f "$BUILD_DIR"/results/*.txt
log() { echo "== $*" >&2; }

# ---- inputs ----------------------------------------------------------------
log "native kernels: ${NATIVE_SCALAR_CFLAGS[*]} | ${NATIVE_VECTOR_CFLAGS[*]}"
for name in $KERNELS; do
  [[ -f "$KERNEL_DIR/$name.c" ]] || { echo "no kernel named $name" >&2; exit 2; }
  build_native_kernel "$name" "$BUILD_DIR/native/$name.scalar" scalar
  build_native_kernel "$name" "$BUILD_DIR/native/$name.vector" vector
done
if [[ "${OVERHEAD:-1}" != 0 ]]; then
  log "overhead modules"
  wat2wasm "$BENCH_DIR/harness/small.wat" -o "$BUILD_DIR/small.wasm"
  python3 "$BENCH_DIR/gen_large_module.py" "$BUILD_DIR/large.wasm" >&2
  python3 "$BENCH_DIR/gen_data_module.py" "$BUILD_DIR/data64.wasm" >&2
fi
if [[ -n "$PROGRAMS" ]]; then
  PROGRAMS="$PROGRAMS" "$BENCH_DIR/programs/build.sh"
fi

# ---- wasmtime ---------------------------------------------------------------
wasmtime_lib="$(fetch_wasmtime_lib)"
wt_link=(-L"$BUILD_DIR/wasmtime" -lwasmtime -Wl,-rpath,"$BUILD_DIR/wasmtime")
log "harnesses for wasmtime (the standard wasm.h ABI; its own C API for programs)"
"$CC" "${HARNESS_CFLAGS[@]}" -DABI_WASMC "$BENCH_DIR/harness/bench.c" "${wt_link[@]}" -o "$BUILD_DIR/bench-wasmtime"
"$CC" "${HARNESS_CFLAGS[@]}" -DABI_WASMTIME "$BENCH_DIR/harness/program.c" "${wt_link[@]}" -o "$BUILD_DIR/program-wasmtime"
"$CC" "${HARNESS_CFLAGS[@]}" "$BENCH_DIR/harness/native_run.c" -o "$BUILD_DIR/native_run"

# ---- ours -------------------------------------------------------------------
iwasm_lib="${IWASM_LIB:-$REPO_DIR/target/release/libiwasm.so}"
if [[ "${CARGO_BUILD:-1}" != 0 ]]; then
  log "cargo build --release -p cranewasm-capi"
  (cd "$REPO_DIR" && cargo build --release -p cranewasm-capi)
fi
[[ -f "$iwasm_lib" ]] || { echo "no $iwasm_lib (build it, or set IWASM_LIB)" >&2; exit 2; }
ours_link=(-I"$REPO_DIR/include" -L"$(dirname "$iwasm_lib")" -liwasm -Wl,-rpath,"$(dirname "$iwasm_lib")")
log "harnesses for ours ($iwasm_lib: WAMR's wasm_c_api.h, and wasm_export.h for programs)"
"$CC" "${HARNESS_CFLAGS[@]}" -DABI_WAMR "$BENCH_DIR/harness/bench.c" "${ours_link[@]}" -o "$BUILD_DIR/bench-ours"
"$CC" "${HARNESS_CFLAGS[@]}" -DABI_WAMR "$BENCH_DIR/harness/program.c" "${ours_link[@]}" -o "$BUILD_DIR/program-ours"

# ---- runs -------------------------------------------------------------------
# Each runner appends "RESULT <case> <value> <unit> <check>" lines to
# results/<column>.txt. A runner that fails (trap, crash, wrong result) is
# noted and the others still run: the script fails at the end.
failures=()
record() { # column command...
  local column="$1"; shift
  if ! "$@" | tee -a "$BUILD_DIR/results/$column.txt" | sed "s/^/   [$column] /" >&2; then
    failures+=("$column: $* (exit status ${PIPESTATUS[0]})")
  fi
}
# Columns take turns, one run each per round, so that load from other work
# on the machine drifts over all columns alike; the order of the columns
# alternates between rounds.
columns=(ours wasmtime native native-vec)
for round in $(seq "$REPS"); do
  log "round $round of $REPS"
  order=("${columns[@]}")
  (( round % 2 == 0 )) && order=(native-vec native wasmtime ours)
  for name in $PROGRAMS; do
    wasm="$BUILD_DIR/programs/$name.wasm"
    for col in "${order[@]}"; do
      case $col in
        ours) record ours "$BUILD_DIR/program-ours" "$name" "$wasm" 1 ;;
        wasmtime) record wasmtime "$BUILD_DIR/program-wasmtime" "$name" "$wasm" 1 ;;
        native) record native "$BUILD_DIR/native_run" "$name" 1 "$BUILD_DIR/programs/$name.scalar" ;;
        native-vec) record native-vec "$BUILD_DIR/native_run" "$name" 1 "$BUILD_DIR/programs/$name.vector" ;;
      esac
    done
  done
  for name in $KERNELS; do
    n="$(kernel_param "$name" BENCH_N)"
    for col in "${order[@]}"; do
      case $col in
        ours) record ours "$BUILD_DIR/bench-ours" kernel "$name" "$KERNEL_DIR/$name.wasm" "$n" 1 ;;
        wasmtime) record wasmtime "$BUILD_DIR/bench-wasmtime" kernel "$name" "$KERNEL_DIR/$name.wasm" "$n" 1 ;;
        native) record native "$BUILD_DIR/native/$name.scalar" "$n" 1 ;;
        native-vec) record native-vec "$BUILD_DIR/native/$name.vector" "$n" 1 ;;
      esac
    done
  done
  if [[ "${OVERHEAD:-1}" != 0 ]]; then
    modules=("$BUILD_DIR/small.wasm" "$BUILD_DIR/large.wasm" "$BUILD_DIR/data64.wasm")
    record wasmtime "$BUILD_DIR/bench-wasmtime" overhead "${modules[@]}" 1
    record ours "$BUILD_DIR/bench-ours" overhead "${modules[@]}" 1
    record wasmtime "$BUILD_DIR/bench-wasmtime" pooling "$BUILD_DIR/small.wasm" "$BUILD_DIR/data64.wasm" 1
    record ours "$BUILD_DIR/bench-ours" pooling "$BUILD_DIR/small.wasm" "$BUILD_DIR/data64.wasm" 1
  fi
done

# ---- table ------------------------------------------------------------------
for col in "${columns[@]}"; do touch "$BUILD_DIR/results/$col.txt"; done
echo
echo "$REPS interleaved rounds; each cell: the minimum (the spread, max/min, in parentheses)."
echo "Ratios > 1 mean ours is slower; a difference within the spread is no difference."
status=0
awk -f "$BENCH_DIR/table.awk" "$BUILD_DIR/results/ours.txt" "$BUILD_DIR/results/wasmtime.txt" \
  "$BUILD_DIR/results/native.txt" "$BUILD_DIR/results/native-vec.txt" || status=1
for failure in "${failures[@]}"; do
  echo "FAILED: $failure"
  status=1
done
exit "$status"
