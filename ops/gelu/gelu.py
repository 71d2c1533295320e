"""gelu's Python binding: validation happens in the C entry points; this only shapes the call."""

from operator_runtime._backends import resolve
from operator_runtime._dispatch import Operator, numpy_result
from operator_runtime.tensor import empty_like, view_of

__all__ = ["gelu"]

_gelu = Operator("gelu", [], num_inputs=1, names=("out", "x"), c_names=("y", "x"))


def gelu(x, out=None, *, impl=None, backend=None):
    """gelu(x), elementwise.

    Parameters:
        x: a numpy array, oprt.Tensor, torch / cupy tensor or DLPack object; float32, float16, bfloat16 or float64.
        out: where to write; None allocates one like x. Same dtype, x's shape or one x broadcasts to; it may be
            x itself but not partially overlap it.
        impl: a kernel variant; None for the backend's own kernel.
        backend: "cpu", "nvidia" or "metax" to run there; None runs where the tensors live.

    Returns:
        out (given or new; a 0-d numpy result it allocated comes back as a numpy scalar).

    Raises:
        BadDtypeError (TypeError), BadShapeError / BadStridesError / InvalidArgumentError (ValueError),
        BackendUnavailableError, NotSupportedError: as every operator (README, "Errors").
    """
    chosen = None if backend is None else resolve(backend)
    if out is not None:
        return _gelu(out, [x], (), None, impl, chosen)
    v = view_of(x)
    return numpy_result(_gelu(empty_like(v, v.shape), [x], (), None, impl, chosen), None)
