"""reduce_sum: every case of cases.CASES x dtype x backend (one axis, several, all, negative axes,
keepdims, empty reduced axes, layouts, strided out=), special values, determinism, and its own error
paths (axes, shapes, aliasing). The checks every operator gets run in tests/test_contract.py from
cases.CONTRACTS."""

import re

import numpy as np
import pytest

import operator_runtime as oprt
from operator_runtime import testing
from ops.reduce_sum import cases

BACKENDS = testing.backend_params()
DTYPES = testing.dtype_params()
RNG = np.random.default_rng(99)


def check(x, dtype, backend, axis=None, keepdims=False, out=None):
    case = testing.Case(shapes=(x.shape,), attrs=(("axis", axis), ("keepdims", keepdims)))
    return testing.check_case(cases.op, cases.reference, [x], dtype, backend, attrs=case.kwargs, out=out,
                              torch_fn=cases.torch_reference, **cases.tolerance(case, [x], dtype))


@pytest.mark.parametrize("backend,case,dtype", testing.case_params(cases.CASES))
def test_case(backend, case, dtype):
    testing.run_case(cases, case, dtype, backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,axis,keepdims,expected_shape", [
    ((3, 0, 4), 1, False, (3, 4)),
    ((3, 0, 4), (0, 1), True, (1, 1, 4)),
    ((0,), None, False, ()),
    ((2, 0), None, True, (1, 1)),
])
def test_empty_reduction_gives_zeros(backend, dtype, shape, axis, keepdims, expected_shape):
    x = np.empty(shape, dtype=testing.np_dtype(dtype))
    out = testing.make_output(expected_shape, dtype)  # pre-filled with the sentinel: every element must be written
    dev_out = testing.to_backend(out, backend)
    with oprt.backend(backend):
        result = oprt.reduce_sum(testing.to_backend(x, backend), axis=axis, keepdims=keepdims, out=dev_out)
    assert result is dev_out
    y = testing.to_numpy(result)
    assert y.shape == expected_shape and (y.astype(np.float64) == 0).all()


def _special_rows(dtype):
    """Rows whose sums do not depend on the summation order (see testing.huge)."""
    h = testing.huge(dtype)
    rows = np.round(RNG.standard_normal((8, 64)), 2)
    rows[1, 5] = np.nan  # -> NaN
    rows[2, 7] = np.inf  # -> inf
    rows[3, 9] = -np.inf  # -> -inf
    rows[4, 1], rows[4, 60] = np.inf, -np.inf  # -> NaN
    rows[5, 30] = h  # -> about h, finite
    rows[6, 2], rows[6, 40] = h, h  # -> overflows to inf in every dtype
    rows[7, 3], rows[7, 33] = -h, -h  # -> -inf
    with np.errstate(all="ignore"):
        return rows.astype(testing.np_dtype(dtype))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_special_values(backend, dtype, layout):
    rows = _special_rows(dtype)
    y = check(testing.arrange(rows, layout), dtype, backend, axis=-1).astype(np.float64)
    assert np.isnan(y[[1, 4]]).all()
    assert y[2] == np.inf and y[3] == -np.inf and y[6] == np.inf and y[7] == -np.inf
    assert np.isfinite(y[[0, 5]]).all()
    # The same rows as columns (a strided reduction).
    cols = testing.arrange(np.ascontiguousarray(rows.T), layout)
    np.testing.assert_array_equal(check(cols, dtype, backend, axis=0).astype(np.float64)[[1, 2, 3, 4, 6, 7]],
                                  y[[1, 2, 3, 4, 6, 7]])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("axis", [None, -1, 0])
def test_deterministic(backend, dtype, axis):
    n = (32 << 20) if testing.is_device(backend) else (4 << 20)
    shape = (n,) if axis is None else (n // 4096, 4096)
    x = testing.to_backend(testing.random_values(shape, dtype, RNG), backend)
    with oprt.backend(backend):
        first = testing.to_numpy(oprt.reduce_sum(x, axis=axis)).copy()
        second = testing.to_numpy(oprt.reduce_sum(x, axis=axis))
    np.testing.assert_array_equal(testing._bits(np.asarray(first)), testing._bits(np.asarray(second)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_python_axis_forms(backend):
    # int, tuple, list, negative, None: all the numpy spellings reach the library as the same axes.
    x = testing.random_values((3, 4, 5), "float64", RNG)
    for axis in [1, -2, (1,), [1], (-2,)]:
        check(x, "float64", backend, axis=axis if not isinstance(axis, list) else tuple(axis))
        with oprt.backend(backend):
            y = testing.to_numpy(oprt.reduce_sum(testing.to_backend(x, backend), axis=axis))
        testing.assert_close(y, x.sum(axis=tuple(axis) if isinstance(axis, list) else axis), "float64", reduce_len=4)


# ------------------------------------------------------------------------------------------ errors


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape,axis", [
    ((3, 4, 5), 3), ((3, 4, 5), -4), ((3, 4, 5), (0, 3)),  # out of range
    ((3, 4, 5), (0, 0)), ((3, 4, 5), (1, -2)), ((3, 4, 5), (2, -1, 0)),  # listed twice
    ((3, 4, 5), (0, 1, 2, 0)),  # more axes than dims
    ((), 0), ((), -1),  # a 0-d x has no axis
])
def test_bad_axis(backend, shape, axis):
    x = testing.random_values(shape, "float32", RNG)
    testing.check_error(cases.op, [x], backend, oprt.InvalidArgumentError, attrs={"axis": axis})


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis,keepdims,out_shape", [
    (1, False, (3, 1, 5)),  # keepdims shape without keepdims
    (1, True, (3, 5)),
    (None, False, (1,)),
    ((0, 2), False, (5,)),
    (-1, False, (4, 3)),
])
def test_output_shape_mismatch(backend, dtype, axis, keepdims, out_shape):
    x = testing.random_values((3, 4, 5), dtype, RNG)
    e = testing.check_error(cases.op, [x], backend, oprt.BadShapeError, out=testing.make_output(out_shape, dtype),
                            attrs={"axis": axis, "keepdims": keepdims})
    assert re.search(r"\bout has shape\b", e.detail) and not re.search(r"\by\b", e.detail)  # Python's names


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_output_is_a_column_of_the_input(backend, dtype):
    # y is a view of x's first column: reduce_sum never runs in place (test_contract overlaps it otherwise).
    x = testing.to_backend(testing.random_values((4, 5), dtype, RNG), backend)
    y = testing.strided_view(x, (4,), (5,))
    testing.check_error(cases.op, [x], backend, oprt.BadStridesError, out=y, attrs={"axis": 1}, convert=False)


@pytest.mark.parametrize("backend", BACKENDS)
def test_no_axes_into_the_input_itself(backend):
    # axis=() is a copy, but not an in-place one: y == x exactly is still an overlap.
    x = testing.to_backend(testing.random_values((4, 5), "float32", RNG), backend)
    testing.check_error(cases.op, [x], backend, oprt.BadStridesError, out=x, attrs={"axis": ()}, convert=False)


if __name__ == "__main__":
    raise SystemExit(testing.main(__file__))
