"""Choosing the backend: context-local (per thread, per asyncio task), default "cpu".

The C library keeps one active backend per thread (like CUDA's current device). Python's choice lives
in a ContextVar, and sync() points the calling thread's C backend at it right before every C call
that depends on it, so two threads (or tasks) on different backends never see each other's choice.
"""

from __future__ import annotations

import contextlib
import contextvars
import ctypes

from ._lib import check, lib

BACKENDS = {"cpu": 0, "nvidia": 1, "metax": 2}
NAMES = {v: k for k, v in BACKENDS.items()}

_current = contextvars.ContextVar("operator_runtime.backend", default=BACKENDS["cpu"])
current = _current.get  # the context's backend id (also the descriptor caches' key; _fastcall calls it)


def backend_id(name: str) -> int:
    try:
        return BACKENDS[name]
    except KeyError:
        from .errors import InvalidArgumentError

        raise InvalidArgumentError("unknown backend %r; known: %s" % (name, ", ".join(BACKENDS))) from None


def compiled_backends() -> list[str]:
    """Backends whose kernels are linked into the loaded library."""
    return [name for name, i in BACKENDS.items() if lib.oprt_backend_compiled(i)]


def available_backends() -> list[str]:
    """Backends compiled in AND usable here (a device is present)."""
    return [name for name, i in BACKENDS.items() if lib.oprt_backend_available(i)]


def sync() -> int:
    """Makes the calling thread's C backend the context's one; returns its id."""
    i = _current.get()
    if lib.oprt_get_backend() != i:
        check(lib.oprt_set_backend(i))
    return i


def call_on(i: int, fn, *args) -> int:
    """fn(*args) (a C call returning a status) on backend i, then the thread's C backend as it was:
    memory is freed and read on its own backend, from whichever thread (GC runs __del__ on any)."""
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


def _select(name: str) -> int:
    i = backend_id(name)
    check(lib.oprt_set_backend(i))  # BackendUnavailableError (not compiled, no device) from the library
    return i


def set_backend(name: str) -> None:
    """Selects the backend for the current context (thread / task); others keep theirs."""
    _current.set(_select(name))


def get_backend() -> str:
    return NAMES[_current.get()]


@contextlib.contextmanager
def backend(name: str):
    """with oprt.backend("nvidia"): ... — this context's backend inside, the previous one on exit."""
    token = _current.set(_select(name))
    try:
        yield
    finally:
        _current.reset(token)
        sync()  # C callers of this thread (lib.* directly) see the restored backend too


def device_name() -> str:
    buffer = ctypes.create_string_buffer(256)
    sync()
    check(lib.oprt_device_name(buffer, len(buffer)))
    return buffer.value.decode()


def synchronize() -> None:
    """Waits for all work on the active backend's device."""
    sync()
    check(lib.oprt_device_synchronize())
