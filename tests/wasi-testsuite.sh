#!/usr/bin/env bash
# Runs the WASI preview 1 conformance suite (../shared/wasi-testsuite)
# unchanged, with its WAMR adapter, against target/release/iwasm. As the
# suite's README says, it runs in a temporary copy (some tests create and
# remove files) with Python >= 3.12 and colorama, installed here if missing.
# No expectations file: every test must pass.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
suite=../shared/wasi-testsuite
source tests/wasi-runner.sh

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$suite" "$work/"
cd "$work/wasi-testsuite"
IWASM="$root/target/release/iwasm" "$py" run-tests -r adapters/wasm-micro-runtime.py --disable-colors
