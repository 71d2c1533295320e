"""relu / leaky relu: every case of cases.CASES x dtype x backend (layouts, slopes, strided out=, in
place), torch's special values, and every error path (exact exception type, output left untouched)."""

import numpy as np
import pytest

import operator_runtime as oprt
from operator_runtime import testing
from ops.elementwise.relu import cases

BACKENDS = testing.backend_params()
DEVICE_BACKENDS = testing.backend_params(devices_only=True)
DTYPES = testing.dtype_params()
RNG = np.random.default_rng(777)


@pytest.mark.parametrize("backend,case,dtype", testing.case_params(cases.CASES))
def test_case(backend, case, dtype):
    testing.run_case(cases, case, dtype, backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("slope", [0.0, 0.1, -2.0])
def test_special_values(backend, dtype, slope):
    x = testing.special_values(dtype)  # NaN, inf, -inf, huge, -huge, 0, -0, 1, -1, tiny
    y = testing.check_case(cases.op, cases.reference, [x], dtype, backend, attrs={"negative_slope": slope}).astype(np.float64)
    assert np.isnan(y[0]), "relu(NaN) must stay NaN"
    assert y[1] == np.inf
    assert y[2] == (0.0 if slope == 0 else -np.inf * slope), "relu(-inf) is 0 (torch), leaky relu(-inf) is -inf * slope"


@pytest.mark.parametrize("backend", BACKENDS)
def test_slope_is_exact_for_float64(backend):
    # The C API takes the slope as a double: float64 data sees 0.1 itself, not float32(0.1).
    x = -np.arange(1, 9, dtype=np.float64)
    y = testing.check_case(cases.op, cases.reference, [x], "float64", backend, attrs={"negative_slope": 0.1}, exact=True)
    assert y[0] == -0.1 and y[7] == -8 * 0.1


# ------------------------------------------------------------------------------------------ errors


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("slope", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_slope(backend, slope):
    x = testing.random_values((4, 5), "float32", RNG)
    testing.check_error(cases.op, [x], backend, oprt.InvalidArgumentError, out=testing.make_output((4, 5), "float32"),
                        attrs={"negative_slope": slope})


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_dtype_mismatch(backend, dtype):
    other = "float32" if dtype != "float32" else "bfloat16"
    x = testing.random_values((4, 5), dtype, RNG)
    testing.check_error(cases.op, [x], backend, oprt.BadDtypeError, out=testing.make_output((4, 5), other))


@pytest.mark.parametrize("backend", BACKENDS)
def test_unsupported_dtype(backend):
    testing.check_error(cases.op, [np.ones((4, 5), dtype=np.int8)], backend, oprt.BadDtypeError, convert=False)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("x_shape,out_shape", [((4, 5), (5, 4)), ((4, 5), (20,)), ((4, 5), (1, 5)), ((3,), (0,))])
def test_shape_mismatch(backend, dtype, x_shape, out_shape):
    x = testing.random_values(x_shape, dtype, RNG)
    testing.check_error(cases.op, [x], backend, oprt.BadShapeError, out=testing.make_output(out_shape, dtype))


@pytest.mark.parametrize("backend", BACKENDS)
def test_rank_above_8(backend):
    shape = (1, 2, 1, 1, 1, 1, 1, 2, 1)
    x = testing.random_values(shape, "float32", RNG)
    testing.check_error(cases.op, [x], backend, oprt.BadShapeError, out=testing.make_output(shape, "float32"))
    testing.check_error(cases.op, [x], backend, oprt.BadShapeError)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shift", [1, 5])
def test_output_partially_overlapping_input(backend, dtype, shift):
    x, out = testing.overlapping_pair(backend, dtype, (6, 7), shift=shift)
    testing.check_error(cases.op, [x], backend, oprt.BadStridesError, out=out, convert=False)


@pytest.mark.parametrize("backend", BACKENDS)
def test_output_same_memory_other_layout(backend):
    base = testing.to_backend(testing.random_values((5, 5), "float16", RNG), backend)
    testing.check_error(cases.op, [base], backend, oprt.BadStridesError, out=testing.strided_view(base, (5, 5), (1, 5)),
                        convert=False)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_self_overlapping_output(backend, dtype):
    x = testing.random_values((3, 4, 5), dtype, RNG)
    out = testing.self_overlapping_output(backend, dtype, (3, 4, 5))
    testing.check_error(cases.op, [x], backend, oprt.BadStridesError, out=out)


@pytest.mark.parametrize("backend", DEVICE_BACKENDS)
def test_host_array_on_device_backend(backend):
    x = testing.random_values((4, 5), "float32", RNG)
    dev_x = testing.to_backend(x, backend)
    with oprt.backend(backend):
        oprt.relu(dev_x)  # the same layout is now cached: the placement check must still run
    testing.check_error(cases.op, [x], backend, oprt.InvalidArgumentError, convert=False)
    testing.check_error(cases.op, [dev_x], backend, oprt.InvalidArgumentError,
                        out=testing.make_output((4, 5), "float32"), convert=False)


@pytest.mark.skipif("cpu" not in testing.backends(), reason="cpu backend not requested")
def test_device_array_on_cpu_backend():
    x = testing.random_values((4, 5), "float32", RNG)
    out = testing.make_output((4, 5), "float32")
    oprt.relu(x, out=out.copy())  # caches the layout
    testing.check_error(cases.op, [testing.FakeDeviceArray(x)], "cpu", oprt.InvalidArgumentError, out=out)
    testing.check_error(cases.op, [x], "cpu", oprt.InvalidArgumentError, out=testing.FakeDeviceArray(out))
    assert (out == testing.SENTINEL).all()


if __name__ == "__main__":
    raise SystemExit(testing.main(__file__))
