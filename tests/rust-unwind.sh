#!/bin/sh
# A real toolchain's exceptions (issue 33): tests/rust-unwind, a Rust
# program that panics inside catch_unwind and recovers, built for
# wasm32-wasip1 with panic=unwind on the stable toolchain with std rebuilt
# (nightly's wasm32-wasip1 std is not served here), twice: as Rust 1.95
# emits it (the legacy exception instructions) and with exnref
# (-wasm-use-legacy-eh=false). Each build runs through iwasm and through
# the Rust API, and must print its recoveries and exit 0. Any failed step
# fails the script.
set -eu
cd "$(dirname "$0")/.."
TOOLCHAIN=1.95.0
rustup toolchain install --profile minimal "$TOOLCHAIN"
rustup target add wasm32-wasip1 --toolchain "$TOOLCHAIN"
rustup component add rust-src --toolchain "$TOOLCHAIN"

OUT=${CARGO_TARGET_DIR:-target}/rust-unwind
build() { # name, extra RUSTFLAGS
    (cd tests/rust-unwind &&
        RUSTC_BOOTSTRAP=1 RUSTFLAGS="-Cpanic=unwind $2" CARGO_TARGET_DIR="../../$OUT/$1" \
            cargo +"$TOOLCHAIN" build --release --target wasm32-wasip1 -Zbuild-std=std,panic_unwind)
}
build legacy ""
build exnref "-Cllvm-args=-wasm-use-legacy-eh=false"
LEGACY=$OUT/legacy/wasm32-wasip1/release/rust-unwind.wasm
EXNREF=$OUT/exnref/wasm32-wasip1/release/rust-unwind.wasm

cargo build --release -p cranewasm-cli
for wasm in "$LEGACY" "$EXNREF"; do
    out=$(./target/release/iwasm "$wasm")
    echo "$out"
    echo "$out" | grep -q "recovered 2 times" || { echo "FAIL: $wasm did not recover"; exit 1; }
done
RUST_UNWIND_WASM="$LEGACY:$EXNREF" cargo test --release --test exceptions -- --ignored rust_panic_unwind_programs
echo "rust-unwind: legacy and exnref builds ran through iwasm and the Rust API"
