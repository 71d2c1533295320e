"""operator_runtime: Python API over the C runtime (libcamp_ops.so) through ctypes.

    import operator_runtime as oprt
    y = oprt.softmax(x, axis=-1)      # runs where x lives: numpy on "cpu", torch / cupy CUDA tensors on the GPU
    oprt.relu(x, backend="cpu")       # or where you say: per call, or for a context with oprt.backend("cpu")
    oprt.available_backends()         # ['cpu', 'nvidia'] on a GPU build with a GPU
"""

from ._backends import available_backends, backend, compiled_backends, device_name, get_backend, set_backend, synchronize
from . import _lib
from ._dispatch import fastcall_enabled
from .errors import (
    BackendUnavailableError,
    BadDescriptorError,
    BadDtypeError,
    BadShapeError,
    BadStridesError,
    DeviceError,
    InsufficientWorkspaceError,
    InternalError,
    InvalidArgumentError,
    NotSupportedError,
    NullPointerError,
    OprtError,
    OutOfMemoryError,
    Status,
)
from .explain import explain
from .ops import *  # noqa: F401,F403  every registered operator (ops/operators.bzl)
from .tensor import Tensor

__version__ = _lib.lib.oprt_version().decode()  # the library's, from pyproject.toml
