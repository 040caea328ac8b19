#!/usr/bin/env python3
"""Runs the WAMR-binding tests (tests/python) under valgrind and fails on any
memory error or leak that involves our library.

usage: tests/python/valgrind.py path/to/libiwasm.so [PYTEST ARGS...]

The tests run through ../shared/clients/run-wamr-python.sh with the real
interpreter (not a pyenv shim, which valgrind would watch instead) and
PYTHONMALLOC=malloc, so that valgrind sees every allocation. Valgrind writes
one XML report per process (the tests fork children for checks that may
crash); this script reads them all and counts:

- every invalid read, write, free or jump, wherever it happens: CPython with
  the plain allocator makes none, and a use after free of memory our library
  released shows up in the interpreter or ctypes;
- uses of uninitialised values only when a frame of the use or of the
  value's origin is in libiwasm.so or in JIT code (no object file): CPython's
  own reports of that kind (reference counts of static objects at start-up)
  are not ours to fix;
- definite leaks only when the allocation came through libiwasm.so: the
  interpreter leaks its own locks and state at exit, and forked children
  leave through os._exit.

Nothing is suppressed: under valgrind the library checks memory bounds
explicitly, so out-of-bounds accesses trap without touching a guard page
(README, "Under valgrind"). --track-origins=yes names where an uninitialised
value came from, so that one our library hands to CPython is attributed to
the allocation or stack frame that made it. The ignored reports are counted
by kind in the summary, so a change in CPython's noise stays visible.
"""
import collections
import glob
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ALWAYS = {"InvalidRead", "InvalidWrite", "InvalidFree", "MismatchedFree", "InvalidJump", "InvalidMemPool", "Overlap",
          "SyscallParam", "FishyValue"}
UNINIT = {"UninitValue", "UninitCondition"}
LEAK = {"Leak_DefinitelyLost"}


def frames(error):
    """(object file, function) of every frame of every stack of a report."""
    for stack in error.iter("stack"):
        for frame in stack.iter("frame"):
            yield frame.findtext("obj") or "", frame.findtext("fn") or ""


def ours(error):
    return any("libiwasm" in obj for obj, _ in frames(error))


def in_jit_code(error):
    return any(not obj for obj, _ in frames(error))


def counts(error):
    kind = error.findtext("kind")
    if kind in ALWAYS:
        return True
    if kind in UNINIT:
        return ours(error) or in_jit_code(error)
    if kind in LEAK:
        return ours(error)
    return kind not in {"Leak_PossiblyLost", "Leak_StillReachable", "Leak_IndirectlyLost"}


def describe(error):
    """The report as text: what happened, then each stack under the line
    that introduces it (with --track-origins, the origin of an uninitialised
    value is a second stack)."""
    lines = [error.findtext("what") or error.findtext("xwhat/text") or error.findtext("kind")]
    for part in error:
        if part.tag in ("auxwhat", "xauxwhat"):
            lines.append("  " + (part.text if part.tag == "auxwhat" else part.findtext("text") or ""))
        elif part.tag == "stack":
            for frame in list(part.iter("frame"))[:25]:
                obj, fn = frame.findtext("obj") or "", frame.findtext("fn") or "???"
                lines.append(f"    {fn}  ({os.path.basename(obj) or 'no object: JIT code?'})")
    return "\n".join(lines)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    lib, pytest_args = sys.argv[1], sys.argv[2:] or ["-q", os.path.join(ROOT, "tests", "python")]
    with tempfile.TemporaryDirectory() as out:
        command = [
            os.path.join(ROOT, "..", "shared", "clients", "run-wamr-python.sh"), lib,
            "valgrind", "-q", "--xml=yes", f"--xml-file={out}/vg.%p.xml", "--smc-check=all-non-file",
            "--leak-check=full", "--show-leak-kinds=definite", "--num-callers=40", "--track-origins=yes",
            os.path.realpath(sys.executable), "-m", "pytest", "-p", "no:cacheprovider", *pytest_args,
        ]
        env = dict(os.environ, PYTHONMALLOC="malloc")
        status = subprocess.run(command, env=env, cwd=ROOT).returncode
        counted, ignored, processes, execed = [], collections.Counter(), 0, 0
        for path in sorted(glob.glob(f"{out}/vg.*.xml")):
            processes += 1
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            if "</valgrindoutput>" not in text:
                # A child that forked and then ran another program (which
                # valgrind does not follow) leaves only the preamble.
                execed += 1
                text += "</valgrindoutput>"
            try:
                root = ET.fromstring(text)
            except ET.ParseError:
                name = os.path.basename(path)
                counted.append(("Died", (name,), f"report {name} cut short: the process died under valgrind"))
                continue
            for error in root.iter("error"):
                if counts(error):
                    counted.append((error.findtext("kind"), tuple(frames(error)), describe(error)))
                else:
                    ignored[error.findtext("kind")] += 1
    # A forked child inherits its parent's heap, so a leak made before the
    # fork is reported again by every later child: show each report once.
    seen = collections.Counter(key[:2] for key in counted)
    for kind, stack, report in counted:
        if seen.pop((kind, stack), 0):
            print(f"valgrind: {report}\n", file=sys.stderr)
    noise = ", ".join(f"{n} {kind}" for kind, n in sorted(ignored.items())) or "none"
    print(f"valgrind over tests/python: {processes} processes ({execed} ran another program), {len(counted)} "
          f"errors involving libiwasm.so or JIT code (ignored, CPython's own: {noise})")
    if status != 0:
        sys.exit(f"pytest under valgrind failed (exit {status})")
    if counted or processes == 0:
        sys.exit(1)


if __name__ == "__main__":
    main()
