#!/usr/bin/env bash
# Sizes of libiwasm.so and iwasm (README "Footprint"): the full build and the
# runtime-only one (no `compiler` feature), in the lean `dist` profile (fat
# LTO, one codegen unit), as built (with the symbol table) and stripped.
#
#   benches/footprint.sh              builds both, prints the table
#   PROFILE=release benches/footprint.sh   the test command's profile instead
#
# The library is built with `cargo rustc --crate-type cdylib`: capi's crate
# types also include staticlib and rlib, and rustc cannot LTO a compilation
# that emits an rlib, so a plain `cargo build` silently leaves the .so
# without LTO (rust-lang/cargo#9672). The runtime-only build has its own
# target directory (target/runtime-only), as in tests/run-all.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
profile="${PROFILE:-dist}"
dir="$profile"; [ "$profile" = dev ] && dir=debug
build() { # TARGET_DIR FEATURE_ARGS...
  local target="$1"; shift
  nice -n 10 cargo rustc -q --profile "$profile" --target-dir "$target" -p cranewasm-capi --crate-type cdylib "$@"
  nice -n 10 cargo build -q --profile "$profile" --target-dir "$target" -p cranewasm-cli "$@"
}
build target
build target/runtime-only --no-default-features
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
printf '%-14s %-12s %12s %12s\n' build file "as built" stripped
for variant in full:target runtime-only:target/runtime-only; do
  for file in libiwasm.so iwasm; do
    path="${variant#*:}/$dir/$file"
    strip -o "$tmp" "$path"
    printf '%-14s %-12s %12s %12s\n' "${variant%%:*}" "$file" "$(stat -c %s "$path")" "$(stat -c %s "$tmp")"
  done
done
