"""Choosing the backend (process-wide, as in the C API)."""

from __future__ import annotations

import contextlib
import ctypes

from ._lib import check, lib

BACKENDS = {"cpu": 0, "nvidia": 1, "metax": 2}
_NAMES = {v: k for k, v in BACKENDS.items()}


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


def set_backend(name: str) -> None:
    check(lib.oprt_set_backend(backend_id(name)))


def get_backend() -> str:
    return _NAMES[lib.oprt_get_backend()]


def device_name() -> str:
    buffer = ctypes.create_string_buffer(256)
    check(lib.oprt_device_name(buffer, len(buffer)))
    return buffer.value.decode()


@contextlib.contextmanager
def backend(name: str):
    """with oprt.backend("nvidia"): ... — restores the previous backend on exit."""
    previous = get_backend()
    if previous == name:
        yield
        return
    set_backend(name)
    try:
        yield
    finally:
        set_backend(previous)


def synchronize() -> None:
    """Waits for all work on the active backend's device."""
    check(lib.oprt_device_synchronize())
