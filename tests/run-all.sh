#!/usr/bin/env bash
# Runs every test of the project: the README's test command, and what CI runs.
# On a fresh machine it first installs the tools the tests use.
set -euo pipefail
cd "$(dirname "$0")/.."

# --- tools -------------------------------------------------------------------
missing=()
# perf: tests/profiling.rs records a guest with it (Debian's linux-perf).
for tool in wat2wasm:wabt valgrind:valgrind cc:gcc perf:linux-perf; do
  command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool##*:}")
done
# The WASI example is C built with clang for wasm32-wasi against apt's
# wasi-libc (lld links it; compiler-rt's wasm32 builtins complete it).
for pkg in clang lld wasi-libc libclang-rt-dev-wasm32; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -q
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi
python3 -c "import pytest" 2>/dev/null || python3 -m pip install -q pytest

# iwasm keeps a code cache by default: keep this run's in a directory of its
# own, cold at the start, so that the runs below both fill it and hit it.
export XDG_CACHE_HOME="$PWD/target/test-cache-home"
rm -rf "$XDG_CACHE_HOME"

# --- Rust: unit, API, spec suite, C-API and benchmark-correctness tests -------
cargo build --release --workspace --all-targets
cargo test --release --workspace
# the core crate's docs, a guide whose examples ran above as doc tests:
# every public item documented (deny(missing_docs)) and no broken links
RUSTDOCFLAGS="-D warnings" cargo doc --release --no-deps -p cranewasm
# ... the spec suite and the trap, interrupt and thread tests again with
# each function compiled on its first call (Config::lazy_compilation)
CRANEWASM_LAZY=1 cargo test --release --test spec --test api --test traps --test interrupt --test threads \
    --test store_threads --test stack_exhaustion
# ... and with every function tiered up at once (Config::tiering, on with
# lazy compilation on x86-64: the baseline code runs first, the optimised
# code placed by the background thread after; ~15 s). Not tests/traps.rs:
# its comparison of two runs' frames sees a trap Cranelift's optimiser
# folds into a conditional trap at the branch's offset in optimised code
# and at the `unreachable`'s in baseline code, whichever tier ran
# (benches/README.md, "Tiers").
CRANEWASM_LAZY=1 CRANEWASM_TIER_THRESHOLD=1 cargo test --release --test spec --test api --test interrupt \
    --test threads --test store_threads --test stack_exhaustion --test exceptions --test lazy --test tier
# ... and the 3.0 suite and the GC tests with a collection before every
# allocation of compiled code (while little is live), so that every object
# moves as often as it can: a root the collector missed shows up as a
# wrong value or a fault (~1 min)
CRANEWASM_GC_STRESS=1 cargo test --release --test gc_collect --test gc_heap --test gc_host_objects --test gc_types \
    --test exceptions --test exnref_values
CRANEWASM_GC_STRESS=1 cargo test --release --test spec -- wasm-3.0

# --- WAMR's Python binding, unchanged, on our libiwasm.so ----------------------
# (tests/python: every API area, positive and negative; the binding's own
# hello sample and examples/python/hello_wamr.py among them)
../shared/clients/run-wamr-python.sh target/release/libiwasm.so \
    python3 -m pytest -q tests/python
# ... and again under valgrind: no memory error or leak involving our library
python3 tests/python/valgrind.py target/release/libiwasm.so

# --- our Python package: `pip install ./python` in a fresh venv (cargo builds
# and bundles the library), mypy --strict, pyright, its tests with coverage
# >= 90 %, the wheel's platform tag, and the tests on every pyenv Python 3.8+
tests/python_pkg/run.sh

# --- WASI: the conformance suite, unchanged, through the iwasm command line ----
tests/wasi-testsuite.sh
# ... and from files that iwasm compiled, on the runtime-only build (below)

# --- the runtime-only build: no `compiler` feature, so no Cranelift, translator
# or validator (README "Footprint"), in its own target dir. It runs files that
# the full build's `iwasm compile` made (tests/runtime_only.rs: host calls,
# traps, the cache's refusals, CPU features checked without Cranelift), and
# refuses WebAssembly bytes naming the missing feature.
ro=target/runtime-only
cargo build --release --target-dir $ro --no-default-features -p cranewasm-cli -p cranewasm-capi
CRANEWASM_COMPILER=$PWD/target/release/iwasm \
    cargo test --release --target-dir $ro --no-default-features --features wasi --test runtime_only
probe=$(mktemp -d)
printf '\0asm\1\0\0\0' > "$probe/empty.wasm"
if $ro/release/iwasm "$probe/empty.wasm" > "$probe/out" 2>&1 || ! grep -q '`compiler` feature' "$probe/out"; then
  echo "the runtime-only iwasm did not refuse a WebAssembly binary naming the compiler feature" >&2
  cat "$probe/out" >&2
  exit 1
fi
rm -rf "$probe"
RUNTIME_ONLY=$ro/release tests/wasi-testsuite.sh

# ... and the wasi-threads proposal's tests (shared memories, thread-spawn)
tests/wasi-threads.sh
# ... and WAMR's socket apps and lib-socket's tests, unchanged, on loopback
# only (WAMR's socket extension, address pools, the samples' own output)
tests/wamr-sockets.sh

# --- WAMR's wasm_export.h samples, unchanged, on our headers and library ------
tests/wamr-samples.sh

# --- lazy compilation for every client (README: "CRANEWASM_LAZY=1 for any
# client, C and Python included"): the C tests (without their valgrind pass,
# which the eager run above makes), WAMR's Python binding tests and the WASI
# suite once more with each function compiled on its first call. First, that
# the C library's engine reads the variable at all: a bad value must fail.
probe=$(mktemp -d)
printf '(module (func (export "_start")))' > "$probe/empty.wat"
if CRANEWASM_LAZY=bogus target/release/iwasm "$probe/empty.wat" > "$probe/out" 2>&1 ||
    ! grep -q CRANEWASM_LAZY "$probe/out"; then
  echo "iwasm did not refuse CRANEWASM_LAZY=bogus: the lazy runs below would not test lazy code" >&2
  cat "$probe/out" >&2
  exit 1
fi
rm -rf "$probe"
CRANEWASM_LAZY=1 PASSES=plain tests/c/run.sh include target/release
CRANEWASM_LAZY=1 ../shared/clients/run-wamr-python.sh target/release/libiwasm.so \
    python3 -m pytest -q tests/python
CRANEWASM_LAZY=1 tests/wasi-testsuite.sh

# --- aarch64 Linux, cross-built and run under qemu-aarch64, and the macOS
# targets compiled (README, "Platforms": what runs under emulation and why)
tests/aarch64.sh

# --- examples ----------------------------------------------------------------
# embedder programs in wasmtime's idiom (issue 39), each asserting what it
# shows; built above by --all-targets
for example in hello gcd memory multi_value interrupt fuel epochs externref serialize threads \
    multi_memory linking; do
    target/release/examples/$example
done
# a wasi-libc C program through iwasm and through the Rust API
tests/wasi-example.sh
# a Rust program built with panic=unwind (legacy and exnref exceptions; the
# script installs rustup's 1.95.0 toolchain with wasm32-wasip1 and rust-src
# and rebuilds std) through iwasm and through the Rust API
tests/rust-unwind.sh

echo "all tests passed"
