"""Builds the C library (``capi/``, ``libiwasm.so``) with cargo and bundles
it into the package, so ``pip install ./python`` works on a fresh clone.

setuptools-rust rather than maturin: the library is a plain cdylib with no
Python bindings (the package loads it with ctypes), which setuptools-rust
supports as ``Binding.NoBinding``, next to a pure-Python package laid out
as setuptools expects; maturin is built around one PyO3/cffi module per
crate and would have to own the package layout. The crate lives outside
this folder (``../capi``), which pip's in-tree builds (``pip install
./python``, ``pip wheel ./python``) reach.

``CRANEWASM_LIB=/path/to/libiwasm.so`` skips cargo and bundles that file.
Either way the wheel carries native code, so it is tagged for this
platform (``py3-none-<platform>``: any Python 3, as ctypes needs no ABI).
"""

import os
import shutil
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py
from setuptools_rust import Binding, RustExtension
from setuptools_rust.build import build_rust

try:  # setuptools >= 70.1 has its own
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:
    from wheel.bdist_wheel import bdist_wheel

HERE = Path(__file__).resolve().parent
LIB = "libiwasm.so"


class BuildRust(build_rust):  # type: ignore[misc]
    """Installs the library as ``cranewasm/libiwasm.so`` (not with a
    CPython extension-module suffix: it is no extension module)."""

    def get_dylib_ext_path(self, ext: RustExtension, target_fname: str) -> str:
        path = Path(super().get_dylib_ext_path(ext, target_fname))
        return str(path.parent / LIB)


class BuildPyWithGivenLibrary(build_py):
    """With ``CRANEWASM_LIB``, bundles that library instead of building one."""

    def run(self) -> None:
        super().run()
        given = os.environ.get("CRANEWASM_LIB")
        if given:
            if not Path(given).is_file():
                raise SystemExit(f"cranewasm: CRANEWASM_LIB={given} is not a file")
            dest = Path(self.build_lib) / "cranewasm" / LIB
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(given, dest)


class PlatformWheel(bdist_wheel):  # type: ignore[misc]
    def finalize_options(self) -> None:
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self) -> "tuple[str, str, str]":
        _, _, plat = super().get_tag()
        return "py3", "none", plat


class BinaryDistribution(Distribution):
    def has_ext_modules(self) -> bool:
        return True


manifest = HERE.parent / "capi" / "Cargo.toml"
if not os.environ.get("CRANEWASM_LIB") and not manifest.is_file():
    raise SystemExit(f"cranewasm: {manifest} not found: build from the source tree (pip install ./python), "
                     "or set CRANEWASM_LIB to a built libiwasm.so")

setup(
    distclass=BinaryDistribution,
    cmdclass={"build_rust": BuildRust, "build_py": BuildPyWithGivenLibrary, "bdist_wheel": PlatformWheel},
    rust_extensions=[] if os.environ.get("CRANEWASM_LIB") else [
        RustExtension("cranewasm.libiwasm", path=os.path.relpath(manifest), binding=Binding.NoBinding, debug=False)
    ],
)
