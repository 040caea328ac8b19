#!/usr/bin/env bash
# Installs the Python package (python/) into a temporary folder, bundling
# target/release/libiwasm.so, and runs its test suite against that
# installed copy. Needs the release library built first
# (cargo build --release -p cranewasm-capi) and pip + pytest.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# Building without isolation needs setuptools and its wheel support here.
python3 -c 'import setuptools, wheel' 2>/dev/null || python3 -m pip install -q setuptools wheel
# A copy of the source, so the build leaves nothing in the repository.
cp -r "$root/python" "$tmp/src"
mkdir -p "$tmp/target/release"
cp "$root/target/release/libiwasm.so" "$tmp/target/release/"
# pip's own status decides (its output is shown without the warning about
# running as root, which says nothing about the package).
if ! python3 -m pip install -q --no-deps --no-build-isolation --target "$tmp/site" "$tmp/src" >"$tmp/pip.log" 2>&1; then
    cat "$tmp/pip.log" >&2
    echo "pip could not install the package" >&2
    exit 1
fi
sed '/WARNING: Running pip as/d' "$tmp/pip.log" >&2
test -f "$tmp/site/cranewasm/libiwasm.so" || { echo "the package does not bundle libiwasm.so" >&2; exit 1; }
# The installed package only: no CRANEWASM_LIB, no source tree on the path.
cd "$tmp"
env -u CRANEWASM_LIB PYTHONPATH="$tmp/site" python3 -c \
    'import cranewasm, sys; assert cranewasm.LIBRARY_PATH.startswith(sys.argv[1]), cranewasm.LIBRARY_PATH' "$tmp/site"
env -u CRANEWASM_LIB PYTHONPATH="$tmp/site" python3 -m pytest -q -p no:cacheprovider "$root/tests/python_pkg"
