"""numpy / torch conventions of the Python API (issue 12, finding 6): Python scalars broadcast in vector_add
at the tensor's dtype, error messages name the Python parameters, a reduction of a numpy array to one value
returns a numpy scalar, oprt.Tensor has numpy's byte strides (element_strides beside them), __len__,
__array__ (a copy), __dlpack__ / __dlpack_device__, and every public op documents its parameters, return
value and errors."""

import gc
import importlib
import inspect
import re

import numpy as np
import pytest

import operator_runtime as oprt
from operator_runtime import tensor as _tensor, testing

BACKENDS = testing.backend_params()
needs_cpu = pytest.mark.skipif("cpu" not in testing.backends(), reason="numpy arrays: the cpu backend")
OPS = [getattr(oprt, name) for name in importlib.import_module("operator_runtime.ops").__all__]  # every public op

try:
    import torch
except ImportError:
    torch = None


def data(shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


# ------------------------------------------------------------------------------------ Python scalars


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "bfloat16"])
@pytest.mark.parametrize("scalar", [1.0, -2, 0.1, 1e6])
def test_python_scalars_broadcast_at_the_tensors_dtype(backend, dtype, scalar):
    x = testing.random_values((3, 4), dtype, np.random.default_rng(1))
    t = testing.to_backend(x, backend)
    for got in (oprt.vector_add(t, scalar), oprt.vector_add(scalar, t)):
        got = testing.to_numpy(got)
        assert got.dtype == x.dtype and got.shape == (3, 4)
        with np.errstate(over="ignore"):
            want = (x.astype(np.float64) + np.asarray(scalar).astype(x.dtype).astype(np.float64)).astype(x.dtype)
        testing.assert_close(got, want, dtype)  # numpy's weak-scalar rule: x + 1e6 is inf in float16


@needs_cpu
def test_python_scalar_results_match_numpy():
    x = data((5,), np.float16)
    r = oprt.vector_add(x, 3)
    assert r.dtype == np.float16 and (r == x + 3).all()
    out = np.empty(5, np.float16)
    assert oprt.vector_add(2.5, x, out=out) is out and (out == 2.5 + x).all()


@pytest.mark.skipif(torch is None, reason="needs torch")
def test_python_scalar_with_torch_stays_torch():
    x = torch.randn(4, 3, dtype=torch.float64)
    y = oprt.vector_add(x, 0.5)
    assert isinstance(y, torch.Tensor) and y.dtype == torch.float64
    torch.testing.assert_close(y, x + 0.5)


# --------------------------------------------------------------------------------- parameter names


@pytest.mark.parametrize("backend", BACKENDS)
def test_errors_name_the_python_parameters(backend):
    def message(fn, *args, **kwargs):
        with oprt.backend(backend):
            with pytest.raises(oprt.OprtError) as e:
                fn(*args, **kwargs)
        return str(e.value)

    a, b = testing.to_backend(data((3, 4)), backend), testing.to_backend(data((3, 5)), backend)
    wrong = testing.to_backend(np.zeros((3, 4), np.float64), backend)
    m = message(oprt.vector_add, a, a, out=wrong)
    assert re.search(r"\bout\b", m) and not re.search(r"\bc\b", m), m  # C says c
    m = message(oprt.vector_add, a, b)
    assert "b (3, 5) does not broadcast to out (3, 4)" in m, m
    for op in (oprt.copy, oprt.relu, oprt.softmax, oprt.log_softmax):
        m = message(op, a, out=wrong)
        assert re.search(r"\bout\b", m) and not re.search(r"\by\b", m), (op.__name__, m)  # C says y
    m = message(oprt.reduce_sum, a, axis=1, out=testing.to_backend(np.zeros((4,), np.float32), backend))
    assert m.startswith("bad shape: out has shape"), m


# ------------------------------------------------------------------------------------ scalar results


@needs_cpu
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "bfloat16"])
def test_reduction_to_one_value_returns_what_numpy_returns(dtype):
    x = testing.random_values((3, 4), dtype, np.random.default_rng(2))
    got, want = oprt.reduce_sum(x), x.sum()
    assert type(got) is type(want) and not isinstance(got, np.ndarray)  # np.float32(...), not array(...)
    np.testing.assert_allclose(float(got), float(x.astype(np.float64).sum()), rtol=1e-2 if "16" in dtype else 1e-5)
    assert type(oprt.reduce_sum(x, axis=(0, 1))) is type(want)
    assert oprt.reduce_sum(x, keepdims=True).shape == (1, 1)  # keepdims: an array, as numpy's
    out = np.empty((), x.dtype)
    assert oprt.reduce_sum(x, out=out) is out  # a given out is returned as it is
    assert type(oprt.relu(np.asarray(-1.0, x.dtype))) is type(np.maximum(np.asarray(-1.0, x.dtype), 0))


@pytest.mark.parametrize("backend", BACKENDS)
def test_reduction_of_a_tensor_stays_a_tensor(backend):
    t = oprt.Tensor.from_numpy(data((3, 4)), backend=backend)
    s = oprt.reduce_sum(t)
    assert isinstance(s, oprt.Tensor) and s.shape == () and s.backend == backend


# ----------------------------------------------------------------------------------- oprt.Tensor


def layouts():
    base = data((6, 8))
    return {"contiguous": base, "transposed": base.T, "sliced": base[1:, ::2], "broadcast": np.broadcast_to(base[:1], (6, 8)),
            "0-d": np.asarray(np.float32(3)), "empty": np.zeros((0, 3), np.float32)}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("layout", list(layouts()))
def test_tensor_strides_are_bytes_like_numpys(backend, layout):
    x = layouts()[layout]
    t = oprt.Tensor.from_numpy(x, backend=backend)
    assert t.strides == x.strides  # bytes
    assert t.element_strides == tuple(s // x.itemsize for s in x.strides)  # elements (torch's stride())
    assert (t.shape, t.dtype, t.ndim, t.size, t.itemsize, t.nbytes) == (x.shape, x.dtype, x.ndim, x.size, x.itemsize, x.nbytes)
    assert np.array_equal(t.numpy(), x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_tensor_len_and_array(backend):
    x = data((4, 3))
    t = oprt.Tensor.from_numpy(x, backend=backend)
    assert len(t) == 4
    with pytest.raises(TypeError):
        len(oprt.Tensor.from_numpy(np.asarray(np.float32(1)), backend=backend))
    a = np.asarray(t)  # a host copy, not an object array
    assert a.dtype == np.float32 and a.shape == (4, 3) and np.array_equal(a, x)
    assert np.array(t, dtype=np.float64).dtype == np.float64
    if np.lib.NumpyVersion(np.__version__) >= "2.0.0":
        with pytest.raises(ValueError, match="without a copy"):
            np.asarray(t, copy=False)
    assert "copy" in oprt.Tensor.__array__.__doc__.lower()


def test_from_numpy_takes_negative_strides():
    x = data((4, 5))[::-1, ::-2]
    t = oprt.Tensor.from_numpy(x)
    assert t.element_strides == (3, 1) and np.array_equal(t.numpy(), x)


@needs_cpu
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_dlpack_shares_a_cpu_tensor_without_a_copy(dtype):
    x = data((4, 6), dtype)[:, ::2]
    t = oprt.Tensor.from_numpy(x, backend="cpu")
    assert t.__dlpack_device__() == (1, 0)
    view = np.from_dlpack(t)
    assert view.shape == x.shape and view.strides == x.strides and np.array_equal(view, x)
    oprt.relu(t, negative_slope=0.0, out=t)  # written through the Tensor ...
    assert np.array_equal(view, np.maximum(x, 0))  # ... seen through the DLPack view: shared memory
    del t
    gc.collect()
    assert np.array_equal(view, np.maximum(x, 0))  # the export keeps the memory alive
    del view
    gc.collect()
    assert not _tensor._exports  # the consumer's deleter released it


@needs_cpu
def test_unconsumed_dlpack_capsules_release_their_export():
    t = oprt.Tensor.from_numpy(data((3,)), backend="cpu")
    capsule = t.__dlpack__()
    assert len(_tensor._exports) == 1
    del capsule
    gc.collect()
    assert not _tensor._exports


@pytest.mark.skipif(torch is None, reason="needs torch")
@pytest.mark.parametrize("backend", [b for b in BACKENDS if b.values[0] in ("cpu", "nvidia")])
def test_torch_from_dlpack(backend):
    x = data((3, 4))
    t = oprt.Tensor.from_numpy(x, backend=backend)
    tt = torch.from_dlpack(t)
    assert tt.device.type == ("cuda" if backend == "nvidia" else "cpu")
    np.testing.assert_array_equal(tt.cpu().numpy(), x)
    assert tt.data_ptr() == t.data_ptr


# --------------------------------------------------------------------------------------- docstrings


@pytest.mark.parametrize("op", OPS, ids=[op.__name__ for op in OPS])
def test_every_op_documents_parameters_returns_and_raises(op):
    doc = inspect.getdoc(op)
    for section in ("Parameters:", "Returns:", "Raises:"):
        assert section in doc, (op.__name__, section)
    documented = doc.split("Parameters:", 1)[1].split("Returns:", 1)[0]
    for name in inspect.signature(op).parameters:
        assert re.search(r"\b%s\b" % name, documented), (op.__name__, name)


if __name__ == "__main__":
    raise SystemExit(testing.main(__file__))
