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
cargo build --release -q -p cranewasm-cli

# Python 3.12: from pyenv where the machine has it, else whatever python3.12 is on PATH.
export PYENV_VERSION="${PYENV_VERSION:-3.12.1}"
py=python3.12
if ! command -v "$py" >/dev/null 2>&1 || ! "$py" -c 'import sys; assert sys.version_info >= (3, 12)' 2>/dev/null; then
  echo "wasi-testsuite: needs python3.12 (pyenv install 3.12.1, or the distribution's python3.12)" >&2
  exit 1
fi
"$py" -c 'import colorama' 2>/dev/null || "$py" -m pip install -q colorama

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$suite" "$work/"
cd "$work/wasi-testsuite"
IWASM="$root/target/release/iwasm" "$py" run-tests -r adapters/wasm-micro-runtime.py --disable-colors
