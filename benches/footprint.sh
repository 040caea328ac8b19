#!/usr/bin/env bash
# Sizes of libiwasm.so and iwasm (README "Footprint"): the full build and the
# runtime-only one (no `compiler` feature), in the lean `dist` profile (fat
# LTO, one codegen unit) and, for the runtime-only build, also in
# `dist-runtime` (dist optimised for size), and the full one in `dist-small`
# (the same for the full build), as built (with the symbol table) and
# stripped.
#
#   benches/footprint.sh              builds them all, prints the table
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
build() { # PROFILE TARGET_DIR FEATURE_ARGS...
  local profile="$1" target="$2"; shift 2
  nice -n 10 cargo rustc -q --profile "$profile" --target-dir "$target" -p cranewasm-capi --crate-type cdylib "$@"
  nice -n 10 cargo build -q --profile "$profile" --target-dir "$target" -p cranewasm-cli "$@"
}
variants=("full:$profile:target" "runtime-only:$profile:target/runtime-only")
[ "$profile" = dist ] && variants+=("full:dist-small:target" "runtime-only:dist-runtime:target/runtime-only")
for variant in "${variants[@]}"; do
  IFS=: read -r name prof target <<< "$variant"
  flags=(); [ "$name" = runtime-only ] && flags=(--no-default-features)
  build "$prof" "$target" "${flags[@]}"
done
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
printf '%-14s %-14s %-12s %12s %12s\n' build profile file "as built" stripped
for variant in "${variants[@]}"; do
  IFS=: read -r name prof target <<< "$variant"
  dir="$prof"; [ "$prof" = dev ] && dir=debug
  for file in libiwasm.so iwasm; do
    path="$target/$dir/$file"
    strip -o "$tmp" "$path"
    printf '%-14s %-14s %-12s %12s %12s\n' "$name" "$prof" "$file" "$(stat -c %s "$path")" "$(stat -c %s "$tmp")"
  done
done
