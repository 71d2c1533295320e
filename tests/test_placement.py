"""Dispatch by placement (issue 12, finding 1): with no explicit choice an op runs where its tensors live
(numpy -> cpu, oprt.Tensor -> its own backend, torch / cupy CUDA tensors -> the GPU backend); tensors of two
placements are one InvalidArgumentError naming the parameters; device memory in a library without a GPU
backend is a BackendUnavailableError; the per-call backend= and `with oprt.backend(...)` override placement
(backend= wins over the context); scalars-only calls keep the context default (cpu); the fast path keys on
the same choice, so a cache hit outside any `with oprt.backend(...)` still runs in C."""

import importlib

import numpy as np
import pytest

import operator_runtime as oprt
from operator_runtime import _backends, _dispatch, _lib, testing

BACKENDS = testing.backend_params()
DEVICES = testing.backend_params(devices_only=True)
needs_cpu = pytest.mark.skipif("cpu" not in testing.backends(), reason="numpy arrays: the cpu backend")

try:
    import torch
except ImportError:
    torch = None


def data(shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def fresh(name):
    op = getattr(importlib.import_module("operator_runtime.ops." + name), "_" + name)
    return _dispatch.Operator(op.name, op.attr_types, num_inputs=op.num_inputs, names=op.names, c_names=op.c_names)


def test_no_explicit_choice_by_default():
    assert _backends.explicit() is None and oprt.get_backend() == "cpu"


@needs_cpu
def test_numpy_runs_on_cpu_and_stays_numpy():
    x = data((3, 5))
    y = oprt.relu(x)
    assert type(y) is np.ndarray
    np.testing.assert_array_equal(y, np.maximum(x, 0))


@pytest.mark.parametrize("backend", BACKENDS)
def test_oprt_tensors_run_on_their_own_backend_outside_any_with_block(backend):
    x = oprt.Tensor.from_numpy(data((4, 6)), backend=backend)
    assert x.backend == backend and _backends.explicit() is None
    y = oprt.softmax(x, axis=0)  # no `with oprt.backend(...)`
    assert isinstance(y, oprt.Tensor) and y.backend == backend  # allocated where x lives
    e = np.exp(x.numpy() - x.numpy().max(0))
    np.testing.assert_allclose(y.numpy(), e / e.sum(0), rtol=1e-5, atol=1e-7)
    s = oprt.reduce_sum(x, axis=1)  # a reduction: on a GPU it needs a workspace (the Python path)
    assert s.backend == backend
    np.testing.assert_allclose(s.numpy(), x.numpy().sum(1), rtol=1e-5, atol=1e-5)
    oprt.synchronize()  # no explicit choice: every available backend
    assert _lib.lib.oprt_get_backend() == 0  # the thread's C backend is back to the context's (cpu)


@pytest.mark.parametrize("backend", DEVICES)
def test_device_tensor_and_numpy_are_one_invalid_argument_error(backend):
    t = oprt.Tensor.from_numpy(data((3, 4)), backend=backend)
    with pytest.raises(oprt.InvalidArgumentError) as e:
        oprt.vector_add(t, data((3, 4)))
    message = str(e.value)
    assert "a is an oprt.Tensor on %s" % backend in message and "b is a numpy.ndarray" in message, message
    with pytest.raises(oprt.InvalidArgumentError, match="out is a numpy.ndarray"):
        oprt.relu(t, out=np.zeros((3, 4), np.float32))


@needs_cpu
def test_mixed_placements_name_the_parameters():
    # No GPU needed: an oprt.Tensor that says it lives on the GPU backend stands for one.
    t = oprt.Tensor.from_numpy(data((3, 4)), backend="cpu")
    t.backend_id, t.device = _backends.BACKENDS["nvidia"], True
    for fn in (lambda: oprt.vector_add(data((3, 4)), t), lambda: oprt.copy(t, out=np.zeros((3, 4), np.float32))):
        with pytest.raises(oprt.InvalidArgumentError) as e:
            fn()
        assert "backend cpu" in str(e.value) and "backend nvidia" in str(e.value)
        assert "put them on one device" in str(e.value)


@needs_cpu
@pytest.mark.skipif(_backends.device_backend() is not None, reason="a library with a GPU backend")
def test_device_memory_without_a_gpu_backend_is_backend_unavailable():
    fake = testing.FakeDeviceArray(data((3, 4)))
    with pytest.raises(oprt.BackendUnavailableError, match="x is .* device memory, but this library has no GPU backend"):
        oprt.relu(fake, out=oprt.Tensor.from_numpy(np.zeros((3, 4), np.float32)))
    with oprt.backend("cpu"):  # an explicit choice: the placement check of that backend, as before
        with pytest.raises(oprt.InvalidArgumentError, match="the cpu backend takes host arrays"):
            oprt.relu(fake, out=np.zeros((3, 4), np.float32))


@pytest.mark.parametrize("backend", DEVICES)
def test_explicit_context_overrides_placement(backend):
    with oprt.backend(backend):
        with pytest.raises(oprt.InvalidArgumentError, match="the %s backend takes device tensors" % backend):
            oprt.relu(data((3, 4)))  # numpy inside a device context: refused, as before


@needs_cpu
@pytest.mark.parametrize("backend", BACKENDS)
def test_backend_keyword_overrides_the_context(backend):
    x = data((3, 4))
    with oprt.backend(backend):
        y = oprt.relu(x, backend="cpu")  # the call's choice wins
    np.testing.assert_array_equal(y, np.maximum(x, 0))
    with pytest.raises(oprt.InvalidArgumentError, match="unknown backend 'tpu'"):
        oprt.relu(x, backend="tpu")
    for name in _backends.BACKENDS:
        if name not in oprt.available_backends():
            with pytest.raises(oprt.BackendUnavailableError):
                oprt.relu(x, backend=name)


@needs_cpu
def test_scalars_only_keep_the_context_default():
    r = oprt.vector_add(1.0, 2.5)
    assert type(r) is np.float64 and r == 3.5  # numpy: np.add(1.0, 2.5)
    assert oprt.relu(-2.0) == 0.0


@needs_cpu
def test_set_backend_none_clears_the_choice():
    oprt.set_backend("cpu")
    try:
        assert _backends.explicit() == 0
    finally:
        oprt.set_backend(None)
    assert _backends.explicit() is None and oprt.get_backend() == "cpu"


@pytest.mark.parametrize("backend", BACKENDS)
def test_fast_path_hits_outside_any_with_block(backend):
    if not oprt.fastcall_enabled():
        pytest.skip("the fast path is off")
    relu = fresh("relu")
    x = oprt.Tensor.from_numpy(data((3, 7)), backend=backend)
    out = oprt.Tensor.empty((3, 7), np.float32, backend=backend)
    assert not relu._fast.run(out, [x], (0.0,), None)  # a miss
    relu(out, [x], (0.0,))  # the Python path creates the descriptor under (placement, ...)
    out2 = oprt.Tensor.empty((3, 7), np.float32, backend=backend)
    assert relu._fast.run(out2, [x], (0.0,), None)  # ... which C finds without an explicit backend
    np.testing.assert_array_equal(out2.numpy(), np.maximum(x.numpy(), 0))
    assert relu._fast.run(out2, [x], (0.0,), _backends.BACKENDS[backend])  # backend= of the same id: a hit
    if backend != "cpu":
        with oprt.backend("cpu"):  # an explicit choice that differs: another key, the Python path raises
            assert not relu._fast.run(out2, [x], (0.0,), None)


@pytest.mark.skipif(torch is None, reason="needs torch")
@pytest.mark.parametrize("backend", [b for b in BACKENDS if b.values[0] in ("cpu", "nvidia")])
def test_torch_tensors_follow_their_device(backend):
    device = "cuda" if backend == "nvidia" else "cpu"
    x = torch.from_numpy(data((5, 8))).to(device)
    y = oprt.softmax(x, dim=0)  # no `with oprt.backend(...)`: torch's device decides
    assert isinstance(y, torch.Tensor) and y.device == x.device
    torch.testing.assert_close(y, torch.softmax(x, dim=0), rtol=1e-5, atol=1e-6)
    relu = fresh("relu")
    out = torch.empty_like(x)
    relu(out, [x], (0.0,))
    if oprt.fastcall_enabled():
        assert relu._fast.run(out, [x], (0.0,), None)  # a cache hit runs in C, placement-keyed
    if backend == "nvidia":
        with pytest.raises(oprt.InvalidArgumentError, match="torch.Tensor on cuda"):
            oprt.vector_add(x, data((5, 8)))
        torch.cuda.synchronize()


if __name__ == "__main__":
    raise SystemExit(testing.main(__file__))
