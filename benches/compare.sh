#!/usr/bin/env bash
# One command for the whole comparison: builds the native kernels, our
# release libiwasm.so, the wasmtime library and the harness (once per ABI),
# runs every case REPS times and prints the table of medians.
#
#   benches/compare.sh                 everything, 5 repetitions
#   REPS=9 benches/compare.sh          more repetitions
#   KERNELS="fib sort" benches/compare.sh   only these kernels (overheads still run)
#
# Environment:
#   REPS              repetitions per case; the median is reported (default 5)
#   KERNELS           space-separated kernel names (default: all in kernels/)
#   OVERHEAD=0        skip the compile/instantiate/call cases
#   PROGRAM=0         skip the real program (Lua 5.4 running benches/lua/bench.lua)
#   IWASM_LIB         our libiwasm.so (default: target/release/libiwasm.so,
#                     built here with cargo when the capi crate exists)
#   CARGO_BUILD=0     do not run cargo; use IWASM_LIB as it is
#   WAMR_HEADER_DIR   directory holding wasm_c_api.h (default: include/ in the
#                     repository, else /work/shared/reference)
#   WASMTIME_VERSION  wasmtime wheel to fetch from PyPI (default 50.0.1)
#
# Exits non-zero if a runner fails or if the runtimes' check values disagree
# (a wrong result is never reported as a timing).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

REPS="${REPS:-5}"
KERNELS="${KERNELS:-$(kernel_names | tr '\n' ' ')}"
WASMTIME_VERSION="${WASMTIME_VERSION:-50.0.1}"
HARNESS_CFLAGS=(-O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -I"$BENCH_DIR/harness")

mkdir -p "$BUILD_DIR/native" "$BUILD_DIR/results"
rm -f "$BUILD_DIR"/results/*.txt
log() { echo "== $*" >&2; }

# ---- inputs ----------------------------------------------------------------
log "native kernels (${NATIVE_CFLAGS[*]})"
for name in $KERNELS; do
  [[ -f "$KERNEL_DIR/$name.c" ]] || { echo "no kernel named $name" >&2; exit 2; }
  build_native_kernel "$name" "$BUILD_DIR/native/$name"
done

if [[ "${OVERHEAD:-1}" != 0 ]]; then
  log "overhead modules"
  wat2wasm "$BENCH_DIR/harness/small.wat" -o "$BUILD_DIR/small.wasm"
  python3 "$BENCH_DIR/gen_large_module.py" "$BUILD_DIR/large.wasm" >&2
  python3 "$BENCH_DIR/gen_data_module.py" "$BUILD_DIR/data64.wasm" >&2
fi
if [[ "${PROGRAM:-1}" != 0 ]]; then
  log "the real program: Lua 5.4 for wasm32-wasi and natively"
  "$BENCH_DIR/lua/build.sh"
fi

# ---- wasmtime ---------------------------------------------------------------
wasmtime_lib="$BUILD_DIR/wasmtime/libwasmtime.so"
# The real program runs in wasmtime through its Python package (the same C
# library, with its WASI), installed from the same wheel into build/.
wasmtime_py="$BUILD_DIR/wasmtime-py"
if [[ ! -f "$wasmtime_lib" || ! -d "$wasmtime_py/wasmtime" ]]; then
  log "fetching the wasmtime $WASMTIME_VERSION wheel"
  rm -rf "$BUILD_DIR/wasmtime-wheel"
  python3 -m pip download --quiet --no-deps --only-binary=:all: \
    -d "$BUILD_DIR/wasmtime-wheel" "wasmtime==$WASMTIME_VERSION"
  python3 -m pip install --quiet --no-deps --upgrade --target "$wasmtime_py" "$BUILD_DIR"/wasmtime-wheel/wasmtime-*.whl
  mkdir -p "$BUILD_DIR/wasmtime"
  # The wheel is a zip holding wasmtime/<platform>/_libwasmtime.so.
  python3 - "$BUILD_DIR/wasmtime-wheel" "$wasmtime_lib" <<'EOF'
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
log "harness for wasmtime (standard wasm.h ABI)"
"$CC" "${HARNESS_CFLAGS[@]}" -DABI_WASMC "$BENCH_DIR/harness/bench.c" \
  -L"$BUILD_DIR/wasmtime" -lwasmtime -Wl,-rpath,"$BUILD_DIR/wasmtime" -o "$BUILD_DIR/bench-wasmtime"

# ---- ours -------------------------------------------------------------------
iwasm_lib="${IWASM_LIB:-$REPO_DIR/target/release/libiwasm.so}"
if [[ -z "${WAMR_HEADER_DIR:-}" ]]; then
  if [[ -f "$REPO_DIR/include/wasm_c_api.h" ]]; then WAMR_HEADER_DIR="$REPO_DIR/include"
  else WAMR_HEADER_DIR=/work/shared/reference; fi
fi
if [[ "${CARGO_BUILD:-1}" != 0 && -f "$REPO_DIR/capi/Cargo.toml" ]]; then
  log "cargo build --release -p cranewasm-capi"
  (cd "$REPO_DIR" && cargo build --release -p cranewasm-capi)
fi
# Our real-program runner is a Rust bench target (the C API has no WASI).
ours_program=""
if [[ "${PROGRAM:-1}" != 0 && "${CARGO_BUILD:-1}" != 0 ]]; then
  log "cargo bench --bench program --no-run"
  ours_program="$(cd "$REPO_DIR" && cargo bench --bench program --no-run --message-format=json |
    python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "program" and m.get("executable"):
        print(m["executable"])')"
fi
ours=""
if [[ ! -f "$iwasm_lib" ]]; then
  ours_missing="$iwasm_lib does not exist"
elif ! nm -D --defined-only "$iwasm_lib" | grep ' wasm_func_call$' > /dev/null; then
  ours_missing="$iwasm_lib does not export the C API yet (no wasm_func_call)"
elif [[ ! -f "$WAMR_HEADER_DIR/wasm_c_api.h" ]]; then
  ours_missing="no wasm_c_api.h in $WAMR_HEADER_DIR (set WAMR_HEADER_DIR)"
else
  log "harness for ours (WAMR wasm_c_api.h ABI, $iwasm_lib)"
  "$CC" "${HARNESS_CFLAGS[@]}" -DABI_WAMR -I"$WAMR_HEADER_DIR" "$BENCH_DIR/harness/bench.c" \
    -L"$(dirname "$iwasm_lib")" -liwasm -Wl,-rpath,"$(dirname "$iwasm_lib")" -o "$BUILD_DIR/bench-ours"
  ours="$BUILD_DIR/bench-ours"
fi
if [[ -z "$ours" ]]; then
  # The harness must still compile against the WAMR ABI, ready for the library.
  "$CC" "${HARNESS_CFLAGS[@]}" -DABI_WAMR -I"$WAMR_HEADER_DIR" -c "$BENCH_DIR/harness/bench.c" \
    -o "$BUILD_DIR/bench-ours.o"
  echo "NOTE: our column is EMPTY: $ours_missing." >&2
fi

# ---- runs -------------------------------------------------------------------
# Each runner appends "RESULT <case> <value> <unit> <check>" lines to
# results/<column>.txt. A runner that fails (trap, crash, wrong result) is
# noted and the others still run: its cases show "-" and the script fails.
failures=()
record() { # column command...
  local column="$1"; shift
  if ! "$@" | tee -a "$BUILD_DIR/results/$column.txt" | sed "s/^/   [$column] /" >&2; then
    failures+=("$column: $* (exit status ${PIPESTATUS[0]})")
  fi
}
# Columns take turns, one run each per round, so that load from other work
# on the machine drifts over all columns alike; each runner warms up once
# before its timed run. table.awk takes the median over the rounds.
for round in $(seq "$REPS"); do
  log "round $round of $REPS"
  for name in $KERNELS; do
    n="$(kernel_param "$name" BENCH_N)"
    record native "$BUILD_DIR/native/$name" "$n" 1
    record wasmtime "$BUILD_DIR/bench-wasmtime" kernel "$name" "$KERNEL_DIR/$name.wasm" "$n" 1
    [[ -z "$ours" ]] || record ours "$ours" kernel "$name" "$KERNEL_DIR/$name.wasm" "$n" 1
  done
  if [[ "${OVERHEAD:-1}" != 0 ]]; then
    record wasmtime "$BUILD_DIR/bench-wasmtime" overhead "$BUILD_DIR/small.wasm" "$BUILD_DIR/large.wasm" "$BUILD_DIR/data64.wasm" 1
    [[ -z "$ours" ]] || record ours "$ours" overhead "$BUILD_DIR/small.wasm" "$BUILD_DIR/large.wasm" "$BUILD_DIR/data64.wasm" 1
  fi
  if [[ "${PROGRAM:-1}" != 0 ]]; then
    record native "$BUILD_DIR/lua/lua-native" 1
    record wasmtime env PYTHONPATH="$wasmtime_py" python3 "$BENCH_DIR/program_wasmtime.py" lua "$BUILD_DIR/lua/lua.wasm" 1
    [[ -z "$ours_program" ]] || record ours "$ours_program" lua "$BUILD_DIR/lua/lua.wasm" 1
  fi
done

# ---- table ------------------------------------------------------------------
touch "$BUILD_DIR/results/ours.txt"
echo
[[ -n "$ours" ]] || echo "NOTE: ours = '-': $ours_missing."
echo "Median of $REPS runs; lower is better; ratios > 1 mean ours is slower."
status=0
awk -f "$BENCH_DIR/table.awk" \
  "$BUILD_DIR/results/ours.txt" "$BUILD_DIR/results/wasmtime.txt" "$BUILD_DIR/results/native.txt" || status=1
for failure in "${failures[@]}"; do
  echo "FAILED: $failure"
  status=1
done
exit "$status"
