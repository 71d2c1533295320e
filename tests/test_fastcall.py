"""The compiled fast path (operator_runtime._fastcall) against the pure-Python one: it is active under
Bazel, both give the same results, exceptions and untouched outputs, calls it cannot take fall back,
cache hits run in C, a descriptor evicted from the cache stays valid while the fast path holds it, and
calls that need a workspace get it in C as the Python path gives it. torch cases run where torch is importable (CPU tensors
on the cpu backend, CUDA tensors on nvidia)."""

import contextlib
import ctypes
import importlib
import os

import numpy as np
import pytest

import operator_runtime as oprt
from operator_runtime import _backends, _dispatch, _lib, testing
from operator_runtime.tensor import view_of

BACKENDS = testing.backend_params()
FAST = oprt.fastcall_enabled()
needs_fastcall = pytest.mark.skipif(not FAST, reason="the fast path is off (OPRT_FASTCALL=0)")

try:
    import torch
except ImportError:
    torch = None


def operator(name):
    """The ops module's _dispatch.Operator (operator_runtime.ops.<name> is shadowed by the function)."""
    return getattr(importlib.import_module("operator_runtime.ops." + name), "_" + name)


def fresh_relu():
    """A relu Operator with a cache of its own."""
    relu = operator("relu")
    return _dispatch.Operator(relu.name, relu.attr_types, num_inputs=relu.num_inputs)


def data(shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def on(backend, *arrays):
    with oprt.backend(backend):
        return [oprt.Tensor.from_numpy(a) for a in arrays]


def torch_on(backend, *arrays):
    if torch is None or backend not in ("cpu", "nvidia"):
        pytest.skip("needs torch (and the cpu or nvidia backend)")
    return [torch.from_numpy(a).to("cuda" if backend == "nvidia" else "cpu") for a in arrays]


def test_fast_path_is_active_unless_turned_off():
    assert FAST == (os.environ.get("OPRT_FASTCALL") != "0")


@pytest.mark.skipif(not FAST, reason="the fast path is off")
def test_ops_with_more_inputs_than_the_fast_path_takes_stay_on_the_python_path(monkeypatch):
    fast = _dispatch._fastcall
    with pytest.raises(ValueError):
        fast.FastOperator(ctypes.cast(_lib.lib.oprt_relu, ctypes.c_void_p).value, fast.MAX_INPUTS + 1, {})
    monkeypatch.setattr(fast, "MAX_INPUTS", 1)  # as if vector_add had more inputs than the C path takes
    add = _dispatch.Operator("vector_add", [], num_inputs=2)
    assert add._fast is None
    a, b, out = on("cpu", data((3, 4)), data((3, 4), seed=1), np.zeros((3, 4), np.float32))
    with oprt.backend("cpu"):
        add(out, [a, b])
    np.testing.assert_array_equal(out.numpy(), a.numpy() + b.numpy())


# Each scenario makes fresh operands and returns (call, tensors to read back afterwards).


def relu_hits(backend):  # the 2nd and 3rd calls hit the cache
    x, out = on(backend, data((4, 5)), np.zeros((4, 5), np.float32))
    return lambda: [oprt.relu(x, negative_slope=0.1, out=out) for _ in range(3)], [out]


def shape_change(backend):  # a miss after hits, then hits on both shapes
    x, y, out, out2 = on(backend, data((4, 5)), data((6, 7), seed=1), np.zeros((4, 5), np.float32),
                         np.zeros((6, 7), np.float32))
    return lambda: [(oprt.relu(x, out=out), oprt.relu(y, out=out2)) for _ in range(3)], [out, out2]


def strided(backend):  # the key holds strides: a transposed view is another descriptor
    x, out = on(backend, data((5, 4)).T, np.zeros((4, 5), np.float32))
    return lambda: [oprt.vector_add(x, x, out=out) for _ in range(2)], [out]


def mixed_with_numpy(backend):  # a numpy operand takes the Python path (an error on device backends)
    a, out = on(backend, data((3, 4)), np.zeros((3, 4), np.float32))
    return lambda: oprt.vector_add(a, data((3, 4), seed=1), out=out), [out]


def bad_dtype(backend):
    a, b, out = on(backend, data((3, 4)), data((3, 4), np.float64), np.zeros((3, 4), np.float32))
    return lambda: oprt.vector_add(a, b, out=out), [out]


def bad_shape(backend):
    a, b, out = on(backend, data((3, 4)), data((3, 5)), np.zeros((3, 4), np.float32))
    return lambda: oprt.vector_add(a, b, out=out), [out]


def wrong_backend(backend):  # after a hit, the same layout from another backend
    x, out, out2 = on(backend, data((4, 5)), np.zeros((4, 5), np.float32), np.zeros((4, 5), np.float32))
    other, = on("cpu", data((4, 5), seed=1))
    if backend == "cpu":  # no device here: a cpu tensor that says it is device memory stands for one
        other.device = True
    return lambda: [oprt.relu(x, out=out), oprt.relu(x, out=out), oprt.relu(other, out=out2)], [out2]


def reduce_sum(backend):  # needs a workspace on device backends
    x, out, out1 = on(backend, data((64, 1000)), np.zeros((), np.float32), np.zeros((64,), np.float32))
    calls = lambda: (oprt.reduce_sum(x, out=out), oprt.reduce_sum(x, axis=1, out=out1))
    return lambda: [calls() for _ in range(2)], [out, out1]


def explicit_stream(backend):  # an int stream runs in C; a ctypes pointer falls back to ctypes
    x, out, out2 = on(backend, data((4, 5)), np.zeros((4, 5), np.float32), np.zeros((4, 5), np.float32))
    relu = operator("relu")

    def call():
        with oprt.backend(backend):
            stream = ctypes.c_void_p()
            _lib.check(_lib.lib.oprt_stream_create(ctypes.byref(stream)))
            try:
                for _ in range(2):
                    relu(out, [x], (0.0,), stream.value)
                    relu(out2, [x], (0.5,), stream)
                _lib.check(_lib.lib.oprt_stream_synchronize(stream))
            finally:
                _lib.check(_lib.lib.oprt_stream_destroy(stream))

    return call, [out, out2]


def torch_hits(backend):
    x, out = torch_on(backend, data((4, 5)), np.zeros((4, 5), np.float32))
    return lambda: [oprt.relu(x, negative_slope=0.1, out=out) for _ in range(3)], [out]


def torch_parameter(backend):
    x, out = torch_on(backend, data((4, 5)), np.zeros((4, 5), np.float32))
    x = torch.nn.Parameter(x, requires_grad=False)
    return lambda: [oprt.vector_add(x, x, out=out) for _ in range(2)], [out]


def torch_bad_dtype(backend):
    x, out = torch_on(backend, np.arange(20, dtype=np.int32).reshape(4, 5), np.zeros((4, 5), np.float32))
    return lambda: oprt.relu(x, out=out), [out]


def torch_with_oprt_tensor(backend):
    if backend != "cpu":
        pytest.skip("a torch CUDA tensor and an oprt.Tensor of nvidia: covered by the device op tests")
    (x,), (out,) = torch_on(backend, data((4, 5))), on(backend, np.zeros((4, 5), np.float32))
    return lambda: [oprt.vector_add(x, x, out=out) for _ in range(2)], [out]


def without_choice(call):
    """call() with no explicit backend in the context: the tensors' placement decides."""
    def run():
        token = _backends._current.set(None)
        try:
            return call()
        finally:
            _backends._current.reset(token)
    return run


def placement_hits(backend):  # no `with oprt.backend(...)`: keyed on where x and out live
    x, out = on(backend, data((4, 5)), np.zeros((4, 5), np.float32))
    return without_choice(lambda: [oprt.relu(x, negative_slope=0.1, out=out) for _ in range(3)]), [out]


def placement_mixed(backend):  # an oprt.Tensor with a numpy operand: mixed placements on a device backend
    a, out = on(backend, data((3, 4)), np.zeros((3, 4), np.float32))
    return without_choice(lambda: [oprt.vector_add(a, data((3, 4), seed=1), out=out) for _ in range(2)]), [out]


def placement_faked(backend):  # after hits, a tensor that says it lives elsewhere: mixed, from C and Python alike
    x, out, out2, other = on(backend, data((4, 5)), np.zeros((4, 5), np.float32), np.zeros((4, 5), np.float32),
                             data((4, 5), seed=1))
    other.backend_id = 2 if other.backend_id != 2 else 1
    return without_choice(lambda: [oprt.relu(x, out=out), oprt.relu(x, out=out), oprt.relu(other, out=out2)]), [out2]


def backend_keyword(backend):  # backend= wins over the context (cpu here, whatever the tensors)
    x, out = on(backend, data((4, 5)), np.zeros((4, 5), np.float32))

    def call():
        with oprt.backend("cpu"):
            return [oprt.relu(x, out=out, backend=backend) for _ in range(3)]
    return call, [out]


def backend_keyword_wrong(backend):  # after hits, backend= naming a backend the tensors are not on
    x, out, out2 = on(backend, data((4, 5)), np.zeros((4, 5), np.float32), np.zeros((4, 5), np.float32))
    other = "cpu" if backend != "cpu" else next((b for b in oprt.available_backends() if b != "cpu"), None)
    if other is None:
        pytest.skip("needs two available backends")
    return lambda: [oprt.relu(x, out=out), oprt.relu(x, out=out), oprt.relu(x, out=out2, backend=other)], [out2]


def torch_placement(backend):  # torch tensors outside any with-block: torch's device decides
    x, out = torch_on(backend, data((4, 5)), np.zeros((4, 5), np.float32))
    return without_choice(lambda: [oprt.relu(x, negative_slope=0.1, out=out) for _ in range(3)]), [out]


SCENARIOS = [relu_hits, shape_change, strided, mixed_with_numpy, bad_dtype, bad_shape, wrong_backend, reduce_sum,
             explicit_stream, torch_hits, torch_parameter, torch_bad_dtype, torch_with_oprt_tensor, placement_hits,
             placement_mixed, placement_faked, backend_keyword, backend_keyword_wrong, torch_placement]


def python_path(self, out, inputs, attrs=(), stream=None, impl=None, backend=None):
    return self._call_python(out, inputs, attrs, stream, impl, backend)


def outcome(monkeypatch, scenario, backend, pure_python):
    """(exception type and message or None, host copies of the scenario's tensors afterwards)."""
    with monkeypatch.context() as m:
        if pure_python:
            m.setattr(_dispatch.Operator, "__call__", python_path)
        call, watched = scenario(backend)
        error = None
        with oprt.backend(backend):
            try:
                call()
            except Exception as e:
                error = (type(e), str(e))
            if testing.is_device(backend):
                oprt.synchronize()
        return error, [testing.to_numpy(w) for w in watched]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.__name__ for s in SCENARIOS])
def test_fast_and_python_paths_agree(monkeypatch, scenario, backend):
    fast_error, fast_tensors = outcome(monkeypatch, scenario, backend, pure_python=False)
    python_error, python_tensors = outcome(monkeypatch, scenario, backend, pure_python=True)
    assert fast_error == python_error
    for fast, python in zip(fast_tensors, python_tensors):
        np.testing.assert_array_equal(fast, python)
    if fast_error is not None:  # typed errors only, and the outputs stay as they were made
        assert issubclass(fast_error[0], oprt.OprtError)
        for t in fast_tensors:
            assert (t == 0).all()


@needs_fastcall
@pytest.mark.parametrize("backend", BACKENDS)
def test_cache_hits_run_in_c(backend):
    relu = fresh_relu()
    x, out = on(backend, data((3, 7)), np.zeros((3, 7), np.float32))
    with oprt.backend(backend):
        assert not relu._fast.run(out, [x], (0.0,), None)  # a miss: nothing ran
        assert (out.numpy() == 0).all()
        relu(out, [x], (0.0,))  # the Python path makes the descriptor under cache_key ...
        out2, = on(backend, np.zeros((3, 7), np.float32))
        assert relu._fast.run(out2, [x], (0.0,), None)  # ... where C finds it
        np.testing.assert_array_equal(out2.numpy(), np.maximum(x.numpy(), 0))
        assert not relu._fast.run(out2, [x.numpy()], (0.0,), None)  # numpy: the Python path
        assert not relu._fast.run(out2, (x,), (0.0,), None)  # inputs not a list: the Python path
        if backend in ("cpu", "nvidia") and torch is not None:
            t, t_out = torch_on(backend, data((3, 7)), np.zeros((3, 7), np.float32))
            relu(t_out, [t], (0.0,))  # the Python path, which hands torch's types to the fast path
            assert relu._fast.run(t_out, [t], (0.0,), None)


@needs_fastcall
def test_evicted_descriptor_stays_alive_while_the_fast_path_holds_it(monkeypatch):
    monkeypatch.setattr(_dispatch, "_CACHE_SIZE", 1)
    relu = fresh_relu()
    a, b, out_a, out_b = on("cpu", data((4, 5)), data((5, 4)), np.zeros((4, 5), np.float32),
                            np.zeros((5, 4), np.float32))
    with oprt.backend("cpu"):
        relu(out_a, [a], (0.0,))
        assert relu._fast.run(out_a, [a], (0.0,), None)  # remembered as the last hit
        relu(out_b, [b], (0.0,))  # evicts a's entry: the last hit still owns its descriptor
        assert len(relu._descriptors) == 1
        out_a2, = on("cpu", np.zeros((4, 5), np.float32))
        assert relu._fast.run(out_a2, [a], (0.0,), None)
        np.testing.assert_array_equal(out_a2.numpy(), np.maximum(a.numpy(), 0))


@needs_fastcall
def test_calls_that_need_a_workspace_run_in_c_with_one():
    # CPU kernels need no workspace: an entry claiming some stands for a device reduction; the fast path
    # allocates it (oprt_malloc_async, the call's backend active), runs the op with it and frees it.
    relu = fresh_relu()
    x, out = on("cpu", data((4, 5)), np.zeros((4, 5), np.float32))
    with oprt.backend("cpu"):
        relu(out, [x], (0.0,))
        key = _dispatch.cache_key(_backends.current(), (0.0,), [view_of(out), view_of(x)])
        desc, _, owner = relu._descriptors[key]
        relu._descriptors[key] = (desc, 4096, owner)
    before = _lib.lib.oprt_get_backend()
    for context in (lambda: oprt.backend("cpu"), contextlib.nullcontext):  # chosen, and by placement
        out2, = on("cpu", np.zeros((4, 5), np.float32))
        with context():
            assert relu._fast.run(out2, [x], (0.0,), None)  # ran here, with its workspace
        np.testing.assert_array_equal(out2.numpy(), np.maximum(x.numpy(), 0))
    assert _lib.lib.oprt_get_backend() == before  # the thread's C backend as it was


if __name__ == "__main__":
    raise SystemExit(testing.main(__file__))
