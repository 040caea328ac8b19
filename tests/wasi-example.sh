#!/usr/bin/env bash
# Builds examples/wasi/demo.c with clang and apt's wasi-libc, then runs it
# with the iwasm command line and with the Rust example (examples/wasi.rs):
# arguments, environment, a mapped directory, the exit status, and a file
# outside the mapping that it cannot open — each checked in the output.
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/wasi-example
mkdir -p "$out"
clang --target=wasm32-wasi -O2 -o "$out/demo.wasm" examples/wasi/demo.c
cargo build --release -q -p cranewasm-cli
cargo build --release -q -p cranewasm --example wasi

data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT

check() { # name expected-status expected-output command...
  local name=$1 want_status=$2 want=$3; shift 3
  rm -f "$data"/*
  set +e
  got=$("$@")
  status=$?
  set -e
  if [ "$status" != "$want_status" ] || [ "$got" != "$want" ]; then
    echo "$name: status $status (want $want_status), output:" >&2
    echo "$got" >&2
    echo "--- expected:" >&2
    echo "$want" >&2
    exit 1
  fi
  [ "$(cat "$data/note.txt")" = "written by a wasm guest" ] || { echo "$name: note.txt not written" >&2; exit 1; }
  echo "$name: ok"
}

check "iwasm" 7 "arg 0: $out/demo.wasm
arg 1: a
arg 2: b c
arg 3: 7
GREETING=hello
read back: written by a wasm guest
open /etc/passwd: refused
entries in /data: 1" \
  target/release/iwasm --env GREETING=hello --map-dir="/data::$data" "$out/demo.wasm" a "b c" 7

check "Rust example" 3 "arg 0: $out/demo.wasm
arg 1: 3
GREETING=hello from Rust
read back: written by a wasm guest
open /etc/passwd: refused
entries in /data: 1" \
  target/release/examples/wasi "$out/demo.wasm" "$data" 3
