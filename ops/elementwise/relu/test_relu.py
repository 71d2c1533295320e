"""relu / leaky relu: every case of cases.CASES x dtype x backend (layouts, slopes, strided out=, in
place), torch's special values, and its own error paths (slopes, shapes). The checks every operator
gets run in tests/test_contract.py from cases.CONTRACTS."""

import numpy as np
import pytest

import operator_runtime as oprt
from operator_runtime import testing
from ops.elementwise.relu import cases

BACKENDS = testing.backend_params()
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
@pytest.mark.parametrize("x_shape,out_shape", [((4, 5), (5, 4)), ((4, 5), (20,)), ((4, 5), (1, 5)), ((3,), (0,))])
def test_shape_mismatch(backend, dtype, x_shape, out_shape):
    x = testing.random_values(x_shape, dtype, RNG)
    testing.check_error(cases.op, [x], backend, oprt.BadShapeError, out=testing.make_output(out_shape, dtype))


if __name__ == "__main__":
    raise SystemExit(testing.main(__file__))
