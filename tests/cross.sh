#!/usr/bin/env bash
# Cross-compilation (issue 36): `iwasm compile --target aarch64-unknown-linux-gnu`
# on x86-64 makes files that the aarch64 iwasm and the aarch64 runtime-only
# iwasm (no compiler) run under qemu-aarch64 with the same output and exit
# status as files the aarch64 iwasm compiled natively; on a CPU without LSE
# atomics too (Cortex-A72), since the cross target is baseline ARMv8.0-A.
# Modules: the bench kernels (each gives its native checksum) and
# tests/cross/features.wat (calls through a table and their traps, other
# traps, exceptions caught and uncaught, SIMD, atomics, memory and table
# growth, stack exhaustion). The x86-64 iwasm (full and runtime-only) must
# refuse the aarch64 files naming both targets. And the other way round:
# the aarch64 iwasm compiles them for x86-64, and both x86-64 builds run
# them as files compiled on x86-64. The WASI test suite runs from
# cross-compiled files in tests/aarch64.sh.
#
# Needs what tests/aarch64.sh installs and builds: target/release/iwasm (with
# the `cross` feature, a default), target/aarch64-unknown-linux-gnu/release/iwasm
# and the runtime-only builds in target/runtime-only (both built here if
# missing or stale). Every tool or build that fails fails the test.
set -euo pipefail
cd "$(dirname "$0")/.."
target=aarch64-unknown-linux-gnu
sysroot=/usr/aarch64-linux-gnu
qemu=(qemu-aarch64 -L "$sysroot")
ro=target/runtime-only

cargo build --release -p cranewasm-cli
cargo build --release --target "$target" -p cranewasm-cli
cargo build --release --target-dir $ro --no-default-features -p cranewasm-cli
cargo build --release --target "$target" --target-dir $ro --no-default-features -p cranewasm-cli
host_iwasm=target/release/iwasm
host_ro_iwasm=$ro/release/iwasm
arm_iwasm=target/$target/release/iwasm
arm_ro_iwasm=$ro/$target/release/iwasm

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "cross: $*" >&2; exit 1; }

# name, module file, then invocations: "function args..."
cases=()
while read -r name test_n check _; do
  [[ "$name" == \#* ]] && continue
  cases+=("$name|benches/kernels/$name.wasm|run $test_n|$(printf '0x%x:i64' "$check")")
done < benches/kernels/expected.txt
[ ${#cases[@]} -ge 8 ] || fail "only ${#cases[@]} bench kernels listed"
features=(
  "dispatch 0 5" "dispatch 2 5" "dispatch 3 5" "dispatch 9 5" "put_add" "grow_table 3"
  "div 7 2" "div 1 0" "div -2147483648 -1" "load 65532" "load 70000" "grow_memory 2" "unreachable"
  "recurse 1000" "recurse 100000000" "catch 0" "catch 5" "uncaught 3" "simd 3" "simd -7" "atomics 1000"
)
for f in "${features[@]}"; do cases+=("features|tests/cross/features.wat|$f|"); done

# Compiles every module once each way: on x86-64 for aarch64, and natively
# on aarch64 (under qemu).
declare -A compiled
for c in "${cases[@]}"; do
  IFS='|' read -r name module _ _ <<< "$c"
  [ -n "${compiled[$name]:-}" ] && continue
  "$host_iwasm" compile --target "$target" "$module" -o "$work/$name.cross" || fail "iwasm compile --target $target $module failed"
  "${qemu[@]}" "$arm_iwasm" compile "$module" -o "$work/$name.native" || fail "the aarch64 iwasm could not compile $module"
  compiled[$name]=1
  # The x86-64 builds refuse the aarch64 file, naming both targets.
  for iwasm in "$host_iwasm" "$host_ro_iwasm"; do
    if "$iwasm" "$work/$name.cross" > "$work/out" 2>&1 ||
       ! grep -q "compiled for aarch64 ($target), this is x86_64" "$work/out"; then
      cat "$work/out" >&2
      fail "$iwasm did not refuse an aarch64 file clearly"
    fi
  done
done

# Runs `IWASM -f FUNCTION FILE ARGS` (IWASM a command line, split at
# spaces) and prints its output and exit status.
run() {
  local iwasm=$1 file=$2 func=$3 status=0
  shift 3
  $iwasm -f "$func" "$file" "$@" > "$work/run" 2>&1 || status=$?
  cat "$work/run"
  echo "exit $status"
}

# same NATIVE GOT HOW CALL: counts a run whose output and exit status
# (GOT, of a file compiled HOW) are those of the natively compiled file's
# run (NATIVE); fails showing both otherwise.
runs=0
same() {
  if [ "$2" != "$1" ]; then
    printf 'compiled natively:\n%s\n%s:\n%s\n' "$1" "$3" "$2" >&2
    fail "$4: the run of the file $3 differs from the natively compiled file's"
  fi
  runs=$((runs + 1))
}

for c in "${cases[@]}"; do
  IFS='|' read -r name _ call expected <<< "$c"
  read -r -a call <<< "$call"
  native=$(run "qemu-aarch64 -L $sysroot $arm_iwasm" "$work/$name.native" "${call[@]}")
  if [ -n "$expected" ] && [ "$native" != "$expected"$'\n'"exit 0" ]; then
    fail "$name ${call[*]}, compiled natively on aarch64: $native (expected $expected)"
  fi
  for how in "full" "runtime-only" "runtime-only, Cortex-A72"; do
    case $how in
      full) got=$(run "qemu-aarch64 -L $sysroot $arm_iwasm" "$work/$name.cross" "${call[@]}") ;;
      runtime-only) got=$(run "qemu-aarch64 -L $sysroot $arm_ro_iwasm" "$work/$name.cross" "${call[@]}") ;;
      *) got=$(run "env QEMU_CPU=cortex-a72 qemu-aarch64 -L $sysroot $arm_ro_iwasm" "$work/$name.cross" "${call[@]}") ;;
    esac
    same "$native" "$got" "compiled on x86-64, run on aarch64 $how" "$name ${call[*]}"
  done
done

# The other way round: the aarch64 iwasm compiles for x86-64, and both
# x86-64 builds run those files as files compiled on x86-64.
declare -A reverse
for c in "${cases[@]}"; do
  IFS='|' read -r name module call _ <<< "$c"
  read -r -a call <<< "$call"
  if [ -z "${reverse[$name]:-}" ]; then
    "${qemu[@]}" "$arm_iwasm" compile --target x86_64-unknown-linux-gnu "$module" -o "$work/$name.x86" ||
      fail "the aarch64 iwasm could not compile $module for x86-64"
    "$host_iwasm" compile "$module" -o "$work/$name.x86native" || fail "iwasm compile $module failed"
    reverse[$name]=1
  fi
  native=$(run "$host_iwasm" "$work/$name.x86native" "${call[@]}")
  for iwasm in "$host_iwasm" "$host_ro_iwasm"; do
    got=$(run "$iwasm" "$work/$name.x86" "${call[@]}")
    same "$native" "$got" "compiled on aarch64, run by $iwasm" "$name ${call[*]}"
  done
done
echo "cross: ${#cases[@]} calls of cross-compiled modules, $runs runs, each as the natively compiled one"
[ "$runs" -gt 0 ]
