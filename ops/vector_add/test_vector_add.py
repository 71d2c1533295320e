"""vector_add: every case of cases.CASES x dtype x backend (layouts, numpy broadcasting, strided out=,
in place), plus special values, broadcasting into a larger out=, and every error path (exact exception
type, output left untouched)."""

import numpy as np
import pytest

import operator_runtime as oprt
from operator_runtime import testing
from ops.vector_add import cases

BACKENDS = testing.backend_params()
DEVICE_BACKENDS = testing.backend_params(devices_only=True)
DTYPES = testing.dtype_params()
RNG = np.random.default_rng(4321)


@pytest.mark.parametrize("backend,case,dtype", testing.case_params(cases.CASES))
def test_case(backend, case, dtype):
    testing.run_case(cases, case, dtype, backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_special_value_arithmetic(backend, dtype):
    s = testing.special_values(dtype)
    a, b = np.repeat(s, s.size), np.tile(s, s.size)  # every pair: inf + -inf = NaN, huge + huge = inf, ...
    c = testing.check_case(cases.op, cases.reference, [a, b], dtype, backend)
    assert np.isnan(c.astype(np.float64)[np.isinf(a.astype(np.float64)) & (a.astype(np.float64) == -b.astype(np.float64))]).all()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("a_shape,b_shape,out_shape", [((5,), (5,), (4, 5)), ((), (1,), (3, 1025)), ((3, 1), (7,), (2, 3, 7))])
def test_inputs_broadcast_to_a_larger_out(backend, dtype, a_shape, b_shape, out_shape):
    a, b = testing.random_values(a_shape, dtype, RNG), testing.random_values(b_shape, dtype, RNG)
    testing.check_case(cases.op, lambda x, y: np.broadcast_to(x + y, out_shape), [a, b], dtype, backend,
                       out="transposed")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_fully_in_place_a_plus_a(backend, dtype):
    a = testing.arrange(testing.random_values((33, 17), dtype, RNG), "sliced")
    expected = (a.astype(np.float64) * 2).astype(a.dtype)
    dev = testing.to_backend(a, backend)
    with oprt.backend(backend):
        assert oprt.vector_add(dev, dev, out=dev) is dev
    testing.assert_close(testing.to_numpy(dev), expected, dtype)


# ------------------------------------------------------------------------------------------ errors


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("which", ["b", "out"])
def test_dtype_mismatch(backend, dtype, which):
    other = "float32" if dtype != "float32" else "float64"
    a = testing.random_values((4, 5), dtype, RNG)
    b = testing.random_values((4, 5), other if which == "b" else dtype, RNG)
    out = testing.make_output((4, 5), other if which == "out" else dtype)
    testing.check_error(cases.op, [a, b], backend, oprt.BadDtypeError, out=out)


@pytest.mark.parametrize("backend", BACKENDS)
def test_unsupported_dtype(backend):
    a = np.ones((4, 5), dtype=np.float32)
    testing.check_error(cases.op, [a, np.ones((4, 5), dtype=np.int64)], backend, oprt.BadDtypeError, convert=False)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("a_shape,b_shape,out_shape", [
    ((4, 5), (4,), None),  # not broadcastable
    ((3,), (4,), None),
    ((4, 5), (4, 5), (5, 4)),  # out of the wrong shape
    ((4, 5), (4, 5), (4, 1)),  # out smaller than the broadcast shape
    ((2, 4, 5), (4, 5), (4, 5)),  # an input with more dims than out
])
def test_shape_mismatch(backend, dtype, a_shape, b_shape, out_shape):
    a, b = testing.random_values(a_shape, dtype, RNG), testing.random_values(b_shape, dtype, RNG)
    out = testing.make_output(out_shape, dtype) if out_shape is not None else None
    testing.check_error(cases.op, [a, b], backend, oprt.BadShapeError, out=out)


@pytest.mark.parametrize("backend", BACKENDS)
def test_rank_above_8(backend):
    shape = (2, 1, 1, 1, 1, 1, 1, 1, 2)
    a = testing.random_values(shape, "float32", RNG)
    testing.check_error(cases.op, [a, a], backend, oprt.BadShapeError, out=testing.make_output(shape, "float32"))
    testing.check_error(cases.op, [a, a], backend, oprt.BadShapeError)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("which", [0, 1])
def test_output_partially_overlapping_an_input(backend, dtype, which):
    x, out = testing.overlapping_pair(backend, dtype, (4, 8), shift=3)
    other = testing.to_backend(testing.random_values((4, 8), dtype, RNG), backend)
    inputs = [x, other] if which == 0 else [other, x]
    testing.check_error(cases.op, inputs, backend, oprt.BadStridesError, out=out, convert=False)


@pytest.mark.parametrize("backend", BACKENDS)
def test_output_aliasing_a_broadcast_input(backend):
    # out is b's memory, but b is read with 0 strides: not an exact alias.
    b = testing.to_backend(testing.random_values((8,), "float32", RNG), backend)
    a = testing.to_backend(testing.random_values((8, 8), "float32", RNG), backend)
    out = testing.strided_view(b, (8, 8), (0, 1))  # also self-overlapping
    testing.check_error(cases.op, [a, b], backend, oprt.BadStridesError, out=out, convert=False)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_self_overlapping_output(backend, dtype):
    a, b = testing.random_values((4, 5), dtype, RNG), testing.random_values((5,), dtype, RNG)
    out = testing.self_overlapping_output(backend, dtype, (4, 5))
    testing.check_error(cases.op, [a, b], backend, oprt.BadStridesError, out=out)


@pytest.mark.parametrize("backend", DEVICE_BACKENDS)
def test_host_array_on_device_backend(backend):
    a = testing.random_values((4, 5), "float32", RNG)
    dev_a = testing.to_backend(a, backend)
    with oprt.backend(backend):
        oprt.vector_add(dev_a, dev_a)  # the same layouts are now cached: the placement check must still run
    testing.check_error(cases.op, [a, a], backend, oprt.InvalidArgumentError, convert=False)
    testing.check_error(cases.op, [dev_a, a], backend, oprt.InvalidArgumentError, convert=False)
    testing.check_error(cases.op, [dev_a, dev_a], backend, oprt.InvalidArgumentError,
                        out=testing.make_output((4, 5), "float32"), convert=False)


@pytest.mark.skipif("cpu" not in testing.backends(), reason="cpu backend not requested")
def test_device_array_on_cpu_backend():
    a = testing.random_values((4, 5), "float32", RNG)
    out = testing.make_output((4, 5), "float32")
    oprt.vector_add(a, a, out=out.copy())  # caches the layouts
    testing.check_error(cases.op, [a, testing.FakeDeviceArray(a)], "cpu", oprt.InvalidArgumentError, out=out)
    testing.check_error(cases.op, [a, a], "cpu", oprt.InvalidArgumentError, out=testing.FakeDeviceArray(out))
    assert (out == testing.SENTINEL).all()


if __name__ == "__main__":
    raise SystemExit(testing.main(__file__))
