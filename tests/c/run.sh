#!/usr/bin/env bash
# Build and run the C API test programs against a given header and library.
#
#   tests/c/run.sh INCLUDE_DIR LIBDIR [TEST...]
#
# INCLUDE_DIR holds wasm_c_api.h, LIBDIR holds libiwasm.so. Every tests/c/*.c
# (or only the named TESTs) is compiled against them, every tests/c/wat/*.wat
# is compiled with wat2wasm, and each program runs twice: plainly, then under
# valgrind (definite leaks and memory errors fail the test). The example
# examples/c/hello.c and natives.c are built the way the README shows and run
# as well.
#
# Environment:
#   CC            C compiler (default: cc)
#   RUNNER        command that runs the built programs (default: none; for
#                 a cross build, e.g. "qemu-aarch64 -L /usr/aarch64-linux-gnu",
#                 as tests/aarch64.sh sets it; needs VALGRIND=0)
#   VALGRIND=0    skip the valgrind pass (announced in the summary; the
#                 default is to run it, and a missing valgrind is an error)
#   PASSES=plain  the plain pass only, for a repeat run whose valgrind pass
#                 was run by the caller already (tests/run-all.sh's
#                 CRANEWASM_LAZY=1 run); the summary says so
#   EXCLUDE       tests left out of a run of all (space-separated names;
#                 the summary lists them)
#   CAPI_TEST_BUILD  build folder to use (default: a fresh temporary folder)
# Exit status: 0 when every build and every run passed, 1 otherwise.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
usage="usage: $0 INCLUDE_DIR LIBDIR [TEST...]"
inc=${1:?$usage}
libdir=${2:?$usage}
shift 2
cc=${CC:-cc}
read -r -a runner <<< "${RUNNER:-}"
use_valgrind=${VALGRIND:-1}
plain_only=0
if [ "${PASSES:-all}" = plain ]; then plain_only=1; use_valgrind=0; fi

die() { echo "run.sh: $*" >&2; exit 2; }
[ -f "$inc/wasm_c_api.h" ] || die "no wasm_c_api.h in $inc"
[ -f "$libdir/libiwasm.so" ] || die "no libiwasm.so in $libdir"
inc=$(cd "$inc" && pwd)
libdir=$(cd "$libdir" && pwd)
command -v wat2wasm >/dev/null || die "wat2wasm not found (apt install wabt)"
command -v "$cc" >/dev/null || die "C compiler '$cc' not found"
if [ -n "${RUNNER:-}" ] && [ "$use_valgrind" != 0 ]; then
    die "RUNNER is set: valgrind cannot run the programs, set VALGRIND=0"
fi
if [ "$use_valgrind" != 0 ]; then
    command -v valgrind >/dev/null ||
        die "valgrind not found (install it, or set VALGRIND=0 to skip that pass)"
fi

if [ -n "${CAPI_TEST_BUILD:-}" ]; then
    build=$CAPI_TEST_BUILD
    mkdir -p "$build"
else
    build=$(mktemp -d)
    trap 'rm -rf "$build"' EXIT
fi
mkdir -p "$build/wasm" "$build/bin" "$build/log"

for wat in "$here"/wat/*.wat; do
    name=$(basename "$wat" .wat)
    wat2wasm --enable-threads --enable-memory64 "$wat" -o "$build/wasm/$name.wasm" ||
        die "wat2wasm failed on $wat"
done

if [ $# -gt 0 ]; then
    tests=("$@")
else
    tests=()
    for src in "$here"/*.c; do
        name=$(basename "$src" .c)
        [[ " ${EXCLUDE:-} " == *" $name "* ]] || tests+=("$name")
    done
fi

cflags=(-std=gnu11 -g -O1 -Wall -Wextra -Wno-unused-function
        -Wno-unused-parameter -I "$inc" -I "$here")
# --no-as-needed: symbols.c and null_args.c reference the API only weakly (to
# name what is missing rather than fail to link), which --as-needed, the
# default on Debian, would take as a reason to drop the library.
ldflags=(-L "$libdir" -Wl,--no-as-needed -liwasm -Wl,--as-needed
         -Wl,-rpath,"$libdir" -lpthread)
# No suppressions: under valgrind the library checks memory bounds
# explicitly (README, "Under valgrind"), so an out-of-bounds access traps
# before it touches a guard page and every report is an error.
vg=(valgrind -q --main-stacksize=67108864 --smc-check=all-non-file --leak-check=full --errors-for-leak-kinds=definite
    --error-exitcode=1)

passed=()
failed=()

# run LABEL TIMEOUT COMMAND...: runs one program, logs its output, records it.
run() {
    local label=$1 limit=$2
    shift 2
    local log="$build/log/${label//[^A-Za-z0-9_.-]/_}.log"
    if timeout "$limit" "$@" >"$log" 2>&1; then
        passed+=("$label")
        echo "ok     $label"
    else
        local rc=$?
        failed+=("$label")
        [ "$rc" = 124 ] && echo "timed out after ${limit}s" >>"$log"
        echo "FAILED $label (exit $rc)"
        # The failed check first, then the end of the output for context.
        grep -m 3 '^FAIL ' "$log" | sed 's/^/    | /'
        grep -v '^FAIL ' "$log" | sed 's/^/    | /' | tail -n 15
    fi
}

for t in "${tests[@]}"; do
    src="$here/$t.c"
    [ -f "$src" ] || die "no test $src"
    if ! "$cc" "${cflags[@]}" "$src" -o "$build/bin/$t" "${ldflags[@]}" \
        >"$build/log/$t.build.log" 2>&1; then
        failed+=("$t (build)")
        echo "FAILED $t (build)"
        sed 's/^/    | /' "$build/log/$t.build.log" | tail -n 25
        continue
    fi
    run "$t" 300 ${runner[@]+"${runner[@]}"} "$build/bin/$t" "$build/wasm"
    if [ "$use_valgrind" != 0 ]; then
        # soak.c runs 1/100 of its rounds under valgrind (it would take an
        # hour); its leak checks stay exact.
        run "$t [valgrind]" 1800 env CAPI_SOAK_DIVISOR=100 "${vg[@]}" \
            "$build/bin/$t" "$build/wasm"
    fi
done

# The guard-page mode under valgrind, to show what the pass above would
# otherwise see: memory.c's out-of-bounds accesses, made by JIT code,
# reported as invalid reads and writes of memory mappings (not of heap).
# That memcheck sees accesses made by JIT code at all is what lets the pass
# above, which suppresses nothing, stand for "no invalid access": a JIT read
# of freed heap would be reported there. memory.c's own checks must still
# pass, and every report must be such a guard-page access.
guard_check='
    CRANEWASM_BOUNDS_CHECKS=guard-pages "$@" >"$0" 2>&1
    rc=$?
    cat "$0"
    [ "$rc" = 99 ] || { echo "expected valgrind to report guard-page accesses (exit 99), got exit $rc"; exit 1; }
    grep -q "^PASS memory" "$0" || { echo "memory.c did not pass"; exit 1; }
    errors=$(grep -cE "^==[0-9]+== [A-Z]" "$0")
    guard=$(grep -cE "^==[0-9]+== Invalid (read|write) of size" "$0")
    outside=$(grep -cE "^==[0-9]+==  Address 0x[0-9a-f]+ is in a [-rwx]{3} anonymous segment" "$0")
    echo "valgrind errors: $errors, guard-page accesses: $guard, in memory mappings (not heap): $outside"
    [ "$guard" -gt 0 ] && [ "$errors" = "$guard" ] && [ "$outside" = "$guard" ]'
if [ "$use_valgrind" != 0 ] && [[ " ${tests[*]} " == *" memory "* ]]; then
    run "memory [valgrind, guard pages: reports expected]" 600 sh -c "$guard_check" \
        "$build/log/memory.guard.vg" "${vg[@]}" --error-exitcode=99 "$build/bin/memory" "$build/wasm"
fi

# The examples, built exactly as the README tells a user (only the header
# and library folders differ, and an rpath replaces LD_LIBRARY_PATH), must
# run, exit 0 and print what they print with WAMR.
# example NAME EXPECTED-OUTPUT
example() {
    local ex="$root/examples/c/$1.c" bin="$build/bin/example_$1"
    if "$cc" -I "$inc" "$ex" -L "$libdir" -liwasm -Wl,-rpath,"$libdir" \
        -o "$bin" >"$build/log/example_$1.build.log" 2>&1; then
        run "examples/c/$1" 60 sh -c '
            out=$(${RUNNER:-} "$1") || { echo "$out"; echo "exit status $?"; exit 1; }
            echo "$out"
            [ "$out" = "$2" ] || { echo "unexpected output"; exit 1; }' sh "$bin" "$2"
        if [ "$use_valgrind" != 0 ]; then
            run "examples/c/$1 [valgrind]" 600 "${vg[@]}" "$bin"
        fi
    else
        failed+=("examples/c/$1 (build)")
        echo "FAILED examples/c/$1 (build)"
        sed 's/^/    | /' "$build/log/example_$1.build.log" | tail -n 25
    fi
}
if [ $# -eq 0 ]; then
    example hello "Hello from wasm, via the host! (wasm passed 42)"
    example natives "compute(14) = 42
fail: Exception: unreachable"
fi

echo
echo "C API tests against $libdir/libiwasm.so (header $inc/wasm_c_api.h):"
echo "  passed: ${#passed[@]}, failed: ${#failed[@]}"
if [ "$plain_only" = 1 ]; then
    echo "  plain pass only (PASSES=plain): the caller runs the valgrind pass"
elif [ "$use_valgrind" = 0 ]; then
    echo "  valgrind pass SKIPPED (VALGRIND=0)"
fi
[ -n "${EXCLUDE:-}" ] && echo "  left out (EXCLUDE): $EXCLUDE"
for f in "${failed[@]}"; do echo "  FAILED: $f"; done
[ ${#failed[@]} -eq 0 ]
