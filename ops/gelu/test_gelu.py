"""gelu: every case of cases.CASES x dtype x backend. The contract checks every operator gets (bad dtypes,
shapes, overlaps, placement) run from tests/test_contract.py through cases.CONTRACTS."""

import numpy as np
import pytest

import operator_runtime as oprt
from operator_runtime import testing
from ops.gelu import cases


@pytest.mark.parametrize("backend", testing.backend_params())
def test_kernels_are_written(backend):
    """The standard call runs on every backend: "gelu: kernel not implemented: edit <file>" until it does."""
    rng = np.random.default_rng(0)
    for contract in cases.CONTRACTS:
        inputs = [testing.to_backend(testing.random_values((4, 5), "float32", rng), backend)
                  for _ in range(contract.operator.num_inputs)]
        contract(*inputs)


@pytest.mark.parametrize("backend,case,dtype", testing.case_params(cases.CASES))
def test_case(backend, case, dtype):
    testing.run_case(cases, case, dtype, backend)


@pytest.mark.parametrize("backend", testing.backend_params())
@pytest.mark.parametrize("dtype", testing.dtype_params())
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_special_values(backend, dtype, approximate):
    x = testing.special_values(dtype)  # NaN, inf, -inf, huge, -huge, 0, -0, 1, -1, tiny
    y = testing.check_case(cases.op, cases.reference, [x], dtype, backend, attrs={"approximate": approximate})
    y = np.asarray(y, dtype=np.float64)
    assert np.isnan(y[0]) and y[1] == np.inf, "gelu(NaN) is NaN, gelu(inf) is inf"
    assert np.isnan(y[2]), "gelu(-inf) is -inf * 0 = NaN, as torch computes it"


@pytest.mark.parametrize("backend", testing.backend_params())
@pytest.mark.parametrize("approximate", ["exact", "", None, 1, "TANH"])
def test_unknown_form(backend, approximate):
    x = testing.random_values((4, 5), "float32", np.random.default_rng(1))
    testing.check_error(cases.op, [x], backend, oprt.InvalidArgumentError, out=testing.make_output((4, 5), "float32"),
                        attrs={"approximate": approximate})


def test_c_api_refuses_an_unknown_form():
    """The C entry point checks the form itself (a C caller has no Python layer)."""
    from operator_runtime import _dispatch

    with pytest.raises(oprt.InvalidArgumentError, match="approximate must be OPRT_GELU_EXACT"):
        _dispatch.OPERATORS["gelu"](np.zeros(3, np.float32), [np.ones(3, np.float32)], (2,), backend=None)


if __name__ == "__main__":
    raise SystemExit(testing.main(__file__))
