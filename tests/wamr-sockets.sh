#!/usr/bin/env bash
# WAMR's socket programs through our iwasm: the socket-api sample's apps
# and lib-socket's own tests (../shared/clients/wamr-samples, WAMR 2.4.3),
# built from their sources unchanged with apt's clang and wasi-libc and
# WAMR's lib-socket (wasi_socket_ext.c), linked as WAMR's CMake links them
# (shared memory, --no-check-features, malloc/free exported).
#
# Each server/client pair runs on loopback only, on ports of its own:
# tests/wamr-sockets/test_port.h, forced into every app, maps the apps'
# fixed ports (1234, 8989) to a free port this script picks for each run
# (CW_TEST_PORT), and their wildcard binds to loopback; every iwasm runs
# with --addr-pool=127.0.0.1/32,::1/128 (the sandbox refuses any other
# address). Every server stops by itself once its clients are done, and
# every process runs under a time limit, so a hang is a failure.
#
#   tcp         tcp_server and 5 tcp_clients, IPv4 and IPv6
#   udp         udp_server and 5 udp_clients, IPv4 and IPv6
#   send_recv   a server thread and a client thread, sendmsg/recvmsg
#   socket_opts every option it sets reads back (no pool: it binds nothing)
#   timeouts    timeout_server and timeout_client (SO_RCVTIMEO/SO_SNDTIMEO)
#   addr_resolve  localhost with --allow-resolve=localhost; refused without
#   tcp_udp     lib-socket's test: TCP and UDP, IPv4 and IPv6, in threads
#   nslookup    lib-socket's test looks up a name on the internet, so it
#               runs without --allow-resolve: refused before any query
#   stopped     tcp_server with no client and --timeout=500: the stop
#               wakes its accept (within 10 s, or the check fails)
#
# Outputs are compared with WAMR's own run of the same .wasm files
# (tests/wamr-sockets/expected/, recorded with WAMR 2.4.3's iwasm: see the
# README there; ports and pointers masked; the lines of programs whose
# threads print concurrently sorted). The timeout pair's send check
# depends on the kernel's socket buffer limit (net.core.wmem_max): where
# its 1,000,000-byte send fits, it fails natively too. So that pair is
# compared with the native build of the same sources (cc), run alongside.
#
# Left out: the multicast pair. It joins a group on the default interface
# and sends to a multicast group address, which is not loopback; it is
# built, not run.
#
# tcp_server.c and send_recv.c use pthreads, and so do lib-socket's
# tcp_udp.c and nslookup.c; apt's wasi-libc (2022) has no threads build
# and there is no wasi-sdk in the package registries, so those four link
# a small pthread layer of our own over wasi-threads' `thread-spawn`
# (tests/wamr-sockets/pthread/). errno_location.c gives lib-socket the
# __errno_location that wasi-libc added after that version.
#
# IWASM=path runs another iwasm (WAMR's, to record); CRANEWASM_BLESS=1
# then writes expected/ from its outputs.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
samples=${WAMR_SAMPLES:-$root/../shared/clients/wamr-samples}
here=$root/tests/wamr-sockets
S=$samples/samples/socket-api/wasm-src
LS=$samples/core/iwasm/libraries/lib-socket
[ -d "$S" ] && [ -d "$LS" ] || { echo "no WAMR socket samples at $samples" >&2; exit 1; }

if [ -z "${IWASM:-}" ]; then
    cargo build --release -q -p cranewasm-cli
    IWASM=$root/target/release/iwasm
fi
bless=${CRANEWASM_BLESS:-0}
out=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -rf "$out"
}
trap cleanup EXIT

# --- build ------------------------------------------------------------------
echo "building WAMR's socket apps ($samples) with $(clang --version | head -1)"
wasi=(clang --target=wasm32-wasi -O2)
"${wasi[@]}" -c "$here/errno_location.c" -o "$out/errno_location.o"
"${wasi[@]}" -matomics -mbulk-memory -I "$here/pthread" -c "$here/pthread/pthread.c" -o "$out/pthread.o"
"${wasi[@]}" -c "$here/pthread/thread_start.s" -o "$out/thread_start.o"
link=(-Wl,--export=__heap_base,--export=__data_end,--export=malloc,--export=free
      -Wl,--shared-memory,--max-memory=10485760,--no-check-features,--allow-undefined)
# The single-threaded libc's allocator and the stdio calls the apps make
# go through the layer's lock (see pthread.c).
wrapped=(malloc calloc realloc free puts putchar fputs fputc fwrite fflush vfprintf perror printf fprintf
         __stdio_exit)
threads=(-I "$here/pthread" "$out/pthread.o" "$out/thread_start.o" "-Wl,$(printf -- '--wrap=%s,' "${wrapped[@]}")")
threads[-1]=${threads[-1]%,}
build() { # NAME SOURCE [pthreads]
    local extra=()
    [ "${3:-}" = pthreads ] && extra=("${threads[@]}")
    "${wasi[@]}" -include "$here/test_port.h" -I "$LS/inc" -I "$S/inc" -o "$out/$1.wasm" "$2" \
        "$LS/src/wasi/wasi_socket_ext.c" "$out/errno_location.o" "${extra[@]}" "${link[@]}"
}
for app in tcp_client udp_server udp_client socket_opts timeout_server timeout_client addr_resolve \
           multicast_client multicast_server; do
    build "$app" "$S/$app.c"
done
build tcp_server "$S/tcp_server.c" pthreads
build send_recv "$S/send_recv.c" pthreads
build tcp_udp "$LS/test/tcp_udp.c" pthreads
build nslookup "$LS/test/nslookup.c" pthreads
# The native reference for the timeout pair.
for app in timeout_server timeout_client; do
    cc -O2 -include "$here/test_port.h" -o "$out/$app.native" "$S/$app.c"
done

# --- helpers -----------------------------------------------------------------
pool=--addr-pool=127.0.0.1/32,::1/128
limit=(timeout 60)
failed=0

# A port free on 127.0.0.1 and ::1 for both TCP and UDP, different in
# every run.
free_port() {
    python3 - <<'PY'
import socket
while True:
    probe = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    probe.bind(("::1", 0))
    port = probe.getsockname()[1]
    held = [probe]
    try:
        for family, host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
            for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
                if (family, kind) == (socket.AF_INET6, socket.SOCK_STREAM):
                    continue
                s = socket.socket(family, kind)
                held.append(s)
                s.bind((host, port))
    except OSError:
        continue
    finally:
        for s in held:
            s.close()
    print(port)
    break
PY
}

# Waits until a socket of PROTO (tcp: listening; udp: bound) is on PORT.
wait_bound() {
    local hex
    hex=$(printf '%04X' "$2")
    for _ in $(seq 200); do
        if cat "/proc/net/$1" "/proc/net/${1}6" 2>/dev/null |
            awk -v p=":$hex" -v tcp="$([ "$1" = tcp ] && echo 1)" \
                'substr($2, length($2) - 4) == p && (!tcp || $4 == "0A") { found = 1 } END { exit !found }'; then
            return 0
        fi
        sleep 0.05
    done
    echo "  nothing bound to $1 port $2" >&2
    return 1
}

# Starts COMMAND... in the background with its output in $out/NAME.out,
# exit status in $out/NAME.status.
start() {
    local name=$1
    shift
    ( status=0; "${limit[@]}" "$@" > "$out/$name.out" 2> "$out/$name.err" || status=$?
      echo "$status" > "$out/$name.status" ) &
    pids+=($!)
}

# Runs COMMAND... in the foreground, the same way.
run() {
    local name=$1 status=0
    shift
    "${limit[@]}" "$@" > "$out/$name.out" 2> "$out/$name.err" || status=$?
    echo "$status" > "$out/$name.status"
}

# What differs between runs: ephemeral ports, thread ids, and fd numbers
# (WAMR gives a new fd a random free number; we give the lowest).
mask() {
    sed -E -e 's/(127\.0\.0\.1|::1):[0-9]+/\1:PORT/g' -e 's/@ 0x[0-9a-f]+/@ 0x.../' -e 's/#[0-9]+/#N/g'
}

# check NAME WANT-STATUS EXPECTED [sorted]: compares what NAME printed
# (masked, sorted if asked) and its status with EXPECTED (a file).
check() {
    local name=$1 want=$2 expected=$3 how=${4:-} status
    status=$(cat "$out/$name.status" 2>/dev/null || echo "none")
    if [ "$how" = sorted ]; then
        mask < "$out/$name.out" | LC_ALL=C sort > "$out/$name.got"
    else
        mask < "$out/$name.out" > "$out/$name.got"
    fi
    if [ "$bless" = 1 ] && [ "$expected" != "${expected#$here/expected/}" ]; then
        cp "$out/$name.got" "$expected"
    fi
    if [ "$status" = "$want" ] && cmp -s "$out/$name.got" "$expected"; then
        echo "  ok       $name"
    else
        echo "  FAILED   $name (exit $status, want $want)"
        diff -u "$expected" "$out/$name.got" | sed 's/^/    | /' || true
        sed 's/^/    stderr: /' "$out/$name.err"
        failed=$((failed + 1))
    fi
}

# check_err NAME TEXT: NAME's stderr has TEXT.
check_err() {
    if grep -qF -- "$2" "$out/$1.err"; then
        echo "  ok       $1 (stderr: $2)"
    else
        echo "  FAILED   $1: stderr lacks \"$2\""
        sed 's/^/    stderr: /' "$out/$1.err"
        failed=$((failed + 1))
    fi
}

E=$here/expected
echo "WAMR's socket apps through $IWASM:"
cd "$out"

# --- timeouts: started first, their servers sleep 10 s -------------------------
tport=$(free_port)
nport=$(free_port)
start timeout_server "$IWASM" "$pool" --env=CW_TEST_PORT="$tport" timeout_server.wasm
start timeout_server.native env CW_TEST_PORT="$nport" ./timeout_server.native
wait_bound tcp "$tport"
wait_bound tcp "$nport"
run timeout_client "$IWASM" "$pool" --env=CW_TEST_PORT="$tport" timeout_client.wasm
run timeout_client.native env CW_TEST_PORT="$nport" ./timeout_client.native

# --- tcp and udp, IPv4 and IPv6 -----------------------------------------------
for family in inet inet6; do
    args=()
    [ "$family" = inet6 ] && args=(inet6)
    port=$(free_port)
    start "tcp_server.$family" "$IWASM" "$pool" --env=CW_TEST_PORT="$port" tcp_server.wasm "${args[@]}"
    wait_bound tcp "$port"
    for i in 1 2 3 4 5; do
        run "tcp_client.$family.$i" "$IWASM" "$pool" --env=CW_TEST_PORT="$port" tcp_client.wasm "${args[@]}"
    done
    port=$(free_port)
    start "udp_server.$family" "$IWASM" "$pool" --env=CW_TEST_PORT="$port" udp_server.wasm "${args[@]}"
    wait_bound udp "$port"
    for i in 1 2 3 4 5; do
        run "udp_client.$family.$i" "$IWASM" "$pool" --env=CW_TEST_PORT="$port" udp_client.wasm "${args[@]}"
    done
done

# --- single programs -----------------------------------------------------------
run send_recv "$IWASM" "$pool" --env=CW_TEST_PORT="$(free_port)" send_recv.wasm
run socket_opts "$IWASM" socket_opts.wasm
run tcp_udp "$IWASM" "$pool" --env=CW_TEST_PORT="$(free_port)" tcp_udp.wasm
run addr_resolve "$IWASM" --allow-resolve=localhost addr_resolve.wasm localhost
run addr_resolve.refused "$IWASM" addr_resolve.wasm localhost
run nslookup.refused "$IWASM" nslookup.wasm
(limit=(timeout 10); run tcp_server.stopped "$IWASM" "$pool" --timeout=500 --env=CW_TEST_PORT="$(free_port)" tcp_server.wasm)

wait "${pids[@]}" 2>/dev/null || true
pids=()

# --- checks --------------------------------------------------------------------
for family in inet inet6; do
    for i in 1 2 3 4 5; do
        check "tcp_client.$family.$i" 0 "$E/tcp_client.$family.txt"
        check "udp_client.$family.$i" 0 "$E/udp_client.txt"
    done
    check "tcp_server.$family" 0 "$E/tcp_server.$family.sorted.txt" sorted
    check "udp_server.$family" 0 "$E/udp_server.$family.txt"
done
check send_recv 0 "$E/send_recv.sorted.txt" sorted
check socket_opts 0 "$E/socket_opts.txt"
check tcp_udp 0 "$E/tcp_udp.txt"
check addr_resolve 0 "$E/addr_resolve.txt"
check addr_resolve.refused 255 /dev/null
check_err addr_resolve.refused "getaddrinfo: Permission denied"
check nslookup.refused 1 "$E/nslookup.refused.txt"
check_err nslookup.refused "getaddrinfo failed: EAI_SYSTEM (Permission denied)"
check tcp_server.stopped 1 "$E/tcp_server.stopped.txt"
check timeout_server 0 "$E/timeout_server.txt"
native_status=$(cat timeout_client.native.status)
mask < timeout_client.native.out > timeout_client.native.expected
check timeout_client "$native_status" "$out/timeout_client.native.expected"
grep -q "Waiting on send, which should timeout" timeout_client.out ||
    { echo "  FAILED   timeout_client: its receive did not time out"; failed=$((failed + 1)); }
[ "$native_status" = 0 ] || echo "  note     the timeout pair's send check fails natively here too" \
    "(net.core.wmem_max $(cat /proc/sys/net/core/wmem_max 2>/dev/null || echo '?'))"

if [ "$failed" != 0 ]; then
    echo "WAMR socket apps: $failed FAILED"
    exit 1
fi
echo "WAMR socket apps: all passed"
