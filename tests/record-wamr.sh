#!/usr/bin/env bash
# Re-records the WAMR-behaviour oracles from a WAMR build you provide:
#
#   tests/record-wamr.sh WAMR_BUILD_DIR
#
# WAMR_BUILD_DIR is a build of WAMR 2.4.3's product-mini/platforms/linux
# holding libiwasm.so and iwasm, made with
#
#   cmake .. -DBUILD_SHARED_LIBS=ON -DWAMR_BUILD_LIB_PTHREAD=1 \
#            -DWAMR_BUILD_LIB_PTHREAD_SEMAPHORE=1 -DWAMR_BUILD_SIMD=0
#   make
#
# (lib-pthread with semaphores for the multi-thread sample, as its own
# CMakeLists.txt has it; the fast interpreter's SIMD off because it fetches
# a library from outside the registries at configure time). The headers are
# read from the source tree the build came from (its CMakeCache.txt), or
# from WAMR_INCLUDE.
#
# Two kinds of oracle are checked against it:
#
# 1. tests/wamr-samples/expected/*.txt, the output of WAMR's samples. Each
#    says on its first line whether it was recorded from WAMR or written
#    from the sample's source. The samples run on WAMR's library and iwasm
#    (tests/wamr-samples.sh with SAMPLES_LIB), WAMR's log lines removed;
#    a recorded file is rewritten with WAMR's output (its origin line
#    kept: review the diff), and for a written one this script says
#    whether WAMR agrees. A sample that exits otherwise than the test
#    expects fails the script.
# 2. tests/c/wamr_*.c, which assert WAMR's wasm_c_api.h behaviour: every
#    check outside their SAFE_ONLY / NOT_FOLLOWED / KEPT sections is
#    recorded from WAMR (it ran and held against WAMR's library) and must
#    hold again; those sections assert our own behaviour where WAMR crashes
#    or differs on purpose, written from WAMR's source, and are skipped
#    against WAMR (each says so). Run with CAPI_TEST_AGAINST_WAMR=1.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${1:?usage: tests/record-wamr.sh WAMR_BUILD_DIR}
build=$(cd "$build" && pwd)
for f in libiwasm.so iwasm; do
    [ -e "$build/$f" ] || { echo "no $f in $build (see the comment at the top of this script)" >&2; exit 2; }
done
if [ -z "${WAMR_INCLUDE:-}" ]; then
    src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
    WAMR_INCLUDE=$src/../../../core/iwasm/include
fi
[ -f "$WAMR_INCLUDE/wasm_export.h" ] || { echo "no WAMR headers in $WAMR_INCLUDE (set WAMR_INCLUDE)" >&2; exit 2; }
WAMR_INCLUDE=$(cd "$WAMR_INCLUDE" && pwd)

# --- 1. the samples' expected output ---------------------------------------------
expected=$root/tests/wamr-samples/expected
outputs=$(mktemp -d)
trap 'rm -rf "$outputs"' EXIT
echo "== WAMR's samples on $build"
SAMPLES_LIB=$build SAMPLES_INCLUDE=$WAMR_INCLUDE SAMPLES_RECORD=$outputs tests/wamr-samples.sh
for file in "$expected"/*.txt; do
    base=$(basename "$file")
    origin=$(grep -m1 '^## origin: ' "$file" || true)
    got=$outputs/$base
    [ -f "$got" ] || { echo "  $base: no sample wrote it" >&2; exit 1; }
    if { grep -v '^## origin: ' "$file" || true; } | cmp -s - "$got"; then same=1; else same=0; fi
    case $origin in
        "## origin: recorded-from-WAMR "*)
            if [ "$same" = 1 ]; then
                echo "  $base: recorded, unchanged"
            else
                { echo "$origin"; cat "$got"; } > "$file"
                echo "  $base: recorded, REWRITTEN with WAMR's output (review: git diff $file)"
            fi ;;
        "## origin: written-from-source "*)
            if [ "$same" = 1 ]; then
                echo "  $base: written from source; WAMR agrees (it may be marked recorded-from-WAMR)"
            else
                echo "  $base: written from source; WAMR DIFFERS:"
                grep -v '^## origin: ' "$file" | diff - "$got" | sed 's/^/    /' || true
            fi ;;
        *) echo "  $base: no origin line" >&2; exit 1 ;;
    esac
done

# --- 2. the wamr_*.c checks -------------------------------------------------------
echo "== tests/c/wamr_*.c against $build/libiwasm.so"
tests=()
for t in tests/c/wamr_*.c; do tests+=("$(basename "$t" .c)"); done
CAPI_TEST_AGAINST_WAMR=1 VALGRIND=0 tests/c/run.sh "$WAMR_INCLUDE" "$build" "${tests[@]}"
echo "record-wamr: done; the recorded oracles agree with $build"
