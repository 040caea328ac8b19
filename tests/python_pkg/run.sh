#!/usr/bin/env bash
# The Python package as a user gets it: in a fresh venv, `pip install
# ./python` (setuptools-rust runs cargo for libiwasm.so and bundles it;
# nothing has to be built first), `import cranewasm` from outside the
# repository, mypy --strict and pyright on the package, its pytest suite
# against the installed copy with branch-free line coverage of at least
# 90 %, `pip wheel ./python` with a platform tag, CRANEWASM_LIB overriding
# the bundled library, and the suite again on every other Python 3.8+ the
# machine has (pyenv's). Needs python3 with venv, and PyPI (pip fetches
# setuptools-rust, pytest, pytest-cov, mypy, pyright with its Node.js
# wheel, numpy).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
quiet_pip() { # pip's own status decides; its output is shown on failure
  if ! "$@" >"$tmp/pip.log" 2>&1; then cat "$tmp/pip.log" >&2; echo "failed: $*" >&2; exit 1; fi
}

echo "python package: installing ./python into a fresh venv (builds libiwasm.so with cargo)"
python3 -m venv "$tmp/venv"
py="$tmp/venv/bin/python"
quiet_pip "$py" -m pip install -q --upgrade pip
quiet_pip env -u CRANEWASM_LIB "$py" -m pip install -q "$root/python"
site=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
test -f "$site/cranewasm/libiwasm.so" || { echo "the package does not bundle libiwasm.so" >&2; exit 1; }
test -f "$site/cranewasm/py.typed" || { echo "the package has no py.typed" >&2; exit 1; }
cd "$tmp"
env -u CRANEWASM_LIB "$py" -c \
    'import cranewasm, sys; assert cranewasm.LIBRARY_PATH.startswith(sys.argv[1]), cranewasm.LIBRARY_PATH' "$site"
CRANEWASM_LIB="$root/target/release/libiwasm.so" "$py" -c \
    'import cranewasm, sys; assert cranewasm.LIBRARY_PATH == sys.argv[1], cranewasm.LIBRARY_PATH' \
    "$root/target/release/libiwasm.so"

echo "python package: mypy --strict and pyright"
quiet_pip "$py" -m pip install -q pytest pytest-cov mypy 'pyright[nodejs]' numpy
"$py" -m mypy --strict --no-incremental "$root/python/cranewasm"
(cd "$root/python" && PATH="$tmp/venv/bin:$PATH" "$tmp/venv/bin/pyright" --pythonpath "$py" cranewasm)

echo "python package: tests, with coverage"
env -u CRANEWASM_LIB "$py" -m pytest -q -p no:cacheprovider --cov=cranewasm --cov-report=term \
    --cov-fail-under=90 "$root/tests/python_pkg"

echo "python package: pip wheel has a platform tag"
quiet_pip env -u CRANEWASM_LIB "$py" -m pip wheel -q --no-deps -w "$tmp/wheels" "$root/python"
wheel=$(ls "$tmp/wheels"/cranewasm-*.whl)
case "$(basename "$wheel")" in
  *-none-any.whl) echo "the wheel is tagged pure Python: $wheel" >&2; exit 1 ;;
  *-py3-none-linux_*.whl) ;;
  *) echo "unexpected wheel tag: $wheel" >&2; exit 1 ;;
esac
# (the listing is read whole: grep -q closing the pipe early would fail it)
listing=$("$py" -m zipfile -l "$wheel")
grep -q "cranewasm/libiwasm.so" <<<"$listing" || { echo "the wheel lacks libiwasm.so" >&2; exit 1; }
grep -q "cranewasm/py.typed" <<<"$listing" || { echo "the wheel lacks py.typed" >&2; exit 1; }
# ... and CRANEWASM_LIB at build time bundles that library instead of running cargo.
quiet_pip env CRANEWASM_LIB="$root/target/release/libiwasm.so" "$py" -m pip wheel -q --no-deps \
    -w "$tmp/given" "$root/python"
listing=$("$py" -m zipfile -l "$tmp/given"/cranewasm-*.whl)
grep -q "cranewasm/libiwasm.so" <<<"$listing" || { echo "the CRANEWASM_LIB wheel lacks libiwasm.so" >&2; exit 1; }

# --- the other Pythons the machine has (3.8 to 3.13), on the wheel --------
others=()
if command -v pyenv >/dev/null 2>&1; then
  for v in $(pyenv versions --bare 2>/dev/null); do
    case "$v" in 3.8*|3.9*|3.10*|3.12*|3.13*) others+=("$(pyenv root)/versions/$v/bin/python3") ;; esac
  done
fi
for other in "${others[@]}"; do
  [ -x "$other" ] || continue
  echo "python package: tests on $("$other" --version)"
  rm -rf "$tmp/v"
  "$other" -m venv "$tmp/v"
  quiet_pip "$tmp/v/bin/python" -m pip install -q "$wheel" pytest numpy
  env -u CRANEWASM_LIB "$tmp/v/bin/python" -m pytest -q -p no:cacheprovider "$root/tests/python_pkg"
done
