#!/usr/bin/env bash
# Build and run the C API test programs against a given header and library.
#
#   tests/c/run.sh INCLUDE_DIR LIBDIR [TEST...]
#
# INCLUDE_DIR holds wasm_c_api.h, LIBDIR holds libiwasm.so. Every tests/c/*.c
# (or only the named TESTs) is compiled against them, every tests/c/wat/*.wat
# is compiled with wat2wasm, and each program runs twice: plainly, then under
# valgrind (definite leaks and memory errors fail the test). The example
# examples/c/hello.c is built the way the README shows and run as well.
#
# Environment:
#   CC            C compiler (default: cc)
#   VALGRIND=0    skip the valgrind pass (announced in the summary; the
#                 default is to run it, and a missing valgrind is an error)
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
use_valgrind=${VALGRIND:-1}

die() { echo "run.sh: $*" >&2; exit 2; }
[ -f "$inc/wasm_c_api.h" ] || die "no wasm_c_api.h in $inc"
[ -f "$libdir/libiwasm.so" ] || die "no libiwasm.so in $libdir"
inc=$(cd "$inc" && pwd)
libdir=$(cd "$libdir" && pwd)
command -v wat2wasm >/dev/null || die "wat2wasm not found (apt install wabt)"
command -v "$cc" >/dev/null || die "C compiler '$cc' not found"
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
    wat2wasm "$wat" -o "$build/wasm/$name.wasm" ||
        die "wat2wasm failed on $wat"
done

if [ $# -gt 0 ]; then
    tests=("$@")
else
    tests=()
    for src in "$here"/*.c; do tests+=("$(basename "$src" .c)"); done
fi

cflags=(-std=gnu11 -g -O1 -Wall -Wextra -Wno-unused-function
        -Wno-unused-parameter -I "$inc" -I "$here")
# --no-as-needed: symbols.c and null_args.c reference the API only weakly (to
# name what is missing rather than fail to link), which --as-needed, the
# default on Debian, would take as a reason to drop the library.
ldflags=(-L "$libdir" -Wl,--no-as-needed -liwasm -Wl,--as-needed
         -Wl,-rpath,"$libdir" -lpthread)
# valgrind.supp names the two reports that are not errors (guard-page
# faults that become traps, and a false positive in wasmparser) and why.
vg=(valgrind -q --main-stacksize=67108864 --smc-check=all-non-file --leak-check=full --errors-for-leak-kinds=definite
    --suppressions="$here/valgrind.supp" --error-exitcode=1)

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
    run "$t" 300 "$build/bin/$t" "$build/wasm"
    if [ "$use_valgrind" != 0 ]; then
        # soak.c runs 1/100 of its rounds under valgrind (it would take an
        # hour); its leak checks stay exact.
        run "$t [valgrind]" 1800 env CAPI_SOAK_DIVISOR=100 "${vg[@]}" \
            "$build/bin/$t" "$build/wasm"
    fi
done

# The example, built exactly as the README tells a user (only the header and
# library folders differ, and an rpath replaces LD_LIBRARY_PATH), must run,
# exit 0 and print its greeting.
if [ $# -eq 0 ]; then
    ex="$root/examples/c/hello.c"
    if "$cc" -I "$inc" "$ex" -L "$libdir" -liwasm -Wl,-rpath,"$libdir" \
        -o "$build/bin/example_hello" >"$build/log/example.build.log" 2>&1; then
        run "examples/c/hello" 60 sh -c '
            out=$("$1") || { echo "$out"; echo "exit status $?"; exit 1; }
            echo "$out"
            [ "$out" = "Hello from wasm, via the host! (wasm passed 42)" ] ||
                { echo "unexpected output"; exit 1; }' sh "$build/bin/example_hello"
        if [ "$use_valgrind" != 0 ]; then
            run "examples/c/hello [valgrind]" 600 "${vg[@]}" \
                "$build/bin/example_hello"
        fi
    else
        failed+=("examples/c/hello (build)")
        echo "FAILED examples/c/hello (build)"
        sed 's/^/    | /' "$build/log/example.build.log" | tail -n 25
    fi
fi

echo
echo "C API tests against $libdir/libiwasm.so (header $inc/wasm_c_api.h):"
echo "  passed: ${#passed[@]}, failed: ${#failed[@]}"
[ "$use_valgrind" != 0 ] || echo "  valgrind pass SKIPPED (VALGRIND=0)"
for f in "${failed[@]}"; do echo "  FAILED: $f"; done
[ ${#failed[@]} -eq 0 ]
