#!/usr/bin/env bash
# The second CPU (issue 35): cross-builds everything for aarch64 Linux and
# runs a chosen part of the tests under qemu-aarch64 user-mode emulation;
# checks that both macOS targets compile. tests/run-all.sh runs it; it
# installs what it needs (rustup targets; apt's cross gcc, cross C library
# and qemu-user). .cargo/config.toml names the linker and makes qemu the
# runner of cross-built tests.
#
# What runs under emulation, and what does not (README, "Platforms"): the
# spec suite, the API, trap, bounds, stack-exhaustion, interrupt, signal,
# thread, lazy-compilation, cache, golden-code and WASI tests; the C tests
# without their valgrind pass (valgrind does not run under qemu); the WASI
# test suite through the aarch64 iwasm; the differential fuzzer on its
# first 1,000 fixed seeds; files cross-compiled on x86-64 (`iwasm compile
# --target`) on the full and the runtime-only aarch64 iwasm, against
# natively compiled ones (tests/cross.sh), and the WASI test suite from such
# files on the runtime-only build. The threads and atomics tests run once more on a
# Cortex-A72 model, which has no LSE atomics, so that Cranelift's
# load/store-exclusive loops run. Not here: benchmarks' timings (qemu's
# mean nothing; the benches are only built), the Python binding and
# package tests (an aarch64 Python is not installed; the library they load
# is the one the C tests run), the soak, profiling (perf) and valgrind
# runs, and the sockets and WAMR-sample scripts (the same C library and
# WASI layer the tests above run).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
target=aarch64-unknown-linux-gnu
sysroot=/usr/aarch64-linux-gnu
out=target/$target/release

# --- tools -------------------------------------------------------------------
missing=()
for tool in aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu qemu-aarch64:qemu-user; do
  command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool##*:}")
done
dpkg -s libc6-dev-arm64-cross >/dev/null 2>&1 || missing+=(libc6-dev-arm64-cross)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -q
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi
installed=$(rustup target list --installed)
for t in "$target" aarch64-apple-darwin x86_64-apple-darwin; do
  grep -qx "$t" <<< "$installed" || rustup target add "$t"
done

# --- macOS: compiles, not tested (no SDK is needed to check) -----------------
for t in aarch64-apple-darwin x86_64-apple-darwin; do
  cargo check --release --workspace --target "$t"
done

# --- cross-build: the library, iwasm, libiwasm.so/.a, tests and benches ------
cargo build --release --workspace --all-targets --target "$target"
for f in "$out/iwasm" "$out/libiwasm.so"; do
  aarch64-linux-gnu-readelf -h "$f" | grep -q "Machine: *AArch64" || { echo "$f is not an aarch64 binary" >&2; exit 1; }
done
[ -f "$out/libiwasm.a" ] || { echo "no $out/libiwasm.a" >&2; exit 1; }
# The variadic entries are naked functions in the core: they must come out
# of the cdylib as exported functions.
exports=$(aarch64-linux-gnu-nm -D --defined-only "$out/libiwasm.so")
for sym in wasm_runtime_call_wasm_v bh_log wasm_runtime_init wasm_engine_new; do
  grep -qE " T $sym\$" <<< "$exports" || { echo "libiwasm.so does not export $sym" >&2; exit 1; }
done

# --- Rust tests under qemu (the runner of .cargo/config.toml) ----------------
# Tests that run themselves again as a child process do it through qemu.
export CRANEWASM_TEST_RUNNER="qemu-aarch64 -L $sysroot"
rust_tests=(--test api --test traps --test bounds --test stack_exhaustion --test interrupt
            --test signals --test threads --test store_threads --test lazy --test cache --test disas
            --test wasi_api --test wasi_threads --test simd_api --test frozen_tables --test exceptions
            --test typed_func_refs --test cross --test gc_collect)
# (valgrind cannot run inside qemu: the one unit test that starts a child
# under valgrind is left out by name)
cargo test --release --target "$target" --workspace --lib "${rust_tests[@]}" -- \
    --skip environ::config::tests::valgrind_gets_explicit_bounds_checks
# The spec suite, one child process per file: qemu 7.2 never frees the page
# descriptors of a guest mapping (about 48 MiB per guarded memory), so the
# whole suite in one process runs out of memory.
export CRANEWASM_SPEC_CHILDREN=1
cargo test --release --target "$target" --workspace --test spec
# ... each function compiled on its first call (code published to other
# threads through the stub's data word, see README "Platforms"); of the spec
# suite, the files whose calls go through the stubs and their trampoline
# in every way (direct, indirect, tail, across modules, with vector
# arguments), as the whole suite a second time would take 20 minutes
CRANEWASM_LAZY=1 cargo test --release --target "$target" --workspace \
    --test traps --test interrupt --test threads --test stack_exhaustion --test lazy
CRANEWASM_LAZY=1 cargo test --release --target "$target" --workspace --test spec -- \
    core/call core/fac core/func core/linking core/imports core/simd_lane proposals/tail-call
# ... on a CPU without LSE atomics (ARMv8.0: Raspberry Pi 4), where
# Cranelift's atomics are load/store-exclusive loops
QEMU_CPU=cortex-a72 cargo test --release --target "$target" --workspace --test threads --test store_threads \
    --test cache
QEMU_CPU=cortex-a72 cargo test --release --target "$target" --workspace --test spec -- proposals/threads
# ... the differential fuzzer on the first 1,000 of its fixed seeds and the
# regressions (all 10,000 take over 10 minutes under qemu; they and the
# random seeds run on x86-64)
CRANEWASM_FUZZ_FIXED=1000 CRANEWASM_FUZZ_SECONDS=0 cargo test --release --target "$target" --workspace --test fuzz_differential -- \
    --nocapture fixed_seeds regressions

# --- the C tests, cross-compiled, under qemu ----------------------------------
# All but soak.c, whose RSS bound would measure qemu's translation cache.
CC=aarch64-linux-gnu-gcc RUNNER="qemu-aarch64 -L $sysroot" VALGRIND=0 EXCLUDE=soak \
    tests/c/run.sh include "$out"

# --- benches: the C harness cross-built on our library; each kernel runs once
# at its test size and must give its native checksum (no timings: qemu's
# mean nothing) ------------------------------------------------------------
bench_bin=$(mktemp -d)/bench-ours
aarch64-linux-gnu-gcc -O2 -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Ibenches/harness -DABI_WAMR \
    benches/harness/bench.c -Iinclude -L"$out" -liwasm -Wl,-rpath,"$root/$out" -o "$bench_bin"
kernels=0
while read -r name test_n check _; do
  [[ "$name" == \#* ]] && continue
  got=$(qemu-aarch64 -L "$sysroot" "$bench_bin" kernel "$name" "benches/kernels/$name.wasm" "$test_n" 1 |
        awk '$1 == "RESULT" { print $5 }')
  [ "$got" = "$check" ] || { echo "bench kernel $name on aarch64: checksum $got, native $check" >&2; exit 1; }
  kernels=$((kernels + 1))
done < benches/kernels/expected.txt
echo "bench kernels on aarch64: $kernels ran with their native checksums"
[ "$kernels" -gt 0 ]
rm -rf "$(dirname "$bench_bin")"

# --- the WASI test suite (72 tests) through the aarch64 iwasm -----------------
# (CRANEWASM_LAZY=0: each run compiles and stores its own cache entry, as
# a detached filler process would be an aarch64 program that only a
# binfmt_misc registration, if any, would run, under emulation in the
# background)
CRANEWASM_LAZY=0 WASI_IWASM="qemu-aarch64 -L $sysroot $root/$out/iwasm" tests/wasi-testsuite.sh

# --- cross-compilation (issue 36): files `iwasm compile --target` made on
# x86-64 run on the aarch64 builds, full and runtime-only (built there), as
# natively compiled ones do, on a CPU without LSE too; the x86-64 builds
# refuse them (tests/cross.sh) ...
tests/cross.sh
# ... and the WASI test suite from such files on the aarch64 runtime-only
# build, on that CPU (ARMv8.0-A, the cross target's baseline)
ro_out=target/runtime-only/$target/release
QEMU_CPU=cortex-a72 RUNTIME_ONLY=$ro_out COMPILE_TARGET=$target \
    WASI_IWASM="qemu-aarch64 -L $sysroot $root/$ro_out/iwasm" tests/wasi-testsuite.sh

echo "aarch64: all tests passed"
