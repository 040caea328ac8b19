#!/usr/bin/env python3
"""A TCP echo over loopback (benches/harness/echo.c): the same C program
built natively and for wasm32-wasi with WAMR's lib-socket, its server and
client run as two processes of ours (`iwasm`), of native code and, with
PEER_IWASM, of WAMR's `iwasm`, in one run, as ratios (these machines are
noisy: read the ratios).

    python3 benches/socket_echo.py            # builds what it needs
    PEER_IWASM=/path/to/wamr/iwasm python3 benches/socket_echo.py

Cases: `rtt_64` is 64-byte messages, one at a time (round-trip time, a
measure of the cost of each socket call: us per round trip); `mbps_64k`
is 64 KiB messages (throughput one way, MB/s). Each side's client times
its own loop, after a warm-up, so start-up and compilation are not
counted. Sides alternate, REPS (default 7) runs each, and the best run of
each side is reported: on a shared 2-core machine a round trip is mostly
two wake-ups, which other work delays at random, and the best run is the
least disturbed (the median is printed too). Only loopback is used: the server listens on 127.0.0.1 and the
wasm sides run with --addr-pool=127.0.0.1/32.
"""

import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "target" / "socket-bench"
LIB_SOCKET = ROOT / "../shared/clients/wamr-samples/core/iwasm/libraries/lib-socket"
REPS = int(os.environ.get("REPS", "7"))
CASES = [("rtt_64", 64, int(os.environ.get("RTT_N", "20000"))), ("mbps_64k", 65536, int(os.environ.get("BULK_N", "3000")))]


def sh(*cmd):
    subprocess.run(cmd, check=True, cwd=ROOT)


def build():
    BUILD.mkdir(parents=True, exist_ok=True)
    src = "benches/harness/echo.c"
    sh("cc", "-O2", "-o", str(BUILD / "echo"), src)
    sh("clang", "--target=wasm32-wasi", "-O2", "-I", str(LIB_SOCKET / "inc"), "-o", str(BUILD / "echo.wasm"), src,
       str(LIB_SOCKET / "src/wasi/wasi_socket_ext.c"), "tests/wamr-sockets/errno_location.c")
    sh("cargo", "build", "--release", "-q", "-p", "cranewasm-cli")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port):
    """Whether something listens on 127.0.0.1:PORT (from /proc, without
    connecting: the server takes one connection)."""
    want = f"0100007F:{port:04X}"
    with open("/proc/net/tcp") as f:
        return any(line.split()[1] == want and line.split()[3] == "0A" for line in f.readlines()[1:])


def run_pair(prefix, size, n):
    """(us per round trip, MB/s) of one server/client run of PREFIX."""
    port = free_port()
    server = subprocess.Popen(prefix + ["server", str(port)])
    try:
        deadline = time.time() + 30
        while not listening(port):
            if server.poll() is not None or time.time() > deadline:
                raise RuntimeError(f"{prefix[0]}: the server did not start")
            time.sleep(0.01)
        out = subprocess.run(prefix + ["client", str(port), str(size), str(n)], check=True, capture_output=True,
                             text=True, timeout=300).stdout
        server.wait(timeout=30)
    finally:
        if server.poll() is None:
            server.kill()
    _, rtt, mbps = next(line for line in out.splitlines() if line.startswith("RESULT")).split()
    return float(rtt), float(mbps)


def main():
    build()
    wasm = str(BUILD / "echo.wasm")
    sides = {
        "ours": [str(ROOT / "target/release/iwasm"), "--addr-pool=127.0.0.1/32", wasm],
        "native": [str(BUILD / "echo")],
    }
    peer = os.environ.get("PEER_IWASM")
    if peer:
        sides["wamr"] = [peer, "--addr-pool=127.0.0.1/32", wasm]
    else:
        print("NOTE: no PEER_IWASM given: the WAMR column is empty", file=sys.stderr)
    results = {(side, case): [] for side in sides for case, _, _ in CASES}
    for _ in range(REPS):
        for case, size, n in CASES:
            for side, prefix in sides.items():
                rtt, mbps = run_pair(prefix, size, n)
                results[(side, case)].append(rtt if case.startswith("rtt") else mbps)
    rtt = [case for case, _, _ in CASES if case.startswith("rtt")]
    best = {k: (min(v) if k[1] in rtt else max(v)) for k, v in results.items()}
    med = {k: statistics.median(v) for k, v in results.items()}
    head = f"{'case':<10} {'unit':<8} {'ours':>9} {'native':>9} {'wamr':>9} {'ours/native':>12} {'ours/wamr':>10}"
    for title, figures in (("best", best), ("median", med)):
        print(f"{title} of {REPS} runs each, sides alternating (ratios are time ratios: above 1 is slower)")
        print(head)
        for case, _, _ in CASES:
            unit = "us/rtt" if case in rtt else "MB/s"
            o, n = figures[("ours", case)], figures[("native", case)]
            w = figures.get(("wamr", case))
            slow = (lambda a, b: a / b) if case in rtt else (lambda a, b: b / a)
            wamr = f"{w:9.2f}" if w is not None else f"{'-':>9}"
            vs_wamr = f"{slow(o, w):10.3f}" if w is not None else f"{'-':>10}"
            print(f"{case:<10} {unit:<8} {o:9.2f} {n:9.2f} {wamr} {slow(o, n):12.3f} {vs_wamr}")


if __name__ == "__main__":
    main()
