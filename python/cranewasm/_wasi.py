"""WASI settings of a module's instances, and running a WASI program.

The C library links a module's WASI imports itself (as WAMR does); what
those functions may see comes from the module's settings, which a
``Linker`` with ``define_wasi(config)`` (or ``Module.wasi = config``) sets
before each instantiation through WAMR's ``wasm_runtime_set_wasi_args_ex``,
``_set_wasi_addr_pool`` and ``_set_wasi_ns_lookup_pool``, and cranewasm's
``cranewasm_module_set_wasi_readonly_dirs``. Captured streams are
temporary files whose fds the library duplicates for the instance."""

import ctypes as c
import os
import tempfile
from typing import IO, TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import _ffi as f
from ._error import WasiExit, WasmError

if TYPE_CHECKING:
    from ._instance import Instance


class _Capture:
    """The marker of a captured stream (``cranewasm.CAPTURE``)."""

    def __repr__(self) -> str:
        return "CAPTURE"


CAPTURE = _Capture()
"""Give it as ``stdout`` or ``stderr`` to collect what the guest writes
(``WasiConfig.stdout_bytes`` / ``stderr_bytes``)."""

StrPath = Union[str, "os.PathLike[str]"]
Stdin = Union[None, int, bytes, StrPath]
Stdout = Union[None, int, _Capture, StrPath]


class WasiConfig:
    """What a WASI guest may see and reach, and how its run went::

        wasi = WasiConfig(argv=["prog", "x"], env={"K": "v"}, stdout=CAPTURE)
        wasi.preopen_dir("/tmp/data", "/data", readonly=True)
        linker.define_wasi(wasi)
        code = wasi.start(linker.instantiate(store, module))
        print(wasi.stdout_bytes)

    ``argv`` (its first item is the program's name), ``env``, ``dirs``
    (host directories, seen under their own names), ``map_dirs`` (guest
    path to host path), ``readonly_dirs`` (the same, read-only: the guest
    may list and read there, never write). ``stdin``: None (the process's),
    an fd, a file path, or bytes to read; ``stdout``/``stderr``: None (the
    process's), an fd, a file path (created or truncated), or ``CAPTURE``.
    ``addr_pool`` lists the ``ADDRESS/MASK`` ranges its sockets may reach
    (none: no socket may), ``allow_resolve`` the names it may look up
    (WAMR's ``--addr-pool`` and ``--allow-resolve``). A malformed pool
    entry or a directory that does not open makes instantiation fail."""

    def __init__(self, argv: Sequence[str] = (), env: Optional[Mapping[str, str]] = None, dirs: Sequence[str] = (),
                 map_dirs: Optional[Mapping[str, str]] = None, readonly_dirs: Optional[Mapping[str, str]] = None,
                 stdin: Stdin = None, stdout: Stdout = None, stderr: Stdout = None,
                 addr_pool: Sequence[str] = (), allow_resolve: Sequence[str] = ()) -> None:
        self.argv: List[str] = list(argv)
        self.env: Dict[str, str] = dict(env or {})
        self.dirs: List[str] = list(dirs)
        self.map_dirs: Dict[str, str] = dict(map_dirs or {})
        self.readonly_dirs: Dict[str, str] = dict(readonly_dirs or {})
        self.stdin, self.stdout, self.stderr = stdin, stdout, stderr
        self.addr_pool: List[str] = list(addr_pool)
        self.allow_resolve: List[str] = list(allow_resolve)
        # The files behind the streams, made at the first instantiation.
        self._files: Dict[int, IO[bytes]] = {}

    def preopen_dir(self, host: StrPath, guest: Optional[str] = None, readonly: bool = False) -> None:
        """Lets the guest reach host directory ``host`` as ``guest`` (default:
        the host path), read-only if ``readonly``."""
        host = os.fspath(host)
        (self.readonly_dirs if readonly else self.map_dirs)[guest or host] = host

    def _fd(self, index: int, spec: Any) -> int:
        """The host fd behind stream ``index`` (-1: the process's own)."""
        if spec is None:
            return -1
        if isinstance(spec, int) and not isinstance(spec, bool):
            return spec
        fh = self._files.get(index)
        if fh is None:
            if isinstance(spec, _Capture):
                if index == 0:
                    raise ValueError("stdin cannot be CAPTURE: give bytes, a path or an fd")
                fh = tempfile.TemporaryFile()
            elif isinstance(spec, bytes):
                if index != 0:
                    raise ValueError("bytes are for stdin; capture output with CAPTURE")
                fh = tempfile.TemporaryFile()
                fh.write(spec)
                fh.seek(0)
            elif isinstance(spec, (str, os.PathLike)):
                fh = open(os.fspath(spec), "rb" if index == 0 else "wb")
            else:
                raise TypeError(f"a WASI stream is None, an fd, a path, bytes (stdin) or CAPTURE, not {spec!r}")
            self._files[index] = fh
        return fh.fileno()

    def _captured(self, index: int) -> bytes:
        spec = self.stdout if index == 1 else self.stderr
        if not isinstance(spec, _Capture):
            raise ValueError(f"{'stdout' if index == 1 else 'stderr'} is not captured (give CAPTURE)")
        fh = self._files.get(index)
        if fh is None:
            return b""
        fd = fh.fileno()
        # pread: the instance's copy of the fd shares the offset.
        return os.pread(fd, os.fstat(fd).st_size, 0)

    @property
    def stdout_bytes(self) -> bytes:
        """What the guests made with this configuration wrote to stdout (with ``stdout=CAPTURE``)."""
        return self._captured(1)

    @property
    def stderr_bytes(self) -> bytes:
        """What they wrote to stderr (with ``stderr=CAPTURE``)."""
        return self._captured(2)

    def start(self, instance: "Instance") -> int:
        """Runs the WASI program ``instance`` (its ``_start`` export) and
        returns its exit status: 0 when ``_start`` returns, else what it
        gave ``proc_exit``. A trap raises ``Trap``."""
        from ._func import Func  # here: _func imports the modules this one is imported by
        start = instance.exports["_start"] if "_start" in instance.exports else None
        if not isinstance(start, Func):
            raise WasmError("the instance has no _start function: not a WASI command")
        try:
            start()
        except WasiExit as e:
            return e.code
        return 0

    def _apply(self, runtime_module: int) -> None:
        """Sets these on the module of ``wasm_export.h`` (``*module``);
        the library copies every string."""

        def strings(items: List[str]) -> Tuple[Any, int]:
            arr = (c.c_char_p * max(len(items), 1))(*[s.encode() for s in items])
            return arr, len(items)

        dirs, n_dirs = strings(list(self.dirs))
        maps, n_maps = strings([f"{g}::{h}" for g, h in self.map_dirs.items()])
        env, n_env = strings([f"{k}={v}" for k, v in self.env.items()])
        argv, argc = strings(list(self.argv))
        fds = [self._fd(i, s) for i, s in enumerate((self.stdin, self.stdout, self.stderr))]
        f.wasm_runtime_set_wasi_args_ex(runtime_module, dirs, n_dirs, maps, n_maps, env, n_env, argv, argc, *fds)
        ro, n_ro = strings([f"{g}::{h}" for g, h in self.readonly_dirs.items()])
        f.cranewasm_module_set_wasi_readonly_dirs(runtime_module, ro, n_ro)
        pool, n_pool = strings(list(self.addr_pool))
        f.wasm_runtime_set_wasi_addr_pool(runtime_module, pool, n_pool)
        names, n_names = strings(list(self.allow_resolve))
        f.wasm_runtime_set_wasi_ns_lookup_pool(runtime_module, names, n_names)

    def __repr__(self) -> str:
        fields = ["argv", "env", "dirs", "map_dirs", "readonly_dirs", "stdin", "stdout", "stderr", "addr_pool",
                  "allow_resolve"]
        shown = ", ".join(f"{k}={getattr(self, k)!r}" for k in fields if getattr(self, k))
        return f"WasiConfig({shown})"
