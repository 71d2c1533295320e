"""operator_runtime: Python API over the C runtime (libcamp_ops.so) through ctypes.

    import operator_runtime as oprt
    oprt.available_backends(); oprt.set_backend("nvidia"); with oprt.backend("cpu"): ...
    y = oprt.softmax(x, axis=-1)      # numpy in/out on "cpu"; oprt.Tensor / torch / cupy on a GPU backend
"""

from ._backends import available_backends, backend, compiled_backends, device_name, get_backend, set_backend, synchronize
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
from .ops import copy, log_softmax, reduce_sum, relu, softmax, vector_add
from .tensor import Tensor

__version__ = "0.1.0"
