"""copy: every case of cases.CASES x dtype x backend, plus bit-exact special values, broadcasting into
out=, aliasing rules and every error path (exact exception type, output left untouched)."""

import re

import numpy as np
import pytest

import operator_runtime as oprt
from operator_runtime import testing
from ops.copy import cases

BACKENDS = testing.backend_params()
DEVICE_BACKENDS = testing.backend_params(devices_only=True)
DTYPES = testing.dtype_params()
RNG = np.random.default_rng(1234)


@pytest.mark.parametrize("backend,case,dtype", testing.case_params(cases.CASES))
def test_case(backend, case, dtype):
    testing.run_case(cases, case, dtype, backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_special_values_are_copied_bit_exactly(backend, dtype):
    x = np.tile(testing.special_values(dtype), 7)[:-1]  # NaN, +-inf, +-huge, +-0, ...
    y = testing.check_case(cases.op, cases.reference, [x], dtype, backend, exact=True)
    finite_or_inf = ~np.isnan(x.astype(np.float64))
    np.testing.assert_array_equal(testing._bits(y)[finite_or_inf], testing._bits(x)[finite_or_inf])  # -0.0 stays -0.0


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("x_shape,out_shape", [((5,), (4, 5)), ((1,), (1025,)), ((3, 1), (3, 7)), ((), (2, 3))])
def test_input_broadcasts_to_out(backend, dtype, x_shape, out_shape):
    x = testing.random_values(x_shape, dtype, RNG)
    testing.check_case(cases.op, lambda v: np.broadcast_to(v, out_shape), [x], dtype, backend, out="contiguous",
                       exact=True)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", testing.EDGE_SHAPES + ((3, 1, 4),), ids=str)
def test_every_layout_into_every_out_layout(backend, dtype, shape):
    values = testing.random_values(shape, dtype, RNG)
    for name, x in testing.layouts(values):
        for out in testing.OUT_LAYOUTS:
            testing.check_case(cases.op, cases.reference, [x], dtype, backend, out=out, exact=True,
                               msg="copy %s %s -> %s" % (shape, name, out))


@pytest.mark.parametrize("backend", BACKENDS)
def test_same_layout_new_data_reuses_descriptor_correctly(backend):
    for _ in range(3):
        x = testing.arrange(testing.random_values((17, 9), "float32", RNG), "transposed")
        testing.check_case(cases.op, cases.reference, [x], "float32", backend, out="sliced", exact=True)


# ------------------------------------------------------------------------------------------ errors


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_dtype_mismatch(backend, dtype):
    other = "float32" if dtype != "float32" else "float16"
    x = testing.random_values((4, 5), dtype, RNG)
    out = testing.make_output((4, 5), other)
    e = testing.check_error(cases.op, [x], backend, oprt.BadDtypeError, out=out)
    # The message names the Python parameters (out, x), not the C library's (y, x).
    assert re.search(r"\bout\b", e.detail) and re.search(r"\bx\b", e.detail) and not re.search(r"\by\b", e.detail)


@pytest.mark.parametrize("backend", BACKENDS)
def test_unsupported_dtype(backend):
    x = np.arange(20, dtype=np.int32).reshape(4, 5)
    testing.check_error(cases.op, [x], backend, oprt.BadDtypeError, convert=False)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("x_shape,out_shape", [((4, 5), (5, 4)), ((4, 5), (4, 5, 1)), ((2, 5), (4, 5)), ((3,), ())])
def test_shape_mismatch(backend, dtype, x_shape, out_shape):
    x = testing.random_values(x_shape, dtype, RNG)
    testing.check_error(cases.op, [x], backend, oprt.BadShapeError, out=testing.make_output(out_shape, dtype))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("with_out", [False, True])
def test_rank_above_8(backend, with_out):
    shape = (2, 1, 1, 1, 1, 1, 1, 1, 2)
    x = testing.random_values(shape, "float32", RNG)
    out = testing.make_output(shape, "float32") if with_out else None
    testing.check_error(cases.op, [x], backend, oprt.BadShapeError, out=out)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shift", [1, 7])
def test_output_partially_overlapping_input(backend, dtype, shift):
    x, out = testing.overlapping_pair(backend, dtype, (4, 8), shift=shift)
    testing.check_error(cases.op, [x], backend, oprt.BadStridesError, out=out, convert=False)


@pytest.mark.parametrize("backend", BACKENDS)
def test_output_same_memory_other_layout(backend):
    # Same data pointer, different strides: not an exact alias.
    base = testing.to_backend(testing.random_values((6, 6), "float32", RNG), backend)
    transposed = testing.strided_view(base, (6, 6), (1, 6))
    testing.check_error(cases.op, [base], backend, oprt.BadStridesError, out=transposed, convert=False)


@pytest.mark.parametrize("backend", BACKENDS)
def test_negative_strides(backend):
    x = testing.random_values((4, 5), "float32", RNG)
    if testing.is_device(backend):  # oprt.Tensor.from_numpy copies them into a layout the backend takes
        t = testing.to_backend(x[::-1], backend)
        assert min(t.strides) > 0
        np.testing.assert_array_equal(testing.to_numpy(oprt.copy(t)), x[::-1])
    else:  # numpy arrays with negative strides are staged through aligned copies, as numpy computes them
        np.testing.assert_array_equal(oprt.copy(x[:, ::-1]), x[:, ::-1])
        out = testing.make_output((4, 5), "float32")
        assert oprt.copy(x, out=out[::-1]) is not None
        np.testing.assert_array_equal(out, x[::-1])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_self_overlapping_output(backend, dtype):
    x = testing.random_values((4, 5), dtype, RNG)
    out = testing.self_overlapping_output(backend, dtype, (4, 5))
    testing.check_error(cases.op, [x], backend, oprt.BadStridesError, out=out)


@pytest.mark.parametrize("backend", DEVICE_BACKENDS)
def test_host_array_on_device_backend(backend):
    x = testing.random_values((4, 5), "float32", RNG)
    dev_x = testing.to_backend(x, backend)
    with oprt.backend(backend):
        oprt.copy(dev_x)  # the same layout is now cached: the placement check must still run
    testing.check_error(cases.op, [x], backend, oprt.InvalidArgumentError, convert=False)
    testing.check_error(cases.op, [dev_x], backend, oprt.InvalidArgumentError, out=np.empty((4, 5), np.float32),
                        convert=False)


@pytest.mark.skipif("cpu" not in testing.backends(), reason="cpu backend not requested")
def test_device_array_on_cpu_backend():
    x = testing.random_values((4, 5), "float32", RNG)
    out = testing.make_output((4, 5), "float32")
    oprt.copy(x, out=out.copy())  # caches the layout
    testing.check_error(cases.op, [testing.FakeDeviceArray(x)], "cpu", oprt.InvalidArgumentError, out=out)
    testing.check_error(cases.op, [x], "cpu", oprt.InvalidArgumentError, out=testing.FakeDeviceArray(out))
    assert (out == testing.SENTINEL).all()


if __name__ == "__main__":
    raise SystemExit(testing.main(__file__))
