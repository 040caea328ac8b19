#!/usr/bin/env bash
# Builds the real-program benchmark: Lua 5.4 from the sources in the lupa
# sdist on PyPI (its third-party/lua54; fetched with pip the first time, kept
# in benches/build/lua/, never committed), with driver.c and bench.lua, as
#   benches/build/lua/lua.wasm     clang --target=wasm32-wasi, apt's wasi-libc
#   benches/build/lua/lua-native   clang natively, times itself (NATIVE_TIMING)
# Both with -O2 -ffp-contract=off and config.h forced in, so they run the
# same code. compare.sh calls this; alone: benches/lua/build.sh
#
# Needs: clang, lld, wasi-libc, libclang-rt-dev-wasm32 (apt), python3 + pip.
# LUPA_VERSION picks the sdist (default 2.8: Lua 5.4.8).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"

LUA_DIR="$BENCH_DIR/lua"
OUT="$BUILD_DIR/lua"
LUPA_VERSION="${LUPA_VERSION:-2.8}"
mkdir -p "$OUT"

src="$OUT/lupa-$LUPA_VERSION/third-party/lua54"
if [[ ! -f "$src/lvm.c" ]]; then
  echo "== fetching the lupa $LUPA_VERSION sdist for its Lua 5.4 sources" >&2
  python3 -m pip download --quiet --no-binary :all: --no-deps -d "$OUT" "lupa==$LUPA_VERSION"
  tar -xzf "$OUT/lupa-$LUPA_VERSION.tar.gz" -C "$OUT" "lupa-$LUPA_VERSION/third-party/lua54"
fi

# bench.lua as a C string, so the program needs no file system.
python3 - "$LUA_DIR/bench.lua" "$OUT/script.h" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
body = ",".join(str(b) for b in data + b"\0")
open(sys.argv[2], "w").write(f"static const char BENCH_SCRIPT[] = {{{body}}};\n")
PY

core="lapi lcode lctype ldebug ldo ldump lfunc lgc llex lmem lobject lopcodes lparser lstate lstring ltable ltm
      lundump lvm lzio lauxlib lbaselib lcorolib lmathlib lstrlib ltablib lutf8lib"
sources=()
for f in $core; do sources+=("$src/$f.c"); done
common=(-O2 -ffp-contract=off -include "$LUA_DIR/config.h" -I"$src" -I"$OUT" -w)

echo "== lua.wasm (wasm32-wasi)" >&2
"$CLANG" --target=wasm32-wasi "${common[@]}" -I"$LUA_DIR/wasm-shim" -Wl,-z,stack-size=1048576 \
  "${sources[@]}" "$LUA_DIR/driver.c" -o "$OUT/lua.wasm"
echo "== lua-native" >&2
"$CLANG" "${common[@]}" -DNATIVE_TIMING -I"$BENCH_DIR/harness" \
  "${sources[@]}" "$LUA_DIR/driver.c" -o "$OUT/lua-native" -lm
