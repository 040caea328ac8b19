"""Engine, store, module, instance and the four kinds of externals.

Ownership: every object created in a store belongs to it in the C library
(``wasm_store_delete`` frees whatever is left). A Python wrapper keeps its
``Store`` alive and frees its own C object when collected, unless the store
is already gone (then the store freed it). So no drop order, collection
order or interpreter exit can free anything twice or use it after free.
"""

import atexit
import builtins
import ctypes as c
import weakref
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Union

from . import _ffi as f
from .types import ExportType, FuncType, GlobalType, ImportType, MemoryType, TableType, ValType, extern_type


class WasmError(Exception):
    """A module that does not load, or an instantiation that fails."""


class Frame:
    """One wasm frame of a trap's backtrace, innermost first."""

    def __init__(self, func_index: int, func_offset: int, module_offset: int):
        self.func_index, self.func_offset, self.module_offset = func_index, func_offset, module_offset

    def __repr__(self) -> str:
        return f"Frame(func_index={self.func_index}, func_offset={self.func_offset:#x}, module_offset={self.module_offset:#x})"


class Trap(Exception):
    """A trap: ``message`` (e.g. ``Exception: integer divide by zero``) and
    ``frames``."""

    def __init__(self, message: str, frames: Sequence[Frame] = ()):
        super().__init__(message)
        self.message = message
        self.frames = list(frames)

    @classmethod
    def _take(cls, ptr) -> "Trap":
        """Reads a C trap and deletes it."""
        msg = f.Vec()
        f.wasm_trap_message(ptr, c.byref(msg))
        text = f.name_str(msg)
        f.wasm_byte_vec_delete(c.byref(msg))
        trace = f.Vec()
        f.wasm_trap_trace(ptr, c.byref(trace))
        frames = [Frame(f.wasm_frame_func_index(p), f.wasm_frame_func_offset(p), f.wasm_frame_module_offset(p))
                  for p in f.elems(trace)]
        f.wasm_frame_vec_delete(c.byref(trace))
        f.wasm_trap_delete(ptr)
        return cls(text, frames)

    def __repr__(self) -> str:
        return f"Trap({self.message!r}, frames={self.frames!r})"


class Engine:
    """The compilation engine (one per process in the C library, counted)."""

    def __init__(self):
        self._ptr = f.wasm_engine_new()
        if not self._ptr:
            raise WasmError("wasm_engine_new failed")

    def __del__(self):
        if getattr(self, "_ptr", None):
            f.wasm_engine_delete(self._ptr)
            self._ptr = None

    def __repr__(self) -> str:
        return "Engine()"


class Store:
    """Owns everything created in it: instances, functions, memories, ..."""

    def __init__(self, engine: Engine):
        if not isinstance(engine, Engine):
            raise TypeError(f"expected an Engine, got {engine!r}")
        self.engine = engine
        self._ptr = f.wasm_store_new(engine._ptr)
        _STORES.add(self)
        # externref values: the C side carries an opaque pointer; here it
        # is a key into this table, so the same object comes back.
        self._externs: Dict[int, Any] = {}
        self._extern_keys: Dict[int, int] = {}

    def _live(self):
        if not self._ptr:
            raise ValueError("the store is closed")
        return self._ptr

    def _extern_key(self, obj) -> int:
        key = self._extern_keys.get(id(obj))
        if key is None:
            key = len(self._externs) + 1
            self._externs[key] = obj
            self._extern_keys[id(obj)] = key
        return key

    def close(self) -> None:
        """Frees the store and everything in it now (also done when it is
        collected)."""
        if getattr(self, "_ptr", None):
            f.wasm_store_delete(self._ptr)
            self._ptr = None

    __del__ = close

    def __repr__(self) -> str:
        return f"Store({'open' if self._ptr else 'closed'})"


# Live stores, closed at interpreter exit while Python is still whole:
# deleting a store runs host functions' finalizers, which call back into
# Python, and later, during module teardown, that could find half the
# interpreter gone.
_STORES: "weakref.WeakSet[Store]" = weakref.WeakSet()


@atexit.register
def _close_stores() -> None:
    for store in list(_STORES):
        store.close()


class _InStore:
    """A C object of a store, freed by ``_free`` unless the store went first."""

    _free = None

    def __init__(self, store: Store, ptr):
        self.store = store
        self._ptr = ptr

    def __del__(self):
        store = getattr(self, "store", None)
        if getattr(self, "_ptr", None) and store is not None and store._ptr:
            type(self)._free(self._ptr)
        self._ptr = None


def _wasm_bytes(wasm: Union[bytes, bytearray, str]) -> bytes:
    if isinstance(wasm, str):
        text = wasm.encode()
        out = f.Vec()
        if not f.cranewasm_wat2wasm(text, len(text), c.byref(out)):
            raise WasmError("invalid WebAssembly text (details on stderr)")
        data = f.vec_bytes(out)
        f.wasm_byte_vec_delete(c.byref(out))
        return data
    if isinstance(wasm, (bytes, bytearray, memoryview)):
        return bytes(wasm)
    raise TypeError(f"expected WebAssembly bytes or text, got {type(wasm).__name__}")


class Module:
    """A compiled module: ``Module(engine, wasm_bytes_or_wat_text)``.

    The C API compiles modules in a store; the module keeps a private one,
    and can be instantiated in any store of the same engine."""

    def __init__(self, engine: Engine, wasm: Union[bytes, str]):
        data = _wasm_bytes(wasm)
        self._store = Store(engine)
        vec = f.byte_vec(data)
        self._ptr = f.wasm_module_new(self._store._ptr, c.byref(vec))
        f.wasm_byte_vec_delete(c.byref(vec))
        if not self._ptr:
            raise WasmError("invalid module (the reason is on stderr)")

    @property
    def engine(self) -> Engine:
        return self._store.engine

    @classmethod
    def from_file(cls, engine: Engine, path) -> "Module":
        """Loads a ``.wasm`` (or ``.wat``) file."""
        with open(path, "rb") as fh:
            data = fh.read()
        return cls(engine, data if data.startswith(b"\0asm") else data.decode())

    @staticmethod
    def validate(engine: Engine, wasm: bytes) -> bool:
        """Whether ``wasm`` is a valid module."""
        store = Store(engine)
        vec = f.byte_vec(bytes(wasm))
        ok = f.wasm_module_validate(store._ptr, c.byref(vec))
        f.wasm_byte_vec_delete(c.byref(vec))
        return bool(ok)

    @property
    def imports(self) -> List[ImportType]:
        vec = f.Vec()
        f.wasm_module_imports(self._ptr, c.byref(vec))
        out = [ImportType(f.name_str(f.wasm_importtype_module(p)), f.name_str(f.wasm_importtype_name(p)),
                          extern_type(f.wasm_externtype_copy(f.wasm_importtype_type(p)))) for p in f.elems(vec)]
        f.wasm_importtype_vec_delete(c.byref(vec))
        return out

    @property
    def exports(self) -> List[ExportType]:
        vec = f.Vec()
        f.wasm_module_exports(self._ptr, c.byref(vec))
        out = [ExportType(f.name_str(f.wasm_exporttype_name(p)),
                          extern_type(f.wasm_externtype_copy(f.wasm_exporttype_type(p)))) for p in f.elems(vec)]
        f.wasm_exporttype_vec_delete(c.byref(vec))
        return out

    def serialize(self) -> bytes:
        vec = f.Vec()
        f.wasm_module_serialize(self._ptr, c.byref(vec))
        data = f.vec_bytes(vec)
        f.wasm_byte_vec_delete(c.byref(vec))
        return data

    @classmethod
    def deserialize(cls, engine: Engine, data: bytes) -> "Module":
        m = cls.__new__(cls)
        m._store = Store(engine)
        vec = f.byte_vec(bytes(data))
        m._ptr = f.wasm_module_deserialize(m._store._ptr, c.byref(vec))
        f.wasm_byte_vec_delete(c.byref(vec))
        if not m._ptr:
            raise WasmError("not a serialized module of this runtime")
        return m

    def __del__(self):
        if getattr(self, "_ptr", None) and self._store._ptr:
            f.wasm_module_delete(self._ptr)
        self._ptr = None

    def __repr__(self) -> str:
        return f"Module(imports={len(self.imports)}, exports={len(self.exports)})"


# --- values -------------------------------------------------------------------

def _to_c(store: Store, kind: int, value, keep: list) -> f.Val:
    """A ``wasm_val_t`` of ``kind`` for a Python value; buffers it needs go
    to ``keep``."""
    v = f.Val()
    v.kind = kind
    try:
        if kind == f.I32:
            v.of.i32 = _int(value, 32)
        elif kind == f.I64:
            v.of.i64 = _int(value, 64)
        elif kind == f.F32:
            v.of.f32 = float(value)
        elif kind == f.F64:
            v.of.f64 = float(value)
        elif kind == f.V128:
            buf = (c.c_ubyte * 16).from_buffer_copy(_v128_bytes(value))
            keep.append(buf)
            v.of.ref = c.addressof(buf)
        elif kind == f.EXTERNREF:
            v.of.ref = None if value is None else store._extern_key(value)
        elif kind == f.FUNCREF:
            if value is not None and not isinstance(value, Func):
                raise TypeError(f"a funcref is a Func or None, not {type(value).__name__}")
            v.of.ref = None if value is None else f.wasm_func_as_ref(value._ptr)
    except (TypeError, ValueError, OverflowError) as e:
        raise TypeError(f"cannot pass {value!r} as {ValType(kind)}: {e}") from None
    return v


def _int(value, bits: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("expected an int")
    if not -(1 << (bits - 1)) <= value < (1 << bits):
        raise OverflowError(f"out of range for i{bits}")
    return value - (1 << bits) if value >= 1 << (bits - 1) else value


def _v128_bytes(value) -> bytes:
    if isinstance(value, (bytes, bytearray)) and len(value) == 16:
        return bytes(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 128:
        return value.to_bytes(16, "little")
    raise TypeError("a v128 is 16 bytes or an int in [0, 2**128)")


def _from_c(store: Store, v: f.Val, owned: bool):
    """The Python value of a ``wasm_val_t``. ``owned``: the value was handed
    out to us (its v128 bytes or function object are ours to free)."""
    k = v.kind
    if k == f.I32:
        return v.of.i32
    if k == f.I64:
        return v.of.i64
    if k == f.F32:
        return v.of.f32
    if k == f.F64:
        return v.of.f64
    if k == f.V128:
        value = int.from_bytes(c.string_at(v.of.ref, 16), "little") if v.of.ref else 0
        if owned:
            f.wasm_val_delete(c.byref(v))
        return value
    if k == f.EXTERNREF:
        return None if not v.of.ref else store._externs.get(v.of.ref)
    if k == f.FUNCREF:
        if not v.of.ref:
            return None
        ptr = f.wasm_ref_as_func(v.of.ref)
        return Func._wrap(store, ptr if owned else f.wasm_func_copy(ptr))
    raise TypeError(f"unknown value kind {k}")


def _val_vec(vals: Sequence[f.Val], capacity: int):
    n = max(capacity, len(vals))
    arr = (f.Val * max(n, 1))(*vals)
    return f.Vec(n, c.addressof(arr), len(vals), c.sizeof(f.Val), None), arr


# --- externals ----------------------------------------------------------------

builtins_callable = builtins.callable


class Func(_InStore):
    """A function: exported by an instance, or made from a Python callable::

        Func(store, FuncType([ValType.i32()], [ValType.i32()]), lambda x: x + 1)

    Calling it (``func(1)``) returns None, one value, or a tuple of values;
    a trap raises ``Trap``. An exception in a Python host function becomes
    a trap whose message names it."""

    _free = staticmethod(f.wasm_func_delete)

    def __init__(self, store: Store, ty: FuncType, callable: Callable):
        if not isinstance(store, Store) or not isinstance(ty, FuncType):
            raise TypeError("Func(store, FuncType, callable)")
        if not builtins_callable(callable):
            raise TypeError(f"{callable!r} is not callable")
        key = _HOST.add(store, ty, callable)
        ptr = f.wasm_func_new_with_env(store._live(), ty._ptr, _TRAMPOLINE, key, _FINALIZER)
        if not ptr:
            _HOST.funcs.pop(key, None)
            raise WasmError("wasm_func_new failed")
        super().__init__(store, ptr)

    @classmethod
    def _wrap(cls, store: Store, ptr) -> "Func":
        fn = cls.__new__(cls)
        _InStore.__init__(fn, store, ptr)
        return fn

    @property
    def type(self) -> FuncType:
        return FuncType._wrap(f.wasm_func_type(self._ptr))

    def _kinds(self):
        # A function's type never changes: read it once.
        kinds = self.__dict__.get("_kinds_cache")
        if kinds is None:
            ty = self.type
            kinds = self._kinds_cache = ([p.kind for p in ty.params], [r.kind for r in ty.results])
        return kinds

    def __call__(self, *args):
        store = self.store
        store._live()
        params, results = self._kinds()
        if len(args) != len(params):
            raise TypeError(f"expected {len(params)} arguments, got {len(args)}")
        keep: list = []
        pvec, parr = _val_vec([_to_c(store, k, a, keep) for k, a in zip(params, args)], len(params))
        rvec, rarr = _val_vec((), len(results))
        trap = f.wasm_func_call(self._ptr, c.byref(pvec), c.byref(rvec))
        if trap:
            raise Trap._take(trap)
        if len(results) == 1:
            return _from_c(store, rarr[0], owned=True)
        out = tuple(_from_c(store, rarr[i], owned=True) for i in range(len(results)))
        return out or None

    def __repr__(self) -> str:
        return f"Func({self.type!r})"


class _HostFuncs:
    """Python callables behind host functions, by env key."""

    def __init__(self):
        self.funcs: Dict[int, tuple] = {}
        self.next = 1

    def add(self, store: Store, ty: FuncType, fn: Callable) -> int:
        key = self.next
        self.next += 1
        # The store by weak reference would do, but the C store holds the
        # function until it is deleted, which also finalizes this entry.
        self.funcs[key] = (store, [p.kind for p in ty.params], [r.kind for r in ty.results], fn)
        return key


_HOST = _HostFuncs()


def _host_call(env, args, results):
    entry = _HOST.funcs.get(env)
    if entry is None:
        return None
    store, pkinds, rkinds, fn = entry
    try:
        a = args.contents
        vals = c.cast(a.data, c.POINTER(f.Val)) if a.data else None
        py_args = [_from_c(store, vals[i], owned=False) for i in range(len(pkinds))]
        out = fn(*py_args)
        if len(rkinds) == 0:
            out = ()
        elif len(rkinds) == 1:
            out = (out,)
        elif not isinstance(out, (tuple, list)) or len(out) != len(rkinds):
            raise TypeError(f"a host function of {len(rkinds)} results must return a tuple of them")
        r = results.contents
        slots = c.cast(r.data, c.POINTER(f.Val))
        keep = _HOST_KEEP
        keep.clear()
        for i, (k, v) in enumerate(zip(rkinds, out)):
            slots[i] = _to_c(store, k, v, keep)
        return None
    except BaseException as e:  # everything becomes a trap: never unwind through C
        msg = f.byte_vec(f"{type(e).__name__}: {e}".encode() + b"\0")
        t = f.wasm_trap_new(store._ptr, c.byref(msg))
        f.wasm_byte_vec_delete(c.byref(msg))
        return t


# v128 results of a host function must outlive the callback's return
# until the runtime copies them: they live here until the next call.
_HOST_KEEP: list = []


def _finalize(env):
    _HOST.funcs.pop(env, None)


_TRAMPOLINE = f.Callback(_host_call)
_FINALIZER = f.Finalizer(_finalize)
# The C library holds these two pointers for as long as any store has a
# host function: never let Python free them, even at shutdown.
c.pythonapi.Py_IncRef(c.py_object(_TRAMPOLINE))
c.pythonapi.Py_IncRef(c.py_object(_FINALIZER))


class Global(_InStore):
    """A global: ``Global(store, GlobalType(ValType.i32(), True), 7)``;
    ``global_.value`` reads and (if mutable) writes it."""

    _free = staticmethod(f.wasm_extern_delete)

    def __init__(self, store: Store, ty: GlobalType, value):
        keep: list = []
        v = _to_c(store, ty.content.kind, value, keep)
        ptr = f.wasm_global_new(store._live(), ty._ptr, c.byref(v))
        if not ptr:
            raise WasmError("wasm_global_new failed")
        super().__init__(store, ptr)

    @classmethod
    def _wrap(cls, store, ptr):
        g = cls.__new__(cls)
        _InStore.__init__(g, store, ptr)
        return g

    @property
    def type(self) -> GlobalType:
        return GlobalType._wrap(f.wasm_global_type(self._ptr))

    @property
    def value(self):
        v = f.Val()
        f.wasm_global_get(self._ptr, c.byref(v))
        return _from_c(self.store, v, owned=True)

    @value.setter
    def value(self, value) -> None:
        ty = self.type
        if not ty.mutable:
            raise AttributeError("the global is immutable")
        keep: list = []
        v = _to_c(self.store, ty.content.kind, value, keep)
        f.wasm_global_set(self._ptr, c.byref(v))

    def __repr__(self) -> str:
        return f"Global({self.type!r}, value={self.value!r})"


class Table(_InStore):
    """A table of funcref or externref values, indexed like a list."""

    _free = staticmethod(f.wasm_extern_delete)

    def __init__(self, store: Store, ty: TableType, init=None):
        keep: list = []
        ref = _to_c(store, ty.element.kind, init, keep).of.ref
        ptr = f.wasm_table_new(store._live(), ty._ptr, ref)
        if not ptr:
            raise WasmError("wasm_table_new failed")
        super().__init__(store, ptr)

    @classmethod
    def _wrap(cls, store, ptr):
        t = cls.__new__(cls)
        _InStore.__init__(t, store, ptr)
        return t

    @property
    def type(self) -> TableType:
        return TableType._wrap(f.wasm_table_type(self._ptr))

    @property
    def size(self) -> int:
        return f.wasm_table_size(self._ptr)

    def __len__(self) -> int:
        return self.size

    def _element(self) -> int:
        return self.type.element.kind

    def __getitem__(self, index: int):
        if not 0 <= index < self.size:
            raise IndexError(f"table index {index} out of range")
        ref = f.wasm_table_get(self._ptr, index)
        v = f.Val()
        v.kind = self._element()
        v.of.ref = ref
        # A funcref comes back as a new function object we own; an
        # externref as the key we passed in.
        return _from_c(self.store, v, owned=True)

    def __setitem__(self, index: int, value) -> None:
        keep: list = []
        ref = _to_c(self.store, self._element(), value, keep).of.ref
        if not f.wasm_table_set(self._ptr, index, ref):
            raise IndexError(f"table index {index} out of range")

    def grow(self, delta: int, init=None) -> int:
        """Grows by ``delta`` elements set to ``init``; returns the old size.
        Raises ``WasmError`` past the maximum."""
        old = self.size
        keep: list = []
        ref = _to_c(self.store, self._element(), init, keep).of.ref
        if delta < 0 or not f.wasm_table_grow(self._ptr, delta, ref):
            raise WasmError(f"cannot grow the table by {delta}")
        return old

    def __repr__(self) -> str:
        return f"Table({self.type!r}, size={self.size})"


class Memory(_InStore):
    """A linear memory. ``memory.buffer`` is a zero-copy view of its bytes
    (valid until the memory grows); ``read``/``write`` copy."""

    _free = staticmethod(f.wasm_extern_delete)
    PAGE = 65536

    def __init__(self, store: Store, ty: MemoryType):
        ptr = f.wasm_memory_new(store._live(), ty._ptr)
        if not ptr:
            raise WasmError("wasm_memory_new failed")
        super().__init__(store, ptr)

    @classmethod
    def _wrap(cls, store, ptr):
        m = cls.__new__(cls)
        _InStore.__init__(m, store, ptr)
        return m

    @property
    def type(self) -> MemoryType:
        return MemoryType._wrap(f.wasm_memory_type(self._ptr))

    @property
    def size(self) -> int:
        """Size in 64 KiB pages."""
        return f.wasm_memory_size(self._ptr)

    @property
    def data_size(self) -> int:
        """Size in bytes."""
        return f.wasm_memory_data_size(self._ptr)

    @property
    def buffer(self) -> memoryview:
        n = self.data_size
        if n == 0:
            return memoryview(b"")
        return memoryview((c.c_ubyte * n).from_address(f.wasm_memory_data(self._ptr))).cast("B")

    def read(self, offset: int, length: int) -> bytes:
        if offset < 0 or length < 0 or offset + length > self.data_size:
            raise IndexError("out of bounds memory access")
        return c.string_at(f.wasm_memory_data(self._ptr) + offset, length)

    def write(self, offset: int, data: bytes) -> None:
        data = bytes(data)
        if offset < 0 or offset + len(data) > self.data_size:
            raise IndexError("out of bounds memory access")
        c.memmove(f.wasm_memory_data(self._ptr) + offset, data, len(data))

    def grow(self, delta: int) -> int:
        """Grows by ``delta`` pages; returns the old size. Raises
        ``WasmError`` past the maximum."""
        old = self.size
        if delta < 0 or not f.wasm_memory_grow(self._ptr, delta):
            raise WasmError(f"cannot grow the memory by {delta} pages")
        return old

    def __repr__(self) -> str:
        return f"Memory({self.type!r}, size={self.size})"


Extern = Union[Func, Global, Table, Memory]
_AS_EXTERN = {Func: f.wasm_func_as_extern, Global: f.wasm_global_as_extern, Table: f.wasm_table_as_extern,
              Memory: f.wasm_memory_as_extern}


def _extern_of(store: Store, ptr):
    kind = f.wasm_extern_kind(ptr)
    if kind == f.EXTERN_FUNC:
        return Func._wrap(store, f.wasm_extern_as_func(ptr))
    if kind == f.EXTERN_GLOBAL:
        return Global._wrap(store, f.wasm_extern_as_global(ptr))
    if kind == f.EXTERN_TABLE:
        return Table._wrap(store, f.wasm_extern_as_table(ptr))
    return Memory._wrap(store, f.wasm_extern_as_memory(ptr))


class Exports:
    """An instance's exports: ``exports["add"]``, ``exports.add``, ``len``,
    iteration over names."""

    def __init__(self, items: Dict[str, Extern]):
        self._items = items

    def __getitem__(self, name: str) -> Extern:
        return self._items[name]

    def __getattr__(self, name: str) -> Extern:
        try:
            return self.__dict__["_items"][name]
        except KeyError:
            raise AttributeError(f"no export named {name!r}") from None

    def __contains__(self, name) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def items(self):
        return self._items.items()

    def __repr__(self) -> str:
        return f"Exports({list(self._items)})"


class Instance(_InStore):
    """``Instance(store, module, imports)``: imports in the module's import
    order. A trap in the start function raises ``Trap``; a bad import
    ``WasmError``."""

    _free = staticmethod(f.wasm_instance_delete)

    def __init__(self, store: Store, module: Module, imports: Sequence[Extern] = ()):
        if not isinstance(store, Store) or not isinstance(module, Module):
            raise TypeError("Instance(store, module, imports)")
        if module.engine is not store.engine and module.engine._ptr != store.engine._ptr:
            raise WasmError("the module was compiled by another engine")
        ptrs = []
        for imp in imports:
            conv = _AS_EXTERN.get(type(imp))
            if conv is None:
                raise TypeError(f"an import is a Func, Global, Table or Memory, not {imp!r}")
            if imp.store is not store:
                raise WasmError("an import belongs to another store")
            ptrs.append(conv(imp._ptr))
        arr = (c.c_void_p * max(len(ptrs), 1))(*ptrs)
        vec = f.Vec(len(ptrs), c.addressof(arr), len(ptrs), c.sizeof(c.c_void_p), None)
        trap = c.c_void_p()
        ptr = f.wasm_instance_new(store._live(), module._ptr, c.byref(vec), c.byref(trap))
        if not ptr:
            if trap.value:
                t = Trap._take(trap.value)
                if t.message.startswith("Exception: "):
                    raise t
                raise WasmError(t.message)
            raise WasmError("instantiation failed")
        super().__init__(store, ptr)
        self.module = module
        names = [e.name for e in module.exports]
        vec = f.Vec()
        f.wasm_instance_exports(ptr, c.byref(vec))
        # The extern objects now belong to the wrappers, each freed once.
        items = {n: _extern_of(store, p) for n, p in zip(names, f.elems(vec))}
        if vec.data:
            c.memset(vec.data, 0, vec.size * c.sizeof(c.c_void_p))
        f.wasm_extern_vec_delete(c.byref(vec))
        self.exports = Exports(items)

    def __repr__(self) -> str:
        return f"Instance(exports={list(self.exports)})"
