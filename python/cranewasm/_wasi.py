"""WASI settings of a module's instances.

The C library links a module's WASI imports itself when an ``Instance`` is
made without them, as WAMR does; what those functions may see comes from
the module's settings, which ``Module.wasi`` sets through WAMR's
``wasm_runtime_set_wasi_args_ex``, ``wasm_runtime_set_wasi_addr_pool`` and
``wasm_runtime_set_wasi_ns_lookup_pool``."""

import ctypes as c
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

from . import _ffi as f


@dataclass
class WasiConfig:
    """What a WASI guest may see and reach.

    ``argv`` (its first item is the program's name), ``env``, ``dirs``
    (host directories, seen under their own names), ``map_dirs`` (guest
    path to host path), and the host fds behind its ``stdin``, ``stdout``
    and ``stderr`` (None: the process's own). ``addr_pool`` lists the
    ``ADDRESS/MASK`` ranges its sockets may bind, connect and send to
    (none: no socket may), ``allow_resolve`` the names it may look up
    (``"*.example.com"`` for a suffix, ``"*"`` for any); both as WAMR's
    ``--addr-pool`` and ``--allow-resolve``. A malformed pool entry makes
    instantiation fail with WAMR's message."""

    argv: Sequence[str] = ()
    env: Dict[str, str] = field(default_factory=dict)
    dirs: Sequence[str] = ()
    map_dirs: Dict[str, str] = field(default_factory=dict)
    stdin: Optional[int] = None
    stdout: Optional[int] = None
    stderr: Optional[int] = None
    addr_pool: Sequence[str] = ()
    allow_resolve: Sequence[str] = ()

    def _apply(self, runtime_module: int) -> None:
        """Sets these on the module of ``wasm_export.h`` (``*module``);
        the library copies every string."""

        def strings(items: List[str]):
            arr = (c.c_char_p * max(len(items), 1))(*[s.encode() for s in items])
            return arr, len(items)

        dirs, n_dirs = strings(list(self.dirs))
        maps, n_maps = strings([f"{g}::{h}" for g, h in self.map_dirs.items()])
        env, n_env = strings([f"{k}={v}" for k, v in self.env.items()])
        argv, argc = strings(list(self.argv))
        fd = (lambda x: -1 if x is None else int(x))
        f.wasm_runtime_set_wasi_args_ex(runtime_module, dirs, n_dirs, maps, n_maps, env, n_env, argv, argc,
                                        fd(self.stdin), fd(self.stdout), fd(self.stderr))
        pool, n_pool = strings(list(self.addr_pool))
        f.wasm_runtime_set_wasi_addr_pool(runtime_module, pool, n_pool)
        names, n_names = strings(list(self.allow_resolve))
        f.wasm_runtime_set_wasi_ns_lookup_pool(runtime_module, names, n_names)
