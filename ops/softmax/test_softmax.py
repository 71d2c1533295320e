"""softmax and log_softmax: every case of cases.CASES x dtype x backend (every axis of 3-D tensors, 0-d,
empty, long rows, layouts, strided out=, in place), torch's special-value semantics, and their own error
paths (bad axis, shapes). The checks every operator gets run in tests/test_contract.py from cases.CONTRACTS."""

import numpy as np
import pytest

import operator_runtime as oprt
from operator_runtime import testing
from ops.softmax import cases

BACKENDS = testing.backend_params()
DTYPES = testing.dtype_params()
LOGS = pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
RNG = np.random.default_rng(2024)


def check(x, dtype, backend, axis=-1, log=False, out=None):
    case = testing.Case(shapes=(x.shape,), attrs=(("axis", axis), ("log", log)))
    return testing.check_case(cases.op, cases.reference, [x], dtype, backend, attrs=case.kwargs, out=out,
                              torch_fn=cases.torch_reference, **cases.tolerance(case, [x], dtype))


@pytest.mark.parametrize("backend,case,dtype", testing.case_params(cases.CASES))
def test_case(backend, case, dtype):
    testing.run_case(cases, case, dtype, backend)


def _special_rows(n, dtype):
    """11 rows of n values: special values where torch's semantics need them, at positions inside the row
    (a later part of a split row), with the NaN rows' expectation (rows 1-3 and 9) and the finite ones'."""
    h = testing.huge(dtype)
    rows = RNG.standard_normal((11, n)) * 3
    rows[1, :] = -np.inf  # all -inf -> NaN (as torch)
    rows[2, n * 5 // 7] = np.nan  # NaN -> the whole slice NaN
    rows[3, n // 3] = np.inf  # +inf -> NaN (inf - inf)
    rows[4, ::2] = -np.inf  # some -inf -> 0 (log: -inf) there, a proper distribution elsewhere
    rows[5, 0], rows[5, 1] = h, -h  # huge: finite, no overflow
    rows[6, :] = h  # all huge: uniform
    rows[7, :] = 0.0  # uniform
    rows[8, :] = -h
    rows[9, : n // 2] = -np.inf  # NaN among -inf only in a first half (whole parts of a split row) beside finite
    rows[9, n // 4] = np.nan  # values -> NaN (such a part's max is -inf, yet it is no all -inf part that adds nothing)
    rows[10, : n // 2] = -np.inf  # a first half of -inf (whole parts of a split row) -> 0 (log: -inf) there
    with np.errstate(all="ignore"):
        return rows.astype(testing.np_dtype(dtype))


def _check_special_rows(y, dtype, log):
    y = y.astype(np.float64)
    n = y.shape[1]
    assert np.isnan(y[[1, 2, 3, 9]]).all(), "slices of all -inf, with a NaN or with +inf give NaN"
    finite = [0, 4, 5, 6, 7, 8, 10]
    assert not np.isnan(y[finite]).any()
    if log:
        assert (y[4, ::2] == -np.inf).all() and (y[10, : n // 2] == -np.inf).all()
    else:
        assert (y[4, ::2] == 0).all() and (y[10, : n // 2] == 0).all()
        # Each output rounds: the sum's error grows like sqrt(n) (and f16's are subnormal in long rows).
        rtol = testing.TOLERANCES[dtype].eps * 64 * np.sqrt(max(1, n // 40))
        np.testing.assert_allclose(y[finite].sum(axis=1), 1.0, rtol=rtol)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [-1, 0])
@LOGS
def test_special_slices(backend, dtype, axis, log):
    x = _special_rows(40, dtype)
    x = x if axis == -1 else testing.arrange(np.ascontiguousarray(x.T), "contiguous")
    y = check(x, dtype, backend, axis=axis, log=log)
    _check_special_rows(y if axis == -1 else y.T, dtype, log)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(11, 262144), (11, 300001), (128, 131072)], ids=lambda s: "%dx%d" % s)
@LOGS
def test_special_long_rows(backend, dtype, shape, log):
    # NVIDIA's grid tier (11 rows, packed and odd) and cluster tier (128 rows, H200) combine the stats of
    # parts that are exponentiated separately.
    if backend != "nvidia":
        pytest.skip("NVIDIA's tiers; elsewhere these rows take the split tier, whose special values the cases cover")
    x = testing.random_values(shape, dtype, RNG, scale=3.0)
    x[:11] = _special_rows(shape[1], dtype)
    _check_special_rows(check(x, dtype, backend, log=log)[:11], dtype, log)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@LOGS
def test_all_neg_inf_row_is_nan_like_torch(backend, dtype, log):
    x = np.full((3, 1025), -np.inf).astype(testing.np_dtype(dtype))
    x[1] = testing.random_values((1025,), dtype, RNG)
    y = check(x, dtype, backend, axis=-1, log=log).astype(np.float64)
    assert np.isnan(y[[0, 2]]).all() and np.isfinite(y[1]).all()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2, -3])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
@LOGS
def test_every_axis_of_3d_into_strided_out(backend, dtype, axis, layout, log):
    x = testing.arrange(testing.random_values((6, 5, 33), dtype, RNG, scale=3.0), layout)
    check(x, dtype, backend, axis=axis, log=log, out="sliced")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@LOGS
def test_long_rows(backend, dtype, log):
    n = 262144 if testing.is_device(backend) else 65536
    rows = 8 if testing.is_device(backend) else 2
    check(testing.random_values((rows, n), dtype, RNG, scale=3.0), dtype, backend, log=log)


@pytest.mark.parametrize("backend", BACKENDS)
def test_translation_invariance(backend):
    # softmax(x + c) == softmax(x): the max is subtracted, nothing overflows.
    x = testing.random_values((4, 100), "float32", RNG, scale=3.0)
    with oprt.backend(backend):
        y0 = testing.to_numpy(oprt.softmax(testing.to_backend(x, backend)))
        y1 = testing.to_numpy(oprt.softmax(testing.to_backend(x + np.float32(1e4), backend)))
    testing.assert_close(y1, y0, "float32", rtol=1e-3, atol=1e-6)  # x + 1e4 itself rounds in float32


# ------------------------------------------------------------------------------------------ errors


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape,axis", [((3, 4, 5), 3), ((3, 4, 5), -4), ((7,), 1), ((7,), -2), ((), 1), ((), -2)])
@LOGS
def test_bad_axis(backend, shape, axis, log):
    x = testing.random_values(shape, "float32", RNG)
    e = testing.check_error(cases.op, [x], backend, oprt.InvalidArgumentError, out=testing.make_output(shape, "float32"),
                            attrs={"axis": axis, "log": log})
    assert "axis" in e.detail


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("out_shape", [(4, 3), (3, 4, 1), (12,), (3, 5)])
@LOGS
def test_shape_mismatch(backend, dtype, out_shape, log):
    x = testing.random_values((3, 4), dtype, RNG)
    testing.check_error(cases.op, [x], backend, oprt.BadShapeError, out=testing.make_output(out_shape, dtype),
                        attrs={"log": log})


if __name__ == "__main__":
    raise SystemExit(testing.main(__file__))
