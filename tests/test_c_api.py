"""The C-level contract of libcamp_ops.so, called through ctypes on the loaded library
(operator_runtime._lib.lib): status codes and messages, NULL pointers, workspaces, descriptor
lifetime and ownership, layout validation, backends, and the memory / stream API of every backend.

The operators are every one the Python side registers (_dispatch.OPERATORS: C name, attribute types,
inputs, tensor names), each called as its testing.Contract (ops/<op>/cases.py) says: the standard
call's C attributes, output shape and reference. A new operator needs no edit here."""

import ctypes
import threading

import numpy as np
import pytest

import operator_runtime as oprt
from operator_runtime import _backends, _dispatch, _lib, errors, testing
from operator_runtime.errors import Status

lib = _lib.lib
Layout = _lib.Layout
F32, F16, BF16, F64 = 0, 1, 2, 3
BACKENDS = testing.backend_params()
I32P = ctypes.POINTER(ctypes.c_int32)
OPRT_BACKEND_COUNT = 3

CONTRACTS = testing.contracts()
OPS = testing.operator_names(CONTRACTS)  # every registered operator (test_contract fails for one without a Contract)


class Op:
    """One C operator's entry points, declared from its registered signature, called as its Contract's
    standard call: x (4, 5) -> y (4, 5), or what the Contract's out_shape says (reduce_sum: axis 1, (4,))."""

    def __init__(self, name):
        self.name = name
        self.contract = testing.contract_of(name, CONTRACTS)
        operator = self.contract.operator
        self.attr_types, self.num_inputs, self.tensor_names = operator.attr_types, operator.num_inputs, operator.c_names
        self.create, self.workspace, self.execute, self.destroy = _lib.declare_operator(
            name, self.attr_types, self.num_inputs)

    def attrs(self):
        """The C attribute arguments of the standard call."""
        return tuple(self.contract.c_attrs)

    def out_shape(self, shape):
        return self.contract.output_shape(shape)

    def reference(self, *xs):
        return self.contract.expected(*xs)

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
    """The names the C library's messages give (output, inputs...)."""
    return Op(name).tensor_names


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
    layouts[0] = layout(tuple(layouts[0].shape[:layouts[0].ndim]), strides=(0,) * layouts[0].ndim)
    status, _ = op.create_desc(layouts)
    assert status == Status.BAD_STRIDES
    err = last_error()
    assert err.startswith("bad strides: %s " % tensor_names(name)[0]) and "dim" in err, err


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
    compiled, available = oprt.compiled_backends(), oprt.available_backends()
    assert "cpu" in compiled and "cpu" in available
    # The library's backends are usable only where compiled in; Python backends (tilelang) are not in the library
    # and are listed as available where their package and a GPU are present.
    python_backends = {_backends.NAMES[i] for i in _backends.PY_BACKENDS}
    assert set(available) - python_backends <= set(compiled)
    assert not python_backends & set(compiled)


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


# ------------------------------------------------------------------------------------------ misuse (issue 14)
# Every check: the status, and nothing written (outputs keep their sentinel, out-parameters their value).

SIZE_MAX = ctypes.c_size_t(-1).value
SENTINEL_HANDLE = 0x5A5A5A5A5A5A5A5A  # what a failed call must leave in a handle / pointer / size out-parameter
VP = ctypes.c_void_p


def c_function(name, restype, argtypes):
    """A fresh ctypes function for `name` with our own signature (the package's declarations untouched)."""
    fn = lib[name]
    fn.restype, fn.argtypes = restype, argtypes
    return fn


MALLOC_ASYNC = c_function("oprt_malloc_async", ctypes.c_int, [ctypes.POINTER(VP), ctypes.c_size_t, VP])
FREE_ASYNC = c_function("oprt_free_async", ctypes.c_int, [VP, VP])
MEMCPY = c_function("oprt_memcpy", ctypes.c_int, [VP, VP, ctypes.c_size_t, ctypes.c_int])
MEMCPY_ASYNC = c_function("oprt_memcpy_async", ctypes.c_int, [VP, VP, ctypes.c_size_t, ctypes.c_int, VP])


def expect(status, want, what=""):
    assert status == want, "%s: status %s, expected %s (%s)" % (what, _name(status), _name(want), last_error())


def _name(status):
    return Status(status).name if status in Status._value2member_map_ else str(status)


def create_fails(op, layouts, want, attrs=None, what=""):
    """Descriptor creation must fail with `want` (a status or a tuple of acceptable ones) and leave the
    handle out-parameter as it was."""
    desc = VP(SENTINEL_HANDLE)
    status = op.create(ctypes.byref(desc), *[ctypes.byref(l) if l is not None else None for l in layouts],
                       *(op.attrs() if attrs is None else attrs))
    wants = want if isinstance(want, tuple) else (want,)
    expect(status if status not in wants else wants[0], wants[0], what or op.name)
    assert desc.value == SENTINEL_HANDLE, "%s: failed create wrote the handle" % (what or op.name)
    assert last_error(), "no oprt_last_error() after a failure"


def unchanged(bufs, what=""):
    assert (bufs.read(0) == testing.SENTINEL).all(), "%s: output written after an error" % what
    for i in range(1, len(bufs.host)):  # inputs too
        np.testing.assert_array_equal(bufs.read(i), bufs.host[i], err_msg="%s: input %d modified" % (what, i))


def layouts_with(op, which, replacement, shape=(4, 5)):
    layouts = op.layouts(shape)
    layouts[which] = replacement
    return layouts


# --- NULL for every pointer argument of every entry point

@pytest.mark.parametrize("name", OPS)
def test_null_every_pointer_of_the_operator_entry_points(name, backend):
    op = Op(name)
    names = tensor_names(name)
    # create: the handle out-parameter, every layout, every pointer attribute (reduce_sum's axes)
    desc = VP(SENTINEL_HANDLE)
    expect(op.create(None, *[ctypes.byref(l) for l in op.layouts()], *op.attrs()), Status.NULL_POINTER, "desc")
    for which in range(1 + op.num_inputs):
        create_fails(op, layouts_with(op, which, None), Status.NULL_POINTER, what="layout %d" % which)
        assert "layout of %s is NULL" % names[which] in last_error()
    for k, t in enumerate(op.attr_types):
        if isinstance(t, type) and issubclass(t, ctypes._Pointer):
            attrs = op.attrs()[:k] + (None,) + op.attrs()[k + 1:]
            create_fails(op, op.layouts(), Status.NULL_POINTER, attrs=attrs, what="attribute %d NULL" % k)
    status, desc = op.create_desc(op.layouts())
    ok(status)
    try:
        # workspace size: the handle and the size out-parameter
        size = ctypes.c_size_t(SENTINEL_HANDLE)
        expect(op.workspace(None, ctypes.byref(size)), Status.BAD_DESCRIPTOR, "workspace(NULL desc)")
        assert size.value == SENTINEL_HANDLE
        expect(op.workspace(desc, None), Status.NULL_POINTER, "workspace(bytes NULL)")
        # execute: the handle, every data pointer (the workspace is tested where one is needed)
        bufs = standard_buffers(op, backend)
        expect(run(op, None, bufs), Status.BAD_DESCRIPTOR, "execute(NULL desc)")
        unchanged(bufs, "execute(NULL desc)")
        for i in range(1 + op.num_inputs):
            ptrs = [bufs.ptr(k) if k != i else None for k in range(1 + op.num_inputs)]
            expect(run(op, desc, bufs, ptrs=ptrs), Status.NULL_POINTER, "execute(%s NULL)" % names[i])
            assert names[i] in last_error()
            unchanged(bufs, "execute(%s NULL)" % names[i])
        expect(op.destroy(None), Status.BAD_DESCRIPTOR, "destroy(NULL)")
    finally:
        ok(op.destroy(desc))


def test_null_every_pointer_of_the_runtime_entry_points(backend):
    n = 64
    a = VP()
    ok(lib.oprt_malloc(ctypes.byref(a), n))
    stream = VP()
    ok(lib.oprt_stream_create(ctypes.byref(stream)))
    host = np.full(n, 0x11, np.uint8)
    hp = host.ctypes.data
    h2d, d2h = (1, 2) if backend != "cpu" else (0, 0)
    try:
        ok(lib.oprt_memset(a, 0x22, n))
        expect(lib.oprt_device_name(None, 64), Status.NULL_POINTER, "device_name(NULL)")
        expect(lib.oprt_malloc(None, 16), Status.NULL_POINTER, "malloc(NULL)")
        expect(MALLOC_ASYNC(None, 16, stream), Status.NULL_POINTER, "malloc_async(NULL)")
        expect(lib.oprt_stream_create(None), Status.NULL_POINTER, "stream_create(NULL)")
        expect(lib.oprt_memset(None, 0, 8), Status.NULL_POINTER, "memset(NULL)")
        for fn, extra in ((MEMCPY, ()), (MEMCPY_ASYNC, (stream,))):
            expect(fn(None, a, 8, d2h, *extra), Status.NULL_POINTER, "%s(dst NULL)" % fn.__name__)
            expect(fn(hp, None, 8, d2h, *extra), Status.NULL_POINTER, "%s(src NULL)" % fn.__name__)
            expect(fn(a, None, 8, h2d, *extra), Status.NULL_POINTER, "%s(src NULL)" % fn.__name__)
            expect(fn(None, None, 8, d2h, *extra), Status.NULL_POINTER, "%s(both NULL)" % fn.__name__)
        ok(lib.oprt_stream_synchronize(stream))
        assert (host == 0x11).all(), "a failed copy wrote the host buffer"
        back = np.zeros(n, np.uint8)
        ok(lib.oprt_memcpy(back.ctypes.data, a, n, d2h))
        assert (back == 0x22).all(), "a failed call wrote the device buffer"
        # NULL where it means "nothing" or "the default stream" is fine
        ok(lib.oprt_free(None))
        ok(FREE_ASYNC(None, stream))
        ok(FREE_ASYNC(None, None))
        ok(lib.oprt_stream_destroy(None))
        ok(lib.oprt_stream_synchronize(None))
    finally:
        ok(lib.oprt_stream_destroy(stream))
        ok(lib.oprt_free(a))


# --- bad enum values

@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("dtype", [77, -1, 4, 2**31 - 1, -2**31])
def test_bad_dtype_value_in_every_layout(name, dtype):
    op = Op(name)
    for which in range(1 + op.num_inputs):
        layouts = op.layouts()
        layouts[which].dtype = dtype
        create_fails(op, layouts, Status.BAD_DTYPE, what="dtype %d in layout %d" % (dtype, which))
        assert str(dtype) in last_error()


BAD_VALUES = [77, -1, 2**31 - 1, -2**31]


def test_bad_enum_values_of_the_runtime():
    before = lib.oprt_get_backend()
    for value in BAD_VALUES + [4]:  # dtypes are 0..3
        assert lib.oprt_dtype_size(value) == 0, value
    for value in BAD_VALUES + [len(Status)]:
        assert lib.oprt_status_string(value).decode() == "unknown status", value
    for value in BAD_VALUES + [OPRT_BACKEND_COUNT]:  # backends are 0..2
        assert lib.oprt_backend_name(value).decode() == "unknown", value
        assert not lib.oprt_backend_compiled(value) and not lib.oprt_backend_available(value), value
        expect(lib.oprt_set_backend(value), Status.INVALID_ARGUMENT, "set_backend(%d)" % value)
        assert lib.oprt_get_backend() == before


@pytest.mark.parametrize("kind", [9, 4, -1, 77, 2**31 - 1])
def test_bad_memcpy_kind(kind, backend):
    n = 32
    src = np.arange(n, dtype=np.uint8)
    dst = np.full(n, 0xEE, np.uint8)
    expect(MEMCPY(dst.ctypes.data, src.ctypes.data, n, kind), Status.INVALID_ARGUMENT, "memcpy kind %d" % kind)
    expect(MEMCPY_ASYNC(dst.ctypes.data, src.ctypes.data, n, kind, None), Status.INVALID_ARGUMENT,
           "memcpy_async kind %d" % kind)
    ok(lib.oprt_device_synchronize())
    assert (dst == 0xEE).all(), "memcpy with a bad kind wrote"


# --- ranks, overflowing shapes and strides

@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("ndim", [9, -1, 2**31 - 1, -2**31])
def test_bad_rank_in_every_layout(name, ndim):
    op = Op(name)
    for which in range(1 + op.num_inputs):
        create_fails(op, layouts_with(op, which, layout((2,) * 8, ndim=ndim)), Status.BAD_SHAPE,
                     what="ndim %d in layout %d" % (ndim, which))
        assert "ndim %d" % ndim in last_error()


# (shape, strides or None for row-major, dtype, statuses): element counts, byte sizes and extents past
# int64. A row-major layout of more than 2^63 elements already has a stride x extent past it: either
# status names the problem; with zero strides only the element count is wrong.
SHAPE_OR_STRIDES = (Status.BAD_SHAPE, Status.BAD_STRIDES)
OVERFLOWS = [
    ((2**32, 2**32), None, F32, SHAPE_OR_STRIDES),  # 2^64 elements
    ((2**31, 2**31, 4), None, F32, SHAPE_OR_STRIDES),  # 2^64 elements
    ((2**32, 2**32), (0, 0), F32, (Status.BAD_SHAPE,)),  # 2^64 elements, all in one place
    ((2**62,), None, F32, (Status.BAD_STRIDES,)),  # 2^62 elements, 2^64 bytes
    ((2**60, 4), None, F16, (Status.BAD_STRIDES,)),  # 2^62 elements of 2 bytes
    ((2**61, 4), None, F16, (Status.BAD_SHAPE,)),  # 2^63 elements
    ((3,), (2**62,), F32, (Status.BAD_STRIDES,)),  # last element at 2^63
    ((3,), (2**61,), F32, (Status.BAD_STRIDES,)),  # last element at 2^62: 2^64 bytes
    ((2, 2), (2**62, 2**62), F64, (Status.BAD_STRIDES,)),  # the extents' sum wraps
    ((2**20, 2**40), (0, 2**24), F32, (Status.BAD_STRIDES,)),  # (2^40 - 1) * 2^24 wraps
]


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("shape,strides,dtype,status", OVERFLOWS, ids=[str(i) for i in range(len(OVERFLOWS))])
def test_overflowing_layouts_in_every_position(name, shape, strides, dtype, status):
    op = Op(name)
    for which in range(1 + op.num_inputs):
        layouts = op.layouts((4, 5), dtype)
        layouts[which] = layout(shape, dtype, strides=strides)
        # The other layouts are valid, so the overflow is the first thing wrong with the call.
        create_fails(op, layouts, status, what="%s%s in layout %d" % (shape, strides or "", which))


def test_a_huge_broadcast_input_is_not_an_overflow():
    # 2^62 elements at stride 0 span one element: valid (the output is what must fit).
    op = Op("copy")
    status, desc = op.create_desc([layout((2**62,), strides=(1,)), layout((2**62,), strides=(0,))])
    assert status == Status.BAD_STRIDES and "y" in last_error()  # y spans 2^64 bytes
    status, desc = op.create_desc([layout((2**20,)), layout((2**62 // 2**20, 2**20), strides=(0, 1))])
    assert status == Status.BAD_SHAPE  # x does not broadcast to y
    status, desc = op.create_desc([layout((1, 2**20)), layout((1, 2**20), strides=(2**62, 1))])
    ok(status)  # any stride on an extent-1 dim: it is never stepped
    ok(op.destroy(desc))


# --- descriptor lifetime

@pytest.mark.parametrize("name", OPS)
def test_use_after_destroy(name, backend):
    op = Op(name)
    status, desc = op.create_desc(op.layouts())
    ok(status)
    ok(op.destroy(desc))
    bufs = standard_buffers(op, backend)
    for _ in range(2):
        size = ctypes.c_size_t(SENTINEL_HANDLE)
        expect(op.workspace(desc, ctypes.byref(size)), Status.BAD_DESCRIPTOR, "workspace after destroy")
        assert size.value == SENTINEL_HANDLE
        expect(run(op, desc, bufs), Status.BAD_DESCRIPTOR, "execute after destroy")
        expect(op.destroy(desc), Status.BAD_DESCRIPTOR, "destroy after destroy")
    unchanged(bufs, "use after destroy")


@pytest.mark.parametrize("name", OPS)
def test_stale_handle_after_reuse(name, backend):
    # A destroyed handle stays dead while many new descriptors (of every op) are created: even if
    # one of them reuses its memory, the old handle must never reach it.
    op = Op(name)
    status, stale = op.create_desc(op.layouts())
    ok(status)
    ok(op.destroy(stale))
    bufs = standard_buffers(op, backend)
    live = []
    try:
        for k in range(300):
            other = Op(OPS[k % len(OPS)])
            status, d = other.create_desc(other.layouts((3 + k % 4, 5)))
            ok(status)
            live.append((other, d))
            assert d.value != stale.value, "a handle was reused"
            if k % 50 == 0:
                size = ctypes.c_size_t(SENTINEL_HANDLE)
                expect(op.workspace(stale, ctypes.byref(size)), Status.BAD_DESCRIPTOR, "stale workspace")
                assert size.value == SENTINEL_HANDLE
                expect(run(op, stale, bufs), Status.BAD_DESCRIPTOR, "stale execute")
                unchanged(bufs, "stale execute")
        for other, d in live[:150]:  # some destroyed, some alive
            ok(other.destroy(d))
        for _ in range(3):
            expect(run(op, stale, bufs), Status.BAD_DESCRIPTOR, "stale execute")
            expect(op.destroy(stale), Status.BAD_DESCRIPTOR, "stale destroy")
        unchanged(bufs, "stale handle")
        for other, d in live[150:]:  # and the new ones still work
            size = ctypes.c_size_t()
            ok(other.workspace(d, ctypes.byref(size)))
    finally:
        for other, d in live[150:]:
            ok(other.destroy(d))


@pytest.mark.parametrize("name", OPS)
def test_forged_handles(name, backend):
    op = Op(name)
    status, real = op.create_desc(op.layouts())
    ok(status)
    bufs = standard_buffers(op, backend)
    junk = np.zeros(64, np.uint8)
    forged = [1, 2, 8, 0x1000, real.value + 1, real.value + 2, real.value + 1000, junk.ctypes.data,
              ctypes.addressof(ctypes.c_int(0)), 2**63 - 1, SIZE_MAX]
    try:
        for h in forged:
            size = ctypes.c_size_t(SENTINEL_HANDLE)
            expect(op.workspace(VP(h), ctypes.byref(size)), Status.BAD_DESCRIPTOR, "workspace(%#x)" % h)
            assert size.value == SENTINEL_HANDLE
            expect(run(op, VP(h), bufs), Status.BAD_DESCRIPTOR, "execute(%#x)" % h)
            expect(op.destroy(VP(h)), Status.BAD_DESCRIPTOR, "destroy(%#x)" % h)
        unchanged(bufs, "forged handles")
        assert (junk == 0).all()
    finally:
        ok(op.destroy(real))


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("other", OPS)
def test_descriptor_of_every_other_operator(name, other, backend):
    if name == other:
        pytest.skip("same operator")
    op, wrong = Op(name), Op(other)
    status, desc = op.create_desc(op.layouts())
    ok(status)
    bufs = standard_buffers(wrong, backend)
    size = ctypes.c_size_t(SENTINEL_HANDLE)
    expect(wrong.workspace(desc, ctypes.byref(size)), Status.BAD_DESCRIPTOR, "workspace")
    assert size.value == SENTINEL_HANDLE
    expect(run(wrong, desc, bufs), Status.BAD_DESCRIPTOR, "execute")
    expect(wrong.destroy(desc), Status.BAD_DESCRIPTOR, "destroy")
    unchanged(bufs, "descriptor of %s passed to %s" % (name, other))
    ok(op.destroy(desc))


# --- data pointers

@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("dtype", [F32, F16, F64])
def test_misaligned_data_pointer(name, dtype, backend):
    op = Op(name)
    np_type = {F32: np.float32, F16: np.float16, F64: np.float64}[dtype]
    status, desc = op.create_desc(op.layouts((4, 5), dtype))
    ok(status)
    rng = np.random.default_rng(11)
    # one spare element at the end of every buffer: a misaligned pointer still points inside it
    hosts = [np.full(op.out_shape((4, 5)), testing.SENTINEL, np_type)]
    hosts += [rng.standard_normal((4, 5)).astype(np_type) for _ in range(op.num_inputs)]
    padded = [np.concatenate([h.reshape(-1), np.zeros(1, np_type)]) for h in hosts]
    bufs = Buffers(backend, padded)
    names = tensor_names(name)
    try:
        for i in range(1 + op.num_inputs):
            for shift in sorted({1, np.dtype(np_type).itemsize // 2} - {0}):
                ptrs = [bufs.ptr(k) + (shift if k == i else 0) for k in range(1 + op.num_inputs)]
                expect(run(op, desc, bufs, ptrs=ptrs), Status.INVALID_ARGUMENT, "%s + %d bytes" % (names[i], shift))
                assert "aligned" in last_error() and names[i] in last_error(), last_error()
                out = bufs.read(0)
                assert (out[:-1] == testing.SENTINEL).all() and out[-1] == 0, "output written after an error"
    finally:
        ok(op.destroy(desc))


# --- memory

@pytest.mark.parametrize("bytes_", [SIZE_MAX, SIZE_MAX - 1, SIZE_MAX - 63, 2**63, 2**62 + 1])
def test_malloc_of_impossible_sizes(bytes_, backend):
    p = VP(SENTINEL_HANDLE)
    expect(lib.oprt_malloc(ctypes.byref(p), bytes_), Status.OUT_OF_MEMORY, "malloc(%d)" % bytes_)
    assert p.value is None, "a failed malloc left a pointer"
    p = VP(SENTINEL_HANDLE)
    expect(MALLOC_ASYNC(ctypes.byref(p), bytes_, None), Status.OUT_OF_MEMORY, "malloc_async(%d)" % bytes_)
    assert p.value is None, "a failed malloc_async left a pointer"


def test_malloc_async_and_free_async(backend):
    device = backend != "cpu"
    h2d, d2h, d2d = (1, 2, 3) if device else (0, 0, 0)
    p = VP(SENTINEL_HANDLE)
    ok(MALLOC_ASYNC(ctypes.byref(p), 0, None))
    assert p.value is None
    stream = VP()
    ok(lib.oprt_stream_create(ctypes.byref(stream)))
    try:
        for s in (stream, VP(None)):
            n = 1 << 20
            a, b = VP(), VP()
            ok(MALLOC_ASYNC(ctypes.byref(a), n, s))
            ok(MALLOC_ASYNC(ctypes.byref(b), n, s))
            assert a.value and b.value and a.value != b.value and a.value % 16 == 0 and b.value % 16 == 0
            src = np.random.default_rng(1).integers(0, 255, n, dtype=np.uint8)
            back = np.zeros(n, np.uint8)
            ok(MEMCPY_ASYNC(a, src.ctypes.data, n, h2d, s))
            ok(MEMCPY_ASYNC(b, a, n, d2d, s))
            ok(MEMCPY_ASYNC(back.ctypes.data, b, n, d2h, s))
            ok(FREE_ASYNC(a, s))
            ok(FREE_ASYNC(b, s))
            ok(lib.oprt_stream_synchronize(s))
            np.testing.assert_array_equal(back, src)
        # many small ones: the pool gives memory back
        for _ in range(1000):
            q = VP()
            ok(MALLOC_ASYNC(ctypes.byref(q), 4096, stream))
            ok(FREE_ASYNC(q, stream))
        ok(lib.oprt_stream_synchronize(stream))
    finally:
        ok(lib.oprt_stream_destroy(stream))


def test_a_workspace_from_malloc_async(backend):
    # What a binding does per stream: the workspace an op asks for, stream-ordered.
    op = Op("reduce_sum")
    shape = (4, 1 << 16)
    status, desc = op.create_desc(op.layouts(shape))
    ok(status)
    size = ctypes.c_size_t()
    ok(op.workspace(desc, ctypes.byref(size)))
    stream = VP()
    ok(lib.oprt_stream_create(ctypes.byref(stream)))
    try:
        ws = VP()
        ok(MALLOC_ASYNC(ctypes.byref(ws), size.value, stream))
        bufs = standard_buffers(op, backend, shape)
        ptrs = [bufs.ptr(i) for i in range(2)]
        ok(op.execute(desc, ws, size.value, *ptrs, stream))
        ok(FREE_ASYNC(ws, stream))
        ok(lib.oprt_stream_synchronize(stream))
        testing.assert_close(bufs.read(0), bufs.host[1].astype(np.float64).sum(axis=1), "float32",
                             reduce_len=shape[1])
    finally:
        ok(lib.oprt_stream_destroy(stream))
        ok(op.destroy(desc))


# --- the active backend is per thread

def _in_thread(fn):
    box = {}

    def body():
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller
            box["error"] = e

    t = threading.Thread(target=body)
    t.start()
    t.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


def test_a_new_thread_starts_on_cpu():
    before = lib.oprt_get_backend()
    for b in range(OPRT_BACKEND_COUNT):
        if lib.oprt_backend_available(b):
            ok(lib.oprt_set_backend(b))
            assert _in_thread(lib.oprt_get_backend) == 0, "a new thread did not start on cpu"
            assert lib.oprt_get_backend() == b
    ok(lib.oprt_set_backend(before))

    def failed_set():  # a thread's failed switch changes nothing anywhere
        status = lib.oprt_set_backend(77)
        return status, lib.oprt_get_backend()

    assert _in_thread(failed_set) == (Status.INVALID_ARGUMENT, 0)
    assert lib.oprt_get_backend() == before


@pytest.mark.parametrize("backend_name", testing.backend_params(devices_only=True))
def test_set_backend_is_per_thread(backend_name):
    device = oprt._backends.BACKENDS[backend_name]
    before = lib.oprt_get_backend()
    ok(lib.oprt_set_backend(0))

    def switch():
        ok(lib.oprt_set_backend(device))
        seen = [lib.oprt_get_backend()]
        # a descriptor made here belongs to the device backend, whatever thread runs it later
        op = Op("copy")
        status, desc = op.create_desc(op.layouts())
        ok(status)
        return seen, desc

    seen, desc = _in_thread(switch)
    assert seen == [device]
    assert lib.oprt_get_backend() == 0, "another thread's oprt_set_backend changed this thread's backend"
    op = Op("copy")
    with oprt.backend(backend_name):
        bufs = standard_buffers(op, backend_name)
    ok(run(op, desc, bufs))  # executed from a thread on cpu: runs on the descriptor's own backend
    np.testing.assert_array_equal(bufs.read(0), bufs.host[1])
    ok(op.destroy(desc))
    ok(lib.oprt_set_backend(before))


# --- kernel variants (per thread, like the backend) and the launch log

SET_VARIANT = c_function("oprt_set_kernel_variant", ctypes.c_int, [ctypes.c_char_p])
GET_VARIANT = c_function("oprt_get_kernel_variant", ctypes.c_char_p, [])
LAST_LAUNCHES = c_function("oprt_last_launches", ctypes.c_char_p, [])


def test_kernel_variant_names():
    try:
        for name in (None, b""):
            ok(SET_VARIANT(name))
            assert GET_VARIANT() == b"default"
        for name in (b"cute", b"x" * 31, b"A_9"):
            ok(SET_VARIANT(name))
            assert GET_VARIANT() == name
        for name in (b"x" * 32, b"x" * 4096, b"cu-te", b"a b", b"\xc3\xa9", b"x\n", b"../x", b"%s%n"):
            expect(SET_VARIANT(name), Status.INVALID_ARGUMENT, "variant %r" % name[:40])
            assert GET_VARIANT() == b"A_9", "a refused name changed the variant"
    finally:
        ok(SET_VARIANT(None))


@pytest.mark.parametrize("name", OPS)
def test_unknown_kernel_variant(name, backend):
    op = Op(name)
    ok(SET_VARIANT(b"nosuch"))
    try:
        create_fails(op, op.layouts(), Status.NOT_SUPPORTED, what="variant nosuch")
        assert "default" in last_error(), last_error()  # names the variants it has
    finally:
        ok(SET_VARIANT(None))
    status, desc = op.create_desc(op.layouts())
    ok(status)
    ok(op.destroy(desc))


def test_kernel_variant_is_per_thread():
    ok(SET_VARIANT(b"nosuch"))
    try:
        assert _in_thread(GET_VARIANT) == b"default", "a new thread did not start on the default variant"

        def set_other():
            ok(SET_VARIANT(b"other"))
            return GET_VARIANT()

        assert _in_thread(set_other) == b"other"
        assert GET_VARIANT() == b"nosuch", "another thread's oprt_set_kernel_variant changed this thread's"
    finally:
        ok(SET_VARIANT(None))


@pytest.mark.parametrize("name", OPS)
def test_launch_log_after_errors_and_on_cpu(name, backend):
    op = Op(name)
    status, desc = op.create_desc(op.layouts())
    ok(status)
    bufs = standard_buffers(op, backend)
    ok(run(op, desc, bufs))
    launches = LAST_LAUNCHES()
    assert launches is not None
    if backend == "cpu":
        assert launches == b"", launches
    expect(run(op, desc, bufs, ptrs=[None] * (1 + op.num_inputs)), Status.NULL_POINTER, "execute(NULLs)")
    assert LAST_LAUNCHES() == b"", "a failed execute left a launch log"
    ok(op.destroy(desc))
    expect(run(op, desc, bufs), Status.BAD_DESCRIPTOR, "execute after destroy")
    assert LAST_LAUNCHES() == b""


# --- relu's slope is a double

@pytest.mark.parametrize("slope", [0.1, 1 / 3, -0.7, 1e-300, 2.5])
def test_relu_double_slope_is_exact_on_f64(slope, backend):
    op = Op("relu")
    status, desc = op.create_desc(op.layouts((4, 5), F64), attrs=(ctypes.c_double(slope),))
    ok(status)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 5)) * 10
    bufs = Buffers(backend, [np.full((4, 5), testing.SENTINEL), x])
    ok(run(op, desc, bufs))
    want = np.where(x > 0, x, x * slope)
    np.testing.assert_array_equal(bufs.read(0), want)  # exact: the slope is not rounded to f32
    ok(op.destroy(desc))


if __name__ == "__main__":
    raise SystemExit(testing.main(__file__))
