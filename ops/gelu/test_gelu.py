"""gelu: every case of cases.CASES x dtype x backend. The contract checks every operator gets (bad dtypes,
shapes, overlaps, placement) run from tests/test_contract.py through cases.CONTRACTS."""

import numpy as np
import pytest

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


if __name__ == "__main__":
    raise SystemExit(testing.main(__file__))
