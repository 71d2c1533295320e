from operator_runtime._backends import resolve
from operator_runtime._dispatch import Operator, numpy_result
from operator_runtime.tensor import new_like

__all__ = ["copy"]

_copy = Operator("copy", [], num_inputs=1, names=("out", "x"), c_names=("y", "x"))


def copy(x, out=None, *, impl=None, backend=None):
    """Copies x: out[...] = x, for any layouts of x and out (x may broadcast to out's shape).

    Parameters:
        x: the tensor to copy: a numpy array, oprt.Tensor, torch / cupy tensor, or anything DLPack or
            __cuda_array_interface__ exposes (lists and scalars become numpy arrays); float32, float16,
            bfloat16 or float64.
        out: where to write; None allocates one like x (same kind, same placement). Same dtype as x, x's
            shape or one x broadcasts to, writable; it may not partially overlap x.
        impl: a kernel variant, e.g. "cute" (the CuTe kernel, nvidia builds with CUTLASS); None (or
            "default") is the backend's own kernel.
        backend: "cpu", "nvidia" or "metax" to run there; None runs where the tensors live (see
            oprt.backend for the rule).

    Returns:
        out (the given one, or the new one; a 0-d numpy result it allocated is returned as a numpy scalar).

    Raises:
        BadDtypeError (a TypeError): an unsupported dtype, or x and out of different dtypes.
        BadShapeError (a ValueError): x does not broadcast to out's shape.
        BadStridesError (a ValueError): out overlaps itself or partially overlaps x.
        InvalidArgumentError (a ValueError): a read-only or non-array out, tensors of different placements,
            or a tensor the chosen backend cannot read.
        BackendUnavailableError: the backend (chosen, or where the tensors live) is not usable here.
        NotSupportedError: no such kernel variant on this backend.
    """
    chosen = None if backend is None else resolve(backend)
    if out is not None:
        return _copy(out, [x], (), None, impl, chosen)
    return numpy_result(_copy(new_like(x), [x], (), None, impl, chosen), None)
