"""The Python layer's own guarantees (issue 14): outputs that are read-only or not arrays are refused as
numpy refuses them, numpy layouts the C API cannot take (negative strides, misaligned data or strides)
are staged through copies with numpy's results (in place too) while the usual ones stay zero-copy,
sizes are checked before C sees them, axes are coerced like numpy's, a cached descriptor lives as long
as a call holds it, a workspace is allocated per call on its stream, and backends are chosen per
context."""

import contextvars
import ctypes
import gc
import importlib
import sys

import numpy as np
import pytest

import operator_runtime as oprt
from operator_runtime import _backends, _dispatch, _lib, tensor, testing
from operator_runtime.errors import Status

BACKENDS = testing.backend_params()
needs_cpu = pytest.mark.skipif("cpu" not in testing.backends(), reason="numpy arrays: the cpu backend")


def data(shape, dtype=np.float64, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def softmax_ref(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# name -> (call(x, out), numpy reference(x)); float64 data, so results match numpy to rounding
OPS = {
    "copy": (lambda x, out=None: oprt.copy(x, out=out), lambda x: x),
    "relu": (lambda x, out=None: oprt.relu(x, negative_slope=0.5, out=out), lambda x: np.where(x > 0, x, 0.5 * x)),
    "vector_add": (lambda x, out=None: oprt.vector_add(x, x, out=out), lambda x: x + x),
    "reduce_sum": (lambda x, out=None: oprt.reduce_sum(x, axis=1, out=out), lambda x: x.sum(axis=1)),
    "softmax": (lambda x, out=None: oprt.softmax(x, axis=0, out=out), lambda x: softmax_ref(x, 0)),
    "log_softmax": (lambda x, out=None: oprt.log_softmax(x, axis=0, out=out), lambda x: np.log(softmax_ref(x, 0))),
}


def operator(name):
    """A fresh _dispatch.Operator of op `name` (a cache of its own)."""
    op = getattr(importlib.import_module("operator_runtime.ops." + name), "_" + name)
    return _dispatch.Operator(op.name, op.attr_types, num_inputs=op.num_inputs)


class LibSpy:
    """The library, recording the calls of the named functions."""

    def __init__(self, names):
        self.names, self.calls = names, []

    def __getattr__(self, name):
        fn = getattr(_lib.lib, name)
        if name not in self.names:
            return fn

        def spy(*args):
            self.calls.append((name, args))
            return fn(*args)

        return spy


# ------------------------------------------------------------------------------------------ outputs


@needs_cpu
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("kind", ["writeable_false", "frombuffer_bytes", "memmap_r"])
def test_read_only_out_is_refused_and_not_written(tmp_path, op, kind):
    fn, ref = OPS[op]
    x = data((4, 6))
    shape = ref(x).shape
    raw = bytes(8 * int(np.prod(shape)))
    if kind == "writeable_false":
        out = np.zeros(shape)
        out.flags.writeable = False
    elif kind == "frombuffer_bytes":
        out = np.frombuffer(raw, np.float64).reshape(shape)  # writing would mutate an immutable bytes
    else:
        (tmp_path / "out.bin").write_bytes(raw)
        out = np.memmap(tmp_path / "out.bin", np.float64, mode="r", shape=shape)  # writing would SIGSEGV
    with pytest.raises(oprt.InvalidArgumentError, match="output array is read-only") as info:
        fn(x, out=out)
    assert isinstance(info.value, ValueError)  # what numpy raises
    assert (out == 0).all() and raw == bytes(len(raw))
    if kind == "memmap_r":
        assert (tmp_path / "out.bin").read_bytes() == raw


class ReadOnlyArrayInterface:
    """`target`'s __cuda_array_interface__ with the data tuple's read-only flag set."""

    def __init__(self, target):
        self.target = target

    @property
    def __cuda_array_interface__(self):
        cai = dict(self.target.__cuda_array_interface__)
        cai["data"] = (cai["data"][0], True)
        return cai


@pytest.mark.parametrize("backend", BACKENDS)
def test_read_only_cuda_array_interface_out_is_refused(backend):
    if backend == "metax":
        pytest.skip("__cuda_array_interface__ exists for nvidia tensors only")
    x = data((4, 6), np.float32)
    with oprt.backend(backend):
        if testing.is_device(backend):
            x, target = oprt.Tensor.from_numpy(x), oprt.Tensor.from_numpy(np.zeros((4, 6), np.float32))
        else:  # a host array that claims device memory: refused as read-only before anything else
            target = testing.FakeDeviceArray(np.zeros((4, 6), np.float32))
        with pytest.raises(oprt.InvalidArgumentError, match="read-only"):
            oprt.relu(x, out=ReadOnlyArrayInterface(target))
    assert (testing.to_numpy(target if testing.is_device(backend) else target.array) == 0).all()


@needs_cpu
@pytest.mark.parametrize("op", OPS)
def test_out_that_is_not_an_array_is_refused(op):
    fn, ref = OPS[op]
    x = data((4, 6))
    with pytest.raises(oprt.InvalidArgumentError, match="out= must be an array or tensor, not list"):
        fn(x, out=np.zeros(ref(x).shape).tolist())
    with pytest.raises(oprt.InvalidArgumentError, match="not float"):
        oprt.reduce_sum(x, out=0.0)


@needs_cpu
def test_inputs_may_still_be_lists():
    np.testing.assert_array_equal(oprt.vector_add([1.0, 2.0], [[3.0, 4.0]]), [[4.0, 6.0]])
    np.testing.assert_array_equal(oprt.relu([-1.0, 2.0]), [0.0, 2.0])


# ------------------------------------------------------------------------------------------ staging


def unusual(values, kind):
    """`values` (same shape and dtype) in a layout the C API cannot take."""
    if kind == "negative_strides":
        flip = (slice(None, None, -1),) * values.ndim
        return values[flip].copy()[flip]
    if kind == "misaligned":  # data one byte past an aligned address
        raw = np.zeros(values.nbytes + 1, np.uint8)[1:]
        a = raw.view(values.dtype).reshape(values.shape)
    else:  # "odd_strides": a field of a packed record, strides of itemsize + 1 bytes
        a = np.zeros(values.shape, np.dtype([("v", values.dtype), ("pad", np.uint8)]))["v"]
    a[...] = values
    return a


UNUSUAL = ["negative_strides", "misaligned", "odd_strides"]


@needs_cpu
@pytest.mark.parametrize("kind", UNUSUAL)
def test_unusual_layouts_are_what_they_say(kind):
    a = unusual(data((4, 6)), kind)
    itemsize = a.itemsize
    assert (min(a.strides) < 0 or a.ctypes.data % itemsize or any(s % itemsize for s in a.strides))


@needs_cpu
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("kind", UNUSUAL)
def test_inputs_the_c_api_cannot_take_are_staged(op, kind):
    fn, ref = OPS[op]
    x = data((4, 6))
    ux = unusual(x, kind)
    np.testing.assert_allclose(fn(ux), ref(x), rtol=1e-13, atol=1e-15)
    np.testing.assert_array_equal(ux, x)  # not modified


@needs_cpu
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("kind", UNUSUAL)
def test_outputs_the_c_api_cannot_take_are_computed_then_written_back(op, kind):
    fn, ref = OPS[op]
    x = data((4, 6))
    expected = ref(x)
    out = unusual(np.full(expected.shape, testing.SENTINEL), kind)
    assert fn(x, out=out) is out
    np.testing.assert_allclose(out, expected, rtol=1e-13, atol=1e-15)


@needs_cpu
@pytest.mark.parametrize("kind", UNUSUAL)
def test_staged_in_place_calls(kind):
    x, y = data((4, 6)), data((4, 6), seed=1)
    a = unusual(x, kind)
    assert oprt.relu(a, negative_slope=0.5, out=a) is a
    np.testing.assert_array_equal(a, np.where(x > 0, x, 0.5 * x))
    a = unusual(x, kind)
    oprt.vector_add(a, unusual(y, kind), out=a)
    np.testing.assert_array_equal(a, x + y)


@needs_cpu
def test_reversed_aliases_give_numpy_results():
    # Output and input are the same memory in opposite orders: computed in place element by element,
    # the second half would read what the first half wrote.
    x = data((64,))
    a = x.copy()
    oprt.copy(a[::-1], out=a)
    np.testing.assert_array_equal(a, x[::-1])
    a = x.copy()
    oprt.copy(a, out=a[::-1])
    np.testing.assert_array_equal(a, x[::-1])
    a = x.copy()
    oprt.vector_add(a[::-1], a, out=a)
    np.testing.assert_array_equal(a, x[::-1] + x)
    m = data((8, 8))
    a = m.copy()
    oprt.softmax(a[:, ::-1], axis=1, out=a)
    np.testing.assert_allclose(a, softmax_ref(m[:, ::-1], 1), rtol=1e-13)


@needs_cpu
def test_usual_layouts_are_not_copied():
    x = data((4, 6))
    for a in (x, x.T, x[1:, ::2], np.broadcast_to(x[0], (4, 6)), np.zeros((0, 3))):
        v = tensor.view_of(a)
        assert v.obj is a and v.ptr == a.__array_interface__["data"][0]
    out = np.zeros((4, 6))
    v, write_back = tensor.output_view(out)
    assert v.obj is out and write_back is None


# ------------------------------------------------------------------------------------------ sizes


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape,dtype,error", [
    ((2**61 + 1,), np.float64, oprt.BadShapeError),  # 2^64 + 8 bytes: was a 64-byte buffer
    ((2**32, 2**32), np.float32, oprt.BadShapeError),  # was 0 bytes
    ((2**62,), np.float16, oprt.BadShapeError),  # 2^63 bytes, one more than int64 holds
    ((0, 2**62, 4), np.float32, oprt.BadShapeError),  # empty, but its strides overflow
    ((-1,), np.float32, oprt.BadShapeError),
    ((3, -2), np.float32, oprt.BadShapeError),
    ((1.5,), np.float32, TypeError),
    (2.0, np.float32, TypeError),
])
def test_tensor_empty_checks_the_shape_before_calling_c(monkeypatch, backend, shape, dtype, error):
    spy = LibSpy({"oprt_malloc"})
    monkeypatch.setattr(tensor, "lib", spy)
    with oprt.backend(backend), pytest.raises(error):
        oprt.Tensor.empty(shape, dtype)
    assert spy.calls == []


@pytest.mark.parametrize("backend", BACKENDS)
def test_tensor_empty_takes_integer_shapes(backend):
    with oprt.backend(backend):
        for shape, expected in [((), ()), (0, (0,)), (np.int64(3), (3,)), ((np.int32(2), 3), (2, 3)), ([2, 0], (2, 0))]:
            t = oprt.Tensor.empty(shape)
            assert t.shape == expected and type(t.shape[0] if t.shape else 0) is int
        assert oprt.Tensor.empty((2, 3), np.float64)._buffer.nbytes == 48


@pytest.mark.parametrize("backend", BACKENDS)
def test_buffer_sizes_are_checked(backend):
    with oprt.backend(backend):
        for nbytes in (-1, 2**63):
            with pytest.raises(oprt.BadShapeError):
                tensor._Buffer(nbytes)
        t = oprt.Tensor.empty((4,))
        oprt.Tensor(t._buffer, 4, (3,), (1,), np.float32)  # the last three elements: fits
        for offset, shape, strides in [(0, (5,), (1,)), (4, (4,), (1,)), (-4, (1,), (1,)), (0, (3,), (2**62,))]:
            with pytest.raises(oprt.BadShapeError):  # would read or write past the buffer in numpy() / an op
                oprt.Tensor(t._buffer, offset, shape, strides, np.float32)


@pytest.mark.parametrize("backend", BACKENDS)
def test_failed_malloc_leaves_nothing_to_free(monkeypatch, backend):
    unraisable = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    with oprt.backend(backend):
        with pytest.raises(oprt.OutOfMemoryError):
            oprt.Tensor.empty((2**59,), np.float64)  # 4 EiB: valid, but no allocator has it
    gc.collect()  # the _Buffer goes with the traceback that held it
    assert unraisable == []


# ------------------------------------------------------------------------------------------ axes


@needs_cpu
def test_axes_are_integers_like_numpy():
    x = data((3, 4))
    for bad in (1.7, 1.0, "1", (0, 1.0)):
        with pytest.raises(TypeError):
            oprt.reduce_sum(x, axis=bad)
    for fn in (oprt.softmax, oprt.log_softmax):
        with pytest.raises(TypeError):
            fn(x, axis=1.0)
    np.testing.assert_allclose(oprt.softmax(x, axis=np.int64(0)), softmax_ref(x, 0), rtol=1e-13)
    np.testing.assert_allclose(oprt.reduce_sum(x, axis=(np.int32(1),)), x.sum(axis=1), rtol=1e-13)


@needs_cpu
@pytest.mark.parametrize("axis", [2**32, 2**32 + 1, -(2**31) - 1, 2**63])
def test_axes_outside_int32_are_refused_not_wrapped(axis):
    x = data((3, 4))
    for fn in (oprt.softmax, oprt.log_softmax, oprt.reduce_sum):
        with pytest.raises(oprt.InvalidArgumentError, match="axis"):
            fn(x, axis=axis)  # 2**32 wrapped to int32 is axis 0
    with pytest.raises(oprt.InvalidArgumentError):
        oprt.reduce_sum(x, axis=(0, axis))


@needs_cpu
def test_dim_is_an_alias_of_axis():
    x = data((3, 4))
    np.testing.assert_allclose(oprt.softmax(x, dim=0), softmax_ref(x, 0), rtol=1e-13)
    np.testing.assert_allclose(oprt.log_softmax(x, dim=0), np.log(softmax_ref(x, 0)), rtol=1e-13)
    np.testing.assert_allclose(oprt.reduce_sum(x, dim=0), x.sum(axis=0), rtol=1e-13)
    np.testing.assert_allclose(oprt.reduce_sum(x, dim=(0, 1), keepdims=True), x.sum(keepdims=True), rtol=1e-13)
    with pytest.raises(TypeError):
        oprt.softmax(x, axis=0, dim=1)
    with pytest.raises(TypeError):
        oprt.reduce_sum(x, axis=0, dim=1)


# ------------------------------------------------------------------------------------------ descriptors


def run_entry(relu, entry, out, x):
    return relu._execute(entry[0], None, 0, out.ctypes.data, x.ctypes.data, None)


@needs_cpu
def test_an_evicted_descriptor_lives_while_a_call_holds_its_entry(monkeypatch):
    monkeypatch.setattr(_dispatch, "_CACHE_SIZE", 1)
    relu = operator("relu")
    a, b = data((4, 5)), data((5, 4))
    relu(np.zeros_like(a), [a], (0.0,))
    entry, = relu._descriptors.values()  # what a call executing it holds
    relu(np.zeros_like(b), [b], (0.0,))  # evicts it
    assert len(relu._descriptors) == 1 and entry not in relu._descriptors.values()
    out = np.zeros_like(a)
    _lib.check(run_entry(relu, entry, out, a))  # still valid
    np.testing.assert_array_equal(out, np.maximum(a, 0))
    handle = (entry[0],)
    del entry  # the last reference: destroyed now
    assert run_entry(relu, handle, out, a) == Status.BAD_DESCRIPTOR


@needs_cpu
def test_a_replaced_entry_is_destroyed_with_its_last_reference():
    # Two threads missing on one key both create a descriptor; the second entry replaces the first.
    relu = operator("relu")
    x = data((4, 5))
    out = np.zeros_like(x)
    views = [tensor.view_of(out), tensor.view_of(x)]
    key = _dispatch.cache_key(_backends.current(), (0.0,), views)
    first = relu._descriptor(key, views, (0.0,))
    second = relu._descriptor(key, views, (0.0,))
    assert relu._descriptors[key] is second and first[0] != second[0]
    handle = (first[0],)
    del first
    assert run_entry(relu, handle, out, x) == Status.BAD_DESCRIPTOR
    _lib.check(run_entry(relu, second, out, x))


# ------------------------------------------------------------------------------------------ workspaces


@needs_cpu
def test_workspace_is_allocated_per_call_on_its_stream_and_freed_on_error(monkeypatch):
    # CPU kernels need no workspace: an entry claiming 4096 bytes drives the workspace path here.
    relu = operator("relu")
    base = data((21,))
    x, out = base[:20].reshape(4, 5), np.zeros((4, 5))
    relu(out, [x], (0.0,))
    (key, (desc, _, owner)), = relu._descriptors.items()
    relu._descriptors[key] = (desc, 4096, owner)
    spy = LibSpy({"oprt_malloc_async", "oprt_free_async"})
    monkeypatch.setattr(_dispatch, "lib", spy)
    stream = ctypes.c_void_p()
    _lib.check(_lib.lib.oprt_stream_create(ctypes.byref(stream)))
    relu(out, [x], (0.0,), stream.value)
    np.testing.assert_array_equal(out, np.maximum(x, 0))
    with pytest.raises(oprt.BadStridesError):  # same layouts (a cache hit), but out overlaps x partially
        relu(base[1:].reshape(4, 5), [x], (0.0,), stream.value)
    assert [name for name, _ in spy.calls] == ["oprt_malloc_async", "oprt_free_async"] * 2
    for (_, malloc_args), (_, free_args) in zip(spy.calls[::2], spy.calls[1::2]):
        assert malloc_args[1] == 4096 and malloc_args[2] == stream.value and free_args[1] == stream.value
        assert free_args[0] is malloc_args[0]._obj  # the very pointer malloc_async filled in
    assert spy.calls[0][1][0]._obj is not spy.calls[2][1][0]._obj  # one workspace per call


# ------------------------------------------------------------------------------------------ backends


def test_backend_is_context_local():
    assert oprt.get_backend() == "cpu"

    def elsewhere():
        _backends._current.set(_backends.BACKENDS["nvidia"])  # (no device needed: the variable alone)
        return oprt.get_backend()

    assert contextvars.copy_context().run(elsewhere) == "nvidia"
    assert oprt.get_backend() == "cpu"


def test_backend_selection_errors_leave_the_context_alone():
    with pytest.raises(oprt.InvalidArgumentError):
        oprt.set_backend("tpu")
    for name in _backends.BACKENDS:
        if name not in oprt.available_backends():
            with pytest.raises(oprt.BackendUnavailableError):
                with oprt.backend(name):
                    pass
    assert oprt.get_backend() == "cpu" and _lib.lib.oprt_get_backend() == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_with_backend_sets_and_restores_the_thread_c_backend(backend):
    with oprt.backend(backend):
        assert oprt.get_backend() == backend
        assert _lib.lib.oprt_get_backend() == _backends.BACKENDS[backend]
        with oprt.backend("cpu"):
            assert _lib.lib.oprt_get_backend() == 0
        assert oprt.get_backend() == backend and _lib.lib.oprt_get_backend() == _backends.BACKENDS[backend]
    assert oprt.get_backend() == "cpu" and _lib.lib.oprt_get_backend() == 0


@pytest.mark.parametrize("backend", testing.backend_params(devices_only=True))
def test_tensor_memory_runs_on_its_own_backend_and_restores_the_thread(backend):
    with oprt.backend(backend):
        t = oprt.Tensor.from_numpy(np.arange(6, dtype=np.float32))
    assert _lib.lib.oprt_get_backend() == 0
    np.testing.assert_array_equal(t.numpy(), np.arange(6))  # read on its backend from a cpu context
    del t  # freed there
    assert _lib.lib.oprt_get_backend() == 0


if __name__ == "__main__":
    raise SystemExit(testing.main(__file__))
