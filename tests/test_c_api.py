"""The C-level contract of libcamp_ops.so, called through ctypes on the loaded library
(operator_runtime._lib.lib): status codes and messages, NULL pointers, workspaces, descriptor
lifetime and ownership, layout validation, backends, and the memory / stream API of every backend."""

import ctypes

import numpy as np
import pytest

import operator_runtime as oprt
from operator_runtime import _lib, errors, testing
from operator_runtime.errors import Status

lib = _lib.lib
Layout = _lib.Layout
F32, F16, BF16, F64 = 0, 1, 2, 3
BACKENDS = testing.backend_params()
I32P = ctypes.POINTER(ctypes.c_int32)

# name -> (attribute argtypes, number of inputs)
SIGNATURES = {
    "copy": ([], 1),
    "vector_add": ([], 2),
    "relu": ([ctypes.c_double], 1),
    "reduce_sum": ([I32P, ctypes.c_int32, ctypes.c_int32], 1),
    "softmax": ([ctypes.c_int32], 1),
    "log_softmax": ([ctypes.c_int32], 1),
}
OPS = list(SIGNATURES)


class Op:
    def __init__(self, name):
        self.name = name
        self.attr_types, self.num_inputs = SIGNATURES[name]
        self.create, self.workspace, self.execute, self.destroy = _lib.declare_operator(name, *SIGNATURES[name])

    def attrs(self):
        """Attributes of the standard call: x (4, 5) -> y (4,) for reduce_sum (axis 1), else y (4, 5)."""
        if self.name == "relu":
            return (ctypes.c_double(0.0),)
        if self.name == "reduce_sum":
            axes = (ctypes.c_int32 * 1)(1)
            return (ctypes.cast(axes, I32P), 1, 0)
        if self.name in ("softmax", "log_softmax"):
            return (-1,)
        return ()

    def out_shape(self, shape):
        return shape[:1] + shape[2:] if self.name == "reduce_sum" else shape

    def reference(self, *xs):
        x = xs[0].astype(np.float64)
        if self.name == "copy":
            return x
        if self.name == "vector_add":
            return x + xs[1]
        if self.name == "relu":
            return np.maximum(x, 0)
        if self.name == "reduce_sum":
            return x.sum(axis=1)
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        s = e / e.sum(axis=-1, keepdims=True)
        return np.log(s) if self.name == "log_softmax" else s

    def create_desc(self, layouts, attrs=None):
        desc = ctypes.c_void_p()
        status = self.create(ctypes.byref(desc), *[ctypes.byref(l) if l is not None else None for l in layouts],
                             *(self.attrs() if attrs is None else attrs))
        return status, desc

    def layouts(self, shape=(4, 5), dtype=F32):
        return [layout(self.out_shape(shape), dtype)] + [layout(shape, dtype) for _ in range(self.num_inputs)]


def layout(shape, dtype=F32, strides=None, ndim=None):
    l = Layout()
    l.dtype = dtype
    l.ndim = len(shape) if ndim is None else ndim
    for d, n in enumerate(shape[:8]):
        l.shape[d] = n
    strides = testing.contiguous_strides(shape) if strides is None else strides
    for d, s in enumerate(strides[:8]):
        l.strides[d] = s
    return l


def tensor_names(name):
    return ["c", "a", "b"] if name == "vector_add" else ["y", "x"]


def last_error():
    return lib.oprt_last_error().decode()


def ok(status):
    assert status == Status.SUCCESS, "status %s: %s" % (Status(status).name, last_error())


class Buffers:
    """Host arrays moved to `backend` (oprt.Tensor) so that raw data pointers can be passed."""

    def __init__(self, backend, arrays):
        self.backend = backend
        self.host = arrays
        self.dev = [testing.to_backend(a, backend) for a in arrays]

    def ptr(self, i):
        d = self.dev[i]
        return d.data_ptr if isinstance(d, oprt.Tensor) else d.__array_interface__["data"][0]

    def read(self, i):
        return testing.to_numpy(self.dev[i])


@pytest.fixture(params=[p for p in BACKENDS])
def backend(request):
    with oprt.backend(request.param):
        yield request.param


def standard_buffers(op, backend, shape=(4, 5)):
    rng = np.random.default_rng(5)
    xs = [rng.standard_normal(shape).astype(np.float32) for _ in range(op.num_inputs)]
    return Buffers(backend, [np.full(op.out_shape(shape), testing.SENTINEL, np.float32)] + xs)


def run(op, desc, bufs, workspace=None, workspace_bytes=0, ptrs=None):
    ptrs = [bufs.ptr(i) for i in range(1 + op.num_inputs)] if ptrs is None else ptrs
    status = op.execute(desc, workspace, workspace_bytes, *ptrs, None)
    if status == Status.SUCCESS:  # (any call clears oprt_last_error: only after a success)
        ok(lib.oprt_device_synchronize())
    return status


# ------------------------------------------------------------------------------------------ status


def test_status_strings():
    strings = set()
    for status in Status:
        text = lib.oprt_status_string(status).decode()
        assert text and text != "unknown status", status
        strings.add(text)
    assert len(strings) == len(Status), "status strings are not distinct"
    assert lib.oprt_status_string(len(Status)).decode() == "unknown status"
    assert lib.oprt_status_string(-1).decode() == "unknown status"


def test_error_classes_per_status():
    expected = {
        Status.NULL_POINTER: oprt.NullPointerError, Status.INVALID_ARGUMENT: oprt.InvalidArgumentError,
        Status.BAD_DTYPE: oprt.BadDtypeError, Status.BAD_SHAPE: oprt.BadShapeError,
        Status.BAD_STRIDES: oprt.BadStridesError, Status.INSUFFICIENT_WORKSPACE: oprt.InsufficientWorkspaceError,
        Status.NOT_SUPPORTED: oprt.NotSupportedError, Status.BACKEND_UNAVAILABLE: oprt.BackendUnavailableError,
        Status.OUT_OF_MEMORY: oprt.OutOfMemoryError, Status.DEVICE_ERROR: oprt.DeviceError,
        Status.BAD_DESCRIPTOR: oprt.BadDescriptorError,
    }
    for status, cls in expected.items():
        assert type(errors.error_for(int(status), "")) is cls
    with pytest.raises(oprt.BadStridesError) as info:
        _lib.check(Status.BAD_STRIDES)
    assert info.value.status == Status.BAD_STRIDES


def test_last_error_is_cleared_by_a_success():
    op = Op("copy")
    status, _ = op.create_desc([layout((2,), dtype=77), layout((2,))])
    assert status == Status.BAD_DTYPE and last_error()
    status, desc = op.create_desc([layout((2,)), layout((2,))])
    ok(status)
    assert last_error() == ""
    ok(op.destroy(desc))


def test_misc_queries():
    assert [lib.oprt_dtype_size(d) for d in (F32, F16, BF16, F64)] == [4, 2, 2, 8]
    assert lib.oprt_dtype_size(4) == 0 and lib.oprt_dtype_size(-1) == 0
    assert lib.oprt_version().decode() == oprt.__version__
    assert [lib.oprt_backend_name(i).decode() for i in range(3)] == ["cpu", "nvidia", "metax"]
    assert lib.oprt_backend_name(17).decode() == "unknown"
    assert lib.oprt_backend_compiled(0) and lib.oprt_backend_available(0)
    assert not lib.oprt_backend_compiled(5) and not lib.oprt_backend_available(-1)


# ------------------------------------------------------------------------------------------ NULL pointers


@pytest.mark.parametrize("name", OPS)
def test_null_desc_pointer(name):
    op = Op(name)
    args = [ctypes.byref(l) for l in op.layouts()]
    assert op.create(None, *args, *op.attrs()) == Status.NULL_POINTER
    assert "desc" in last_error()


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("which", [0, 1])
def test_null_layout_pointer(name, which):
    op = Op(name)
    layouts = op.layouts()
    layouts[which] = None
    status, _ = op.create_desc(layouts)
    assert status == Status.NULL_POINTER
    assert "layout of %s is NULL" % tensor_names(name)[which] in last_error()


@pytest.mark.parametrize("name", OPS)
def test_null_descriptor_handle(name):
    op = Op(name)
    size = ctypes.c_size_t()
    assert op.workspace(None, ctypes.byref(size)) == Status.BAD_DESCRIPTOR
    assert op.execute(None, None, 0, *([None] * (1 + op.num_inputs)), None) == Status.BAD_DESCRIPTOR
    assert op.destroy(None) == Status.BAD_DESCRIPTOR
    status, desc = op.create_desc(op.layouts())
    ok(status)
    assert op.workspace(desc, None) == Status.NULL_POINTER
    ok(op.destroy(desc))


@pytest.mark.parametrize("name", OPS)
def test_null_data_pointer(name, backend):
    op = Op(name)
    status, desc = op.create_desc(op.layouts())
    ok(status)
    bufs = standard_buffers(op, backend)
    names = tensor_names(name)
    for i in range(1 + op.num_inputs):
        ptrs = [bufs.ptr(k) if k != i else None for k in range(1 + op.num_inputs)]
        assert run(op, desc, bufs, ptrs=ptrs) == Status.NULL_POINTER
        assert names[i] in last_error()
        assert (bufs.read(0) == testing.SENTINEL).all(), "output written after an error"
    ok(op.destroy(desc))


@pytest.mark.parametrize("name", OPS)
def test_null_data_pointer_is_fine_for_an_empty_tensor(name, backend):
    op = Op(name)
    shape = (0, 5)
    status, desc = op.create_desc(op.layouts(shape))
    ok(status)
    ok(run(op, desc, None, ptrs=[None] * (1 + op.num_inputs)))
    ok(op.destroy(desc))


def test_reduce_sum_null_axes():
    op = Op("reduce_sum")
    status, _ = op.create_desc(op.layouts(), attrs=(None, 1, 0))
    assert status == Status.NULL_POINTER and "axes" in last_error()
    status, desc = op.create_desc([layout((4, 5)), layout((4, 5))], attrs=(None, 0, 0))  # no axes: a copy
    ok(status)
    ok(op.destroy(desc))


def test_attribute_values():
    rs = Op("reduce_sum")
    axes = ctypes.cast((ctypes.c_int32 * 1)(1), I32P)
    assert rs.create_desc(rs.layouts(), attrs=(axes, -1, 0))[0] == Status.INVALID_ARGUMENT
    assert rs.create_desc(rs.layouts(), attrs=(axes, 1, 2))[0] == Status.INVALID_ARGUMENT
    assert rs.create_desc(rs.layouts(), attrs=(axes, 3, 0))[0] == Status.INVALID_ARGUMENT  # more axes than dims
    relu = Op("relu")
    for slope in (float("nan"), float("inf")):
        assert relu.create_desc(relu.layouts(), attrs=(ctypes.c_double(slope),))[0] == Status.INVALID_ARGUMENT
    for name in ("softmax", "log_softmax"):
        op = Op(name)
        assert op.create_desc(op.layouts(), attrs=(2,))[0] == Status.INVALID_ARGUMENT
        assert "axis" in last_error()


# ------------------------------------------------------------------------------------------ workspace


@pytest.mark.parametrize("name", OPS)
def test_workspace_null_with_zero_bytes(name, backend):
    # The small standard call: no workspace on the CPU reference. Where one is needed, NULL is refused.
    op = Op(name)
    status, desc = op.create_desc(op.layouts())
    ok(status)
    size = ctypes.c_size_t(12345)
    ok(op.workspace(desc, ctypes.byref(size)))
    if backend == "cpu":
        assert size.value == 0
    bufs = standard_buffers(op, backend)
    if size.value == 0:
        ok(run(op, desc, bufs, None, 0))
        ok(run(op, desc, bufs, None, 1 << 20))  # more than needed is fine
        testing.assert_close(bufs.read(0), op.reference(*bufs.host[1:]).astype(np.float32), "float32", reduce_len=5)
    else:
        assert run(op, desc, bufs, None, size.value) == Status.NULL_POINTER
        assert run(op, desc, bufs, None, 0) == Status.INSUFFICIENT_WORKSPACE
    ok(op.destroy(desc))


# Candidates for a workspace > 0 on device backends (multi-block reductions, long rows).
WORKSPACE_CANDIDATES = [("reduce_sum", (1, 1 << 24)), ("reduce_sum", (4, 1 << 22)), ("softmax", (2, 1 << 20)),
                        ("log_softmax", (2, 1 << 20)), ("copy", (1 << 24, 1)), ("vector_add", (1 << 24, 1))]


@pytest.mark.parametrize("backend_name", testing.backend_params(devices_only=True))
def test_insufficient_workspace_on_device(backend_name):
    with oprt.backend(backend_name):
        for name, shape in WORKSPACE_CANDIDATES:
            op = Op(name)
            status, desc = op.create_desc(op.layouts(shape))
            ok(status)
            size = ctypes.c_size_t()
            ok(op.workspace(desc, ctypes.byref(size)))
            if size.value == 0:
                ok(op.destroy(desc))
                continue
            bufs = standard_buffers(op, backend_name, shape)
            ws = ctypes.c_void_p()
            ok(lib.oprt_malloc(ctypes.byref(ws), size.value))
            try:
                assert run(op, desc, bufs, ws, size.value - 1) == Status.INSUFFICIENT_WORKSPACE
                assert "workspace" in last_error()
                assert (bufs.read(0) == testing.SENTINEL).all()
                assert run(op, desc, bufs, None, size.value) == Status.NULL_POINTER
                ok(run(op, desc, bufs, ws, size.value))
                testing.assert_close(bufs.read(0), op.reference(*bufs.host[1:]).astype(np.float32), "float32",
                                     reduce_len=shape[1])
            finally:
                ok(lib.oprt_free(ws))
                ok(op.destroy(desc))
            return
    pytest.skip("no candidate needs a workspace on %s" % backend_name)


# ------------------------------------------------------------------------------------------ descriptors


@pytest.mark.parametrize("name", OPS)
def test_destroyed_descriptor(name, backend):
    op = Op(name)
    status, desc = op.create_desc(op.layouts())
    ok(status)
    ok(op.destroy(desc))
    bufs = standard_buffers(op, backend)
    assert run(op, desc, bufs) == Status.BAD_DESCRIPTOR
    assert op.destroy(desc) == Status.BAD_DESCRIPTOR
    assert (bufs.read(0) == testing.SENTINEL).all()


@pytest.mark.parametrize("name,other", [("relu", "softmax"), ("softmax", "log_softmax"), ("log_softmax", "softmax"),
                                        ("copy", "relu"), ("reduce_sum", "copy"), ("vector_add", "copy")])
def test_descriptor_of_another_operator(name, other, backend):
    op, wrong = Op(name), Op(other)
    status, desc = op.create_desc(op.layouts())
    ok(status)
    bufs = standard_buffers(wrong, backend)
    assert run(wrong, desc, bufs) == Status.BAD_DESCRIPTOR
    size = ctypes.c_size_t()
    assert wrong.workspace(desc, ctypes.byref(size)) == Status.BAD_DESCRIPTOR
    assert wrong.destroy(desc) == Status.BAD_DESCRIPTOR
    assert (bufs.read(0) == testing.SENTINEL).all()
    ok(op.destroy(desc))  # still alive after the refused destroy


@pytest.mark.parametrize("name", OPS)
def test_descriptor_copies_the_layouts(name, backend):
    op = Op(name)
    layouts = op.layouts((4, 5))
    status, desc = op.create_desc(layouts)
    ok(status)
    for l in layouts:  # the caller reuses its structs: the descriptor must not have kept pointers to them
        ctypes.memset(ctypes.addressof(l), 0x7F, ctypes.sizeof(l))
    for _ in range(2):  # and one descriptor serves many buffers of the same layout
        bufs = standard_buffers(op, backend)
        bufs.host[1:] = [np.random.default_rng(len(bufs.host)).standard_normal((4, 5)).astype(np.float32)
                         for _ in range(op.num_inputs)]
        bufs = Buffers(backend, bufs.host)
        ok(run(op, desc, bufs))
        testing.assert_close(bufs.read(0), op.reference(*bufs.host[1:]).astype(np.float32), "float32", reduce_len=5)
    ok(op.destroy(desc))


def test_reduce_sum_copies_the_axes():
    op = Op("reduce_sum")
    axes = (ctypes.c_int32 * 1)(1)
    status, desc = op.create_desc(op.layouts(), attrs=(ctypes.cast(axes, I32P), 1, 0))
    ok(status)
    axes[0] = 0
    bufs = standard_buffers(op, "cpu")
    ok(run(op, desc, bufs))
    testing.assert_close(bufs.read(0), bufs.host[1].astype(np.float64).sum(axis=1), "float32", reduce_len=5)
    ok(op.destroy(desc))


# ------------------------------------------------------------------------------------------ layouts


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("dtype", [4, -1, 1000])
@pytest.mark.parametrize("which", [0, 1])
def test_unknown_dtype(name, dtype, which):
    op = Op(name)
    layouts = op.layouts()
    layouts[which].dtype = dtype
    status, _ = op.create_desc(layouts)
    assert status == Status.BAD_DTYPE
    assert str(dtype) in last_error()


@pytest.mark.parametrize("name", OPS)
def test_dtype_mismatch(name):
    op = Op(name)
    layouts = op.layouts()
    layouts[-1].dtype = F16
    assert op.create_desc(layouts)[0] == Status.BAD_DTYPE
    assert "f16" in last_error() and "f32" in last_error()


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("ndim", [9, 100, -1])
def test_bad_rank(name, ndim):
    op = Op(name)
    layouts = op.layouts()
    layouts[-1] = layout((2,) * 8, ndim=ndim)
    status, _ = op.create_desc(layouts)
    assert status == Status.BAD_SHAPE
    assert "ndim %d" % ndim in last_error()


@pytest.mark.parametrize("name", OPS)
def test_negative_extent(name):
    op = Op(name)
    layouts = op.layouts()
    layouts[-1].shape[1] = -5
    assert op.create_desc(layouts)[0] == Status.BAD_SHAPE
    assert "dim 1" in last_error()


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("which", [0, 1])
def test_negative_stride(name, which):
    op = Op(name)
    layouts = op.layouts((4, 5, 6))
    if name == "reduce_sum":
        layouts[0] = layout((4, 6))
    layouts[which].strides[layouts[which].ndim - 1] = -1
    status, _ = op.create_desc(layouts)
    assert status == Status.BAD_STRIDES
    err = last_error()
    tensor = tensor_names(name)[which]
    assert err.startswith("bad strides: %s " % tensor) and "dim %d" % (layouts[which].ndim - 1) in err, err


@pytest.mark.parametrize("name", OPS)
def test_last_error_names_the_tensor_and_dimension(name):
    op = Op(name)
    layouts = op.layouts((4, 5, 6))
    if name == "reduce_sum":
        layouts[0] = layout((4, 6))
    layouts[0] = layout(tuple(layouts[0].shape[:layouts[0].ndim]), strides=(0,) * layouts[0].ndim)
    status, _ = op.create_desc(layouts)
    assert status == Status.BAD_STRIDES
    err = last_error()
    assert err.startswith("bad strides: ") and ("y " in err or "c " in err) and "dim" in err, err


# ------------------------------------------------------------------------------------------ backends


def test_set_backend_errors():
    before = lib.oprt_get_backend()
    for b in range(3):
        if not lib.oprt_backend_compiled(b):
            assert lib.oprt_set_backend(b) == Status.BACKEND_UNAVAILABLE
            assert "not compiled" in last_error()
            with pytest.raises(oprt.BackendUnavailableError):
                oprt.set_backend(lib.oprt_backend_name(b).decode())
        elif not lib.oprt_backend_available(b):
            assert lib.oprt_set_backend(b) == Status.BACKEND_UNAVAILABLE
            assert "no usable device" in last_error()
        assert lib.oprt_get_backend() == before
    for b in (3, -1, 1 << 20):
        assert lib.oprt_set_backend(b) == Status.INVALID_ARGUMENT
        assert lib.oprt_get_backend() == before
    with pytest.raises(oprt.InvalidArgumentError):
        oprt.set_backend("tpu")
    if all(lib.oprt_backend_compiled(b) for b in range(3)):
        pytest.skip("every backend is compiled in")


def test_backend_lists():
    assert "cpu" in oprt.compiled_backends() and "cpu" in oprt.available_backends()
    assert set(oprt.available_backends()) <= set(oprt.compiled_backends())


# ------------------------------------------------------------------------------------------ memory API


def test_memory_api(backend):
    b = lib.oprt_get_backend()
    device = backend != "cpu"
    h2d, d2h, d2d = (1, 2, 3) if device else (0, 0, 0)
    name = ctypes.create_string_buffer(128)
    ok(lib.oprt_device_name(name, 128))
    assert name.value
    assert lib.oprt_device_name(None, 128) == Status.NULL_POINTER
    assert lib.oprt_device_name(name, 0) == Status.INVALID_ARGUMENT

    p = ctypes.c_void_p(1)
    ok(lib.oprt_malloc(ctypes.byref(p), 0))
    assert p.value is None
    assert lib.oprt_malloc(None, 16) == Status.NULL_POINTER
    ok(lib.oprt_free(None))

    n = 1 << 20
    a, c = ctypes.c_void_p(), ctypes.c_void_p()
    ok(lib.oprt_malloc(ctypes.byref(a), n))
    ok(lib.oprt_malloc(ctypes.byref(c), n))
    assert a.value and c.value and a.value % 16 == 0
    try:
        ok(lib.oprt_memset(a, 0x3C, n))
        host = np.zeros(n, np.uint8)
        hp = host.ctypes.data
        ok(lib.oprt_memcpy(hp, a, n, d2h))
        assert (host == 0x3C).all()

        src = np.random.default_rng(3).integers(0, 255, n, dtype=np.uint8)
        ok(lib.oprt_memcpy(a, src.ctypes.data, n, h2d))
        ok(lib.oprt_memcpy(c, a, n, d2d))
        back = np.zeros(n, np.uint8)
        ok(lib.oprt_memcpy(back.ctypes.data, c, n, d2h))
        np.testing.assert_array_equal(back, src)

        stream = ctypes.c_void_p()
        ok(lib.oprt_stream_create(ctypes.byref(stream)))
        assert stream.value
        try:
            ok(lib.oprt_memset(c, 0, n))
            ok(lib.oprt_memcpy_async(c, a, n // 2, d2d, stream))
            back2 = np.zeros(n, np.uint8)
            ok(lib.oprt_stream_synchronize(stream))
            ok(lib.oprt_memcpy_async(back2.ctypes.data, c, n, d2h, stream))
            ok(lib.oprt_stream_synchronize(stream))
            np.testing.assert_array_equal(back2[: n // 2], src[: n // 2])
            assert (back2[n // 2:] == 0).all()
        finally:
            ok(lib.oprt_stream_destroy(stream))
        ok(lib.oprt_stream_destroy(None))
        ok(lib.oprt_stream_synchronize(None))
        ok(lib.oprt_device_synchronize())

        assert lib.oprt_memcpy(None, a, 8, d2h) == Status.NULL_POINTER
        assert lib.oprt_memcpy(hp, None, 8, d2h) == Status.NULL_POINTER
        ok(lib.oprt_memcpy(None, None, 0, d2h))
        assert lib.oprt_memcpy(hp, a, 8, 4) == Status.INVALID_ARGUMENT
        assert lib.oprt_memcpy(hp, a, 8, -1) == Status.INVALID_ARGUMENT
        assert lib.oprt_memset(None, 0, 8) == Status.NULL_POINTER
        ok(lib.oprt_memset(None, 0, 0))
        assert lib.oprt_stream_create(None) == Status.NULL_POINTER
    finally:
        ok(lib.oprt_free(a))
        ok(lib.oprt_free(c))
    assert lib.oprt_get_backend() == b


@pytest.mark.parametrize("backend_name", testing.backend_params(devices_only=True))
def test_tensor_reads_back_on_its_own_backend(backend_name):
    # oprt.Tensor copies to the host and frees on the backend it was made on, whichever is active.
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    with oprt.backend(backend_name):
        t = oprt.Tensor.from_numpy(x)
    with oprt.backend("cpu"):
        np.testing.assert_array_equal(t.numpy(), x)
        del t


if __name__ == "__main__":
    raise SystemExit(testing.main(__file__))
