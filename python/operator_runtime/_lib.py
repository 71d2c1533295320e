"""Finds and loads libcamp_ops.so and declares the C signatures once.

Search order: $OPRT_LIBRARY; next to this package (installed wheel); Bazel runfiles (//ops:libcamp_ops.so).
"""

from __future__ import annotations

import ctypes
import os
import pathlib

from . import errors

MAX_NDIM = 8
LIBRARY_NAME = "libcamp_ops.so"


class Layout(ctypes.Structure):
    """oprt_tensor_layout_t: dtype, ndim, shape and strides in elements."""

    _fields_ = [
        ("dtype", ctypes.c_int),
        ("ndim", ctypes.c_int32),
        ("shape", ctypes.c_int64 * MAX_NDIM),
        ("strides", ctypes.c_int64 * MAX_NDIM),
    ]


def _candidates():
    if os.environ.get("OPRT_LIBRARY"):
        yield pathlib.Path(os.environ["OPRT_LIBRARY"])
        return
    here = pathlib.Path(__file__).parent  # not resolved: under Bazel this is inside the runfiles tree
    yield here / LIBRARY_NAME  # an installed wheel
    yield here.parent.parent / "ops" / LIBRARY_NAME  # runfiles: <root>/python/operator_runtime -> <root>/ops
    try:
        from python.runfiles import runfiles  # rules_python's runfiles library, under Bazel

        found = runfiles.Create().Rlocation("_main/ops/" + LIBRARY_NAME)
        if found:
            yield pathlib.Path(found)
    except ImportError:
        pass
    for root in (os.environ.get("RUNFILES_DIR"), os.environ.get("TEST_SRCDIR")):
        if root:
            yield pathlib.Path(root) / "_main" / "ops" / LIBRARY_NAME


def _load() -> ctypes.CDLL:
    tried = []
    for path in _candidates():
        tried.append(str(path))
        if path.is_file():
            return ctypes.CDLL(str(path))
    raise OSError(
        "cannot find %s (tried: %s); build it with `./bazelw build //ops:%s` and set OPRT_LIBRARY=/path/to/it"
        % (LIBRARY_NAME, ", ".join(tried) or "nothing", LIBRARY_NAME)
    )


lib = _load()

_c = ctypes
_status = _c.c_int
_p = _c.c_void_p
_SIGNATURES = {
    "oprt_status_string": (_c.c_char_p, [_c.c_int]),
    "oprt_last_error": (_c.c_char_p, []),
    "oprt_version": (_c.c_char_p, []),
    "oprt_set_kernel_variant": (_status, [_c.c_char_p]),
    "oprt_get_kernel_variant": (_c.c_char_p, []),
    "oprt_last_launches": (_c.c_char_p, []),
    "oprt_dtype_size": (_c.c_size_t, [_c.c_int]),
    "oprt_backend_compiled": (_c.c_int, [_c.c_int]),
    "oprt_backend_available": (_c.c_int, [_c.c_int]),
    "oprt_set_backend": (_status, [_c.c_int]),
    "oprt_get_backend": (_c.c_int, []),
    "oprt_backend_name": (_c.c_char_p, [_c.c_int]),
    "oprt_device_name": (_status, [_c.c_char_p, _c.c_size_t]),
    "oprt_malloc": (_status, [_c.POINTER(_p), _c.c_size_t]),
    "oprt_free": (_status, [_p]),
    "oprt_malloc_async": (_status, [_c.POINTER(_p), _c.c_size_t, _p]),
    "oprt_free_async": (_status, [_p, _p]),
    "oprt_memcpy": (_status, [_p, _p, _c.c_size_t, _c.c_int]),
    "oprt_memcpy_async": (_status, [_p, _p, _c.c_size_t, _c.c_int, _p]),
    "oprt_memset": (_status, [_p, _c.c_int, _c.c_size_t]),
    "oprt_stream_create": (_status, [_c.POINTER(_p)]),
    "oprt_stream_synchronize": (_status, [_p]),
    "oprt_stream_destroy": (_status, [_p]),
    "oprt_device_synchronize": (_status, []),
}
for _name, (_restype, _argtypes) in _SIGNATURES.items():
    _fn = getattr(lib, _name)
    _fn.restype, _fn.argtypes = _restype, _argtypes


def check(status: int) -> None:
    """Raises the OprtError subclass for a non-zero status, with the library's detail message."""
    if status:
        raise errors.error_for(status, lib.oprt_last_error().decode("utf-8", "replace"))


def declare_operator(name: str, create_attrs: list, num_inputs: int):
    """Declares oprt_create_<name>_descriptor / get workspace / execute / destroy; returns the four functions."""
    layout_p = _c.POINTER(Layout)
    create = getattr(lib, "oprt_create_%s_descriptor" % name)
    create.restype, create.argtypes = _status, [_c.POINTER(_p), layout_p] + [layout_p] * num_inputs + create_attrs
    workspace = getattr(lib, "oprt_get_%s_workspace_size" % name)
    workspace.restype, workspace.argtypes = _status, [_p, _c.POINTER(_c.c_size_t)]
    execute = getattr(lib, "oprt_" + name)
    execute.restype, execute.argtypes = _status, [_p, _p, _c.c_size_t, _p] + [_p] * num_inputs + [_p]
    destroy = getattr(lib, "oprt_destroy_%s_descriptor" % name)
    destroy.restype, destroy.argtypes = _status, [_p]
    return create, workspace, execute, destroy
