"""vector_add: every case of cases.CASES x dtype x backend (layouts, numpy broadcasting, strided out=,
in place), plus special values, broadcasting into a larger out=, and its own error paths (broadcasting,
aliasing a broadcast input). The checks every operator gets run in tests/test_contract.py from
cases.CONTRACTS."""

import numpy as np
import pytest

import operator_runtime as oprt
from operator_runtime import testing
from ops.vector_add import cases

BACKENDS = testing.backend_params()
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
def test_output_aliasing_a_broadcast_input(backend):
    # out is b's memory, but b is read with 0 strides: not an exact alias.
    b = testing.to_backend(testing.random_values((8,), "float32", RNG), backend)
    a = testing.to_backend(testing.random_values((8, 8), "float32", RNG), backend)
    out = testing.strided_view(b, (8, 8), (0, 1))  # also self-overlapping
    testing.check_error(cases.op, [a, b], backend, oprt.BadStridesError, out=out, convert=False)


if __name__ == "__main__":
    raise SystemExit(testing.main(__file__))
