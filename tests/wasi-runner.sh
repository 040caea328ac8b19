# Sourced by tests/wasi-testsuite.sh and tests/wasi-threads.sh: what both
# need to run the WASI test suite's runner (../shared/wasi-testsuite)
# against our iwasm. Builds target/release/iwasm and sets `py` to a Python
# >= 3.12 with colorama (the runner's requirements, per its README).
cargo build --release -q -p cranewasm-cli

# Python 3.12: from pyenv where the machine has it, else whatever python3.12 is on PATH.
export PYENV_VERSION="${PYENV_VERSION:-3.12.1}"
py=python3.12
if ! command -v "$py" >/dev/null 2>&1 || ! "$py" -c 'import sys; assert sys.version_info >= (3, 12)' 2>/dev/null; then
  echo "the WASI test runner needs python3.12 (pyenv install 3.12.1, or the distribution's python3.12)" >&2
  exit 1
fi
"$py" -c 'import colorama' 2>/dev/null || "$py" -m pip install -q colorama
