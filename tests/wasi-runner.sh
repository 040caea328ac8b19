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

# run_suite EXPECTED ADAPTER_IWASM [RUNNER ARGS...]: runs the runner in the
# current directory (a copy of the suite) with the WAMR adapter on
# ADAPTER_IWASM and fails unless exactly EXPECTED tests were executed, none
# skipped (by the runner's filters or the tests' own conditions) and none
# failed, as tests/spec.rs asserts its totals: a suite that silently lost
# tests must not pass.
run_suite() {
  local expected="$1" iwasm="$2"
  shift 2
  local json
  json="$(mktemp)"
  IWASM="$iwasm" "$py" run-tests -r adapters/wasm-micro-runtime.py --disable-colors \
    --json-output-location "$json" "$@"
  "$py" - "$json" "$expected" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
expected = int(sys.argv[2])
tests = [t for suite in results for t in suite["tests"]]
executed = sum(1 for t in tests if t["executed"])
skipped = sum(suite["skipped"] for suite in results)
failed = sum(suite["failed"] for suite in results)
print(f"WASI runner totals: {executed} executed, {skipped} skipped, {failed} failed (expected {expected} executed)")
if (executed, skipped, failed) != (expected, 0, 0):
    names = [t["name"] for t in tests if not t["executed"]]
    sys.exit(f"expected {expected} executed, 0 skipped, 0 failed; not executed: {names}")
PY
  rm -f "$json"
}
