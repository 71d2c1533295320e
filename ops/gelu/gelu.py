"""gelu's Python binding: validation happens in the C entry points; this only shapes the call."""

import ctypes

from operator_runtime._backends import resolve
from operator_runtime._dispatch import Operator, numpy_result
from operator_runtime.errors import InvalidArgumentError
from operator_runtime.tensor import new_like

__all__ = ["gelu"]

_gelu = Operator("gelu", [ctypes.c_int32], num_inputs=1, names=("out", "x"), c_names=("y", "x"))
_FORMS = {"none": 0, "tanh": 1}  # torch's names -> OPRT_GELU_EXACT / OPRT_GELU_TANH


def gelu(x, approximate="none", out=None, *, impl=None, backend=None):
    """Gaussian error linear unit, x * Phi(x), elementwise (torch.nn.functional.gelu).

    approximate="none": 0.5 * x * (1 + erf(x / sqrt(2))); approximate="tanh": the tanh approximation
    0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3))). Computed in float32 for 16-bit dtypes.

    Parameters:
        x: a numpy array, oprt.Tensor, torch / cupy tensor or DLPack object; float32, float16, bfloat16 or float64.
        approximate: "none" (exact, with erf) or "tanh", as torch names them.
        out: where to write; None allocates one like x. Same dtype, x's shape or one x broadcasts to; it may be
            x itself but not partially overlap it.
        impl: a kernel variant; None for the backend's own kernel.
        backend: "cpu", "nvidia" or "metax" to run there; None runs where the tensors live.

    Returns:
        out (given or new; a 0-d numpy result it allocated comes back as a numpy scalar).

    Raises:
        InvalidArgumentError (ValueError): approximate is neither "none" nor "tanh", a read-only or non-array
            out, mixed placements, or a tensor the chosen backend cannot read.
        BadDtypeError (TypeError): an unsupported dtype, or x and out of different dtypes.
        BadShapeError (ValueError): x does not broadcast to out's shape.
        BadStridesError (ValueError): out overlaps itself or partially overlaps x.
        BackendUnavailableError: the backend is not usable here.
    """
    form = _FORMS.get(approximate) if isinstance(approximate, str) else None
    if form is None:
        raise InvalidArgumentError("approximate must be 'none' or 'tanh', got %r" % (approximate,))
    chosen = None if backend is None else resolve(backend)
    if out is not None:
        return _gelu(out, [x], (form,), None, impl, chosen)
    return numpy_result(_gelu(new_like(x), [x], (form,), None, impl, chosen), None)
