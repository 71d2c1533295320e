"""Choosing the backend: by where the tensors live, unless the call or the context says otherwise.

Which backend runs a call (the first that applies):
  1. the call's `backend=` keyword;
  2. the context's explicit choice: `with oprt.backend(name)` / `oprt.set_backend(name)` (per thread, per
     asyncio task; `set_backend(None)` clears it);
  3. the placement of its tensors: numpy / torch CPU tensors -> cpu; torch / cupy CUDA tensors and other
     device memory -> the library's GPU backend; oprt.Tensor -> the backend it was allocated on. Python
     scalars and lists have no placement (they follow the others); tensors of two placements are an
     InvalidArgumentError;
  4. nothing placed (scalars only): the default, cpu.

The C library keeps one active backend per thread (like CUDA's current device). The Python layer points
the calling thread's C backend at the call's backend right before each C call that depends on it (and
back afterwards), so two threads (or tasks) on different backends never see each other's choice.
"""

from __future__ import annotations

import contextlib
import contextvars
import ctypes

from ._lib import check, lib

BACKENDS = {"cpu": 0, "nvidia": 1, "metax": 2, "tilelang": 16}
NAMES = {v: k for k, v in BACKENDS.items()}
CPU = BACKENDS["cpu"]
# Backends run from Python, not by the C library (which has no id 16): tilelang (_tilelang.py). Their memory
# is the C device backend's (_c_id); _dispatch hands their calls to the module's run().
PY_BACKENDS = {BACKENDS["tilelang"]: "_tilelang"}


def py_backend(i: int):
    """The module running Python backend i."""
    import importlib

    return importlib.import_module("." + PY_BACKENDS[i], __package__)


def _c_id(i: int) -> int:
    """The C backend behind id i: itself, or for a Python backend the library's GPU backend (else cpu)."""
    if i in PY_BACKENDS:
        d = device_backend()
        return CPU if d is None else d
    return i

# The context's explicit choice (a backend id), or None: calls then follow their tensors' placement.
_current = contextvars.ContextVar("operator_runtime.backend", default=None)
explicit = _current.get  # _fastcall calls it on every call: keep it a plain ContextVar.get


def current() -> int:
    """The context's backend id: its explicit choice, else cpu (what placement-less calls and new
    allocations use)."""
    i = _current.get()
    return CPU if i is None else _c_id(i)


def backend_id(name) -> int:
    try:
        return BACKENDS[name]
    except (KeyError, TypeError):
        from .errors import InvalidArgumentError

        raise InvalidArgumentError("unknown backend %r; known: %s" % (name, ", ".join(BACKENDS))) from None


def compiled_backends() -> list[str]:
    """Backends whose kernels are linked into the loaded library."""
    return [name for name, i in BACKENDS.items() if lib.oprt_backend_compiled(i)]


def available_backends() -> list[str]:
    """Backends usable here: the library's that are compiled in with their device present, and the Python
    backends (tilelang) whose package and GPU are present."""
    return [name for name, i in BACKENDS.items()
            if lib.oprt_backend_available(i) or (i in PY_BACKENDS and py_backend(i).available())]


_device_backend = [False, None]  # (looked up, id)


def device_backend() -> int | None:
    """The id of the library's GPU backend (a build has at most one: nvidia or metax), which owns CUDA-like
    device memory (torch / cupy CUDA tensors, DLPack device tensors); None in a CPU-only build."""
    if not _device_backend[0]:
        compiled = [i for name, i in BACKENDS.items() if i != CPU and lib.oprt_backend_compiled(i)]
        _device_backend[:] = [True, compiled[0] if compiled else None]
    return _device_backend[1]


def sync(i: int | None = None) -> int:
    """Makes the calling thread's C backend `i` (default: the context's); returns it."""
    i = current() if i is None else _c_id(i)
    if lib.oprt_get_backend() != i:
        check(lib.oprt_set_backend(i))
    return i


def call_on(i: int, fn, *args) -> int:
    """fn(*args) (a C call returning a status) on backend i, then the thread's C backend as it was:
    memory is freed and read on its own backend, from whichever thread (GC runs __del__ on any)."""
    i = _c_id(i)
    previous = lib.oprt_get_backend()
    if previous == i:
        return fn(*args)
    status = lib.oprt_set_backend(i)
    if status:
        return status
    try:
        return fn(*args)
    finally:
        lib.oprt_set_backend(previous)


@contextlib.contextmanager
def on(i: int):
    """The thread's C backend is `i` inside (BackendUnavailableError if it cannot be), as before after."""
    i = _c_id(i)
    previous = lib.oprt_get_backend()
    if previous == i:
        yield
        return
    check(lib.oprt_set_backend(i))
    try:
        yield
    finally:
        lib.oprt_set_backend(previous)


def _select(name: str) -> int:
    i = backend_id(name)
    if i in PY_BACKENDS:
        py_backend(i).require()  # BackendUnavailableError naming what is missing
    check(lib.oprt_set_backend(_c_id(i)))  # BackendUnavailableError (not compiled, no device) from the library
    return i


def set_backend(name: str | None) -> None:
    """Selects the backend of the current context (thread / task; others keep theirs): every call in it
    runs there whatever its tensors' placement (a tensor of another placement is an error). None clears
    the choice: calls follow their tensors again."""
    if name is None:
        _current.set(None)
        sync()
    else:
        _current.set(_select(name))


def get_backend() -> str:
    """The context's backend: its explicit choice, else "cpu" (calls with tensors follow the tensors)."""
    i = _current.get()
    return NAMES[CPU if i is None else i]


@contextlib.contextmanager
def backend(name: str):
    """with oprt.backend("nvidia"): ... — every call inside runs on that backend (explicit choice), the
    previous choice on exit."""
    token = _current.set(_select(name))
    try:
        yield
    finally:
        _current.reset(token)
        sync()  # C callers of this thread (lib.* directly) see the restored backend too


def resolve(name: str | None) -> int | None:
    """The id of a `backend=` argument (None stays None), checked to be usable here."""
    if name is None:
        return None
    i = backend_id(name)
    if i in PY_BACKENDS:
        py_backend(i).require()
    elif not lib.oprt_backend_available(i):
        check(call_on(i, lambda: 0))  # the library's BackendUnavailableError with its reason
    return i


def device_name(backend: str | None = None) -> str:
    """The name of the device behind `backend` (default: the context's backend)."""
    buffer = ctypes.create_string_buffer(256)
    with on(current() if backend is None else backend_id(backend)):
        check(lib.oprt_device_name(buffer, len(buffer)))
    return buffer.value.decode()


def synchronize(backend: str | None = None) -> None:
    """Waits for all work on `backend`'s device; without one, on the context's explicit backend, else on
    every available backend (calls may have followed their tensors to any of them)."""
    if backend is not None:
        ids = [backend_id(backend)]
    elif _current.get() is not None:
        ids = [_current.get()]
    else:
        ids = [BACKENDS[name] for name in available_backends()]
    for i in ids:
        with on(i):
            check(lib.oprt_device_synchronize())
