"""copy: every case of cases.CASES x dtype x backend, plus bit-exact special values, broadcasting into
out=, and copy's own error paths. The checks every operator gets (dtypes, rank, aliasing, placement,
negative strides) run in tests/test_contract.py from cases.CONTRACTS."""

import numpy as np
import pytest

import operator_runtime as oprt
from operator_runtime import testing
from ops.copy import cases

BACKENDS = testing.backend_params()
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
@pytest.mark.parametrize("x_shape,out_shape", [((4, 5), (5, 4)), ((4, 5), (4, 5, 1)), ((2, 5), (4, 5)), ((3,), ())])
def test_shape_mismatch(backend, dtype, x_shape, out_shape):
    x = testing.random_values(x_shape, dtype, RNG)
    testing.check_error(cases.op, [x], backend, oprt.BadShapeError, out=testing.make_output(out_shape, dtype))


if __name__ == "__main__":
    raise SystemExit(testing.main(__file__))
