"""softmax and log_softmax: every case of cases.CASES x dtype x backend (every axis of 3-D tensors, 0-d,
empty, long rows, layouts, strided out=, in place), torch's special-value semantics, and every error
path (exact exception type, output left untouched)."""

import numpy as np
import pytest

import operator_runtime as oprt
from operator_runtime import testing
from ops.softmax import cases

BACKENDS = testing.backend_params()
DEVICE_BACKENDS = testing.backend_params(devices_only=True)
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


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [-1, 0])
@LOGS
def test_special_slices(backend, dtype, axis, log):
    h = testing.huge(dtype)
    rows = RNG.standard_normal((9, 40)) * 3
    rows[1, :] = -np.inf  # all -inf -> NaN (as torch)
    rows[2, 7] = np.nan  # NaN -> the whole slice NaN
    rows[3, 3] = np.inf  # +inf -> NaN (inf - inf)
    rows[4, ::2] = -np.inf  # some -inf -> 0 (log: -inf) there, a proper distribution elsewhere
    rows[5, 0], rows[5, 1] = h, -h  # huge: finite, no overflow
    rows[6, :] = h  # all huge: uniform
    rows[7, :] = 0.0  # uniform
    rows[8, :] = -h
    with np.errstate(all="ignore"):
        x = rows.astype(testing.np_dtype(dtype))
    x = x if axis == -1 else testing.arrange(np.ascontiguousarray(x.T), "contiguous")
    y = check(x, dtype, backend, axis=axis, log=log).astype(np.float64)
    y = y if axis == -1 else y.T
    assert np.isnan(y[1:4]).all(), "slices of all -inf, with a NaN or with +inf give NaN"
    assert not np.isnan(y[[0, 4, 5, 6, 7, 8]]).any()
    if log:
        assert (y[4, ::2] == -np.inf).all()
    else:
        assert (y[4, ::2] == 0).all()
        np.testing.assert_allclose(y[[0, 4, 5, 6, 7, 8]].sum(axis=1), 1.0, rtol=testing.TOLERANCES[dtype].eps * 64)


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
@LOGS
def test_dtype_mismatch(backend, dtype, log):
    other = "float32" if dtype != "float32" else "float16"
    x = testing.random_values((3, 4), dtype, RNG)
    testing.check_error(cases.op, [x], backend, oprt.BadDtypeError, out=testing.make_output((3, 4), other),
                        attrs={"log": log})


@pytest.mark.parametrize("backend", BACKENDS)
def test_unsupported_dtype(backend):
    testing.check_error(cases.op, [np.ones((3, 4), dtype=np.float128 if hasattr(np, "float128") else np.int16)],
                        backend, oprt.BadDtypeError, convert=False)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("out_shape", [(4, 3), (3, 4, 1), (12,), (3, 5)])
@LOGS
def test_shape_mismatch(backend, dtype, out_shape, log):
    x = testing.random_values((3, 4), dtype, RNG)
    testing.check_error(cases.op, [x], backend, oprt.BadShapeError, out=testing.make_output(out_shape, dtype),
                        attrs={"log": log})


@pytest.mark.parametrize("backend", BACKENDS)
@LOGS
def test_rank_above_8(backend, log):
    shape = (2,) + (1,) * 7 + (3,)
    x = testing.random_values(shape, "float32", RNG)
    testing.check_error(cases.op, [x], backend, oprt.BadShapeError, out=testing.make_output(shape, "float32"),
                        attrs={"log": log})
    testing.check_error(cases.op, [x], backend, oprt.BadShapeError, attrs={"log": log})


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shift", [1, 9])
@LOGS
def test_output_partially_overlapping_input(backend, dtype, shift, log):
    x, out = testing.overlapping_pair(backend, dtype, (4, 10), shift=shift)
    testing.check_error(cases.op, [x], backend, oprt.BadStridesError, out=out, attrs={"log": log}, convert=False)


@pytest.mark.parametrize("backend", BACKENDS)
@LOGS
def test_output_same_memory_other_layout(backend, log):
    base = testing.to_backend(testing.random_values((6, 6), "float32", RNG), backend)
    testing.check_error(cases.op, [base], backend, oprt.BadStridesError, out=testing.strided_view(base, (6, 6), (1, 6)),
                        attrs={"log": log}, convert=False)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@LOGS
def test_self_overlapping_output(backend, dtype, log):
    x = testing.random_values((4, 5), dtype, RNG)
    out = testing.self_overlapping_output(backend, dtype, (4, 5))
    testing.check_error(cases.op, [x], backend, oprt.BadStridesError, out=out, attrs={"log": log})


@pytest.mark.parametrize("backend", DEVICE_BACKENDS)
@LOGS
def test_host_array_on_device_backend(backend, log):
    x = testing.random_values((4, 5), "float32", RNG)
    dev_x = testing.to_backend(x, backend)
    with oprt.backend(backend):
        cases.op(dev_x, log=log)  # the same layout is now cached: the placement check must still run
    testing.check_error(cases.op, [x], backend, oprt.InvalidArgumentError, attrs={"log": log}, convert=False)
    testing.check_error(cases.op, [dev_x], backend, oprt.InvalidArgumentError, attrs={"log": log},
                        out=testing.make_output((4, 5), "float32"), convert=False)


@pytest.mark.skipif("cpu" not in testing.backends(), reason="cpu backend not requested")
@LOGS
def test_device_array_on_cpu_backend(log):
    x = testing.random_values((4, 5), "float32", RNG)
    out = testing.make_output((4, 5), "float32")
    cases.op(x, out=out.copy(), log=log)  # caches the layout
    testing.check_error(cases.op, [testing.FakeDeviceArray(x)], "cpu", oprt.InvalidArgumentError, out=out,
                        attrs={"log": log})
    testing.check_error(cases.op, [x], "cpu", oprt.InvalidArgumentError, out=testing.FakeDeviceArray(out),
                        attrs={"log": log})
    assert (out == testing.SENTINEL).all()


if __name__ == "__main__":
    raise SystemExit(testing.main(__file__))
