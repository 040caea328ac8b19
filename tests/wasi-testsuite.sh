#!/usr/bin/env bash
# Runs the WASI preview 1 conformance suite (../shared/wasi-testsuite)
# unchanged, with its WAMR adapter, against target/release/iwasm. As the
# suite's README says, it runs in a temporary copy (some tests create and
# remove files) with Python >= 3.12 and colorama, installed here if missing.
# No expectations file: every test must pass, and the totals are asserted
# (run_suite in tests/wasi-runner.sh). CRANEWASM_LAZY=1 in the environment
# reaches iwasm, so tests/run-all.sh runs it once more lazily.
# WASI_IWASM="COMMAND" runs them on that command line instead (tests/aarch64.sh:
# qemu-aarch64 and the cross-built iwasm).
# RUNTIME_ONLY=DIR runs the tests on DIR/iwasm, a build without the compiler,
# from files that target/release/iwasm compiled in the copy (each test's
# .wasm replaced by its compiled-code file), as an AOT-only WAMR runs .aot files.
# COMPILE_TARGET=TRIPLE (with RUNTIME_ONLY and WASI_IWASM) compiles those files
# for that target (`iwasm compile --target`), for the runtime-only iwasm of
# that target that WASI_IWASM runs (tests/aarch64.sh: aarch64 under qemu).
set -euo pipefail
# Relative to the caller's directory.
runtime_only=${RUNTIME_ONLY:+$(realpath -m "$RUNTIME_ONLY")}
cd "$(dirname "$0")/.."
root=$PWD
suite=../shared/wasi-testsuite
source tests/wasi-runner.sh

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$suite" "$work/"
cd "$work/wasi-testsuite"
# 72 tests: the suite's C, Rust and AssemblyScript folders at the commit in
# ../shared (a different count means the suite or the runner changed).
iwasm="$root/target/release/iwasm"
compile_target=()
[ -z "${COMPILE_TARGET:-}" ] || compile_target=(--target "$COMPILE_TARGET")
if [ -n "$runtime_only" ]; then
  find tests -name '*.wasm' -print0 | while IFS= read -r -d '' f; do
    "$iwasm" compile "${compile_target[@]}" "$f" -o "$f.cwasm" || { echo "iwasm compile $f failed" >&2; exit 1; }
    mv "$f.cwasm" "$f"
  done
  iwasm="$runtime_only/iwasm"
fi
iwasm=${WASI_IWASM:-$iwasm}
run_suite 72 "$iwasm"
