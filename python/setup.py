"""Bundles the C library into the package at build time.

The library is ``$CRANEWASM_LIB`` or the release build of this source tree
(``cargo build --release -p cranewasm-capi``); building without either
fails with that instruction, so a wheel never ships without its library.
"""

import os
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        here = Path(__file__).resolve().parent
        lib = Path(os.environ.get("CRANEWASM_LIB") or here.parent / "target" / "release" / "libiwasm.so")
        if not lib.is_file():
            raise SystemExit(f"cranewasm: {lib} not found; run `cargo build --release -p cranewasm-capi` first")
        dest = Path(self.build_lib) / "cranewasm" / "libiwasm.so"
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(lib, dest)


setup(cmdclass={"build_py": BuildWithLibrary})
