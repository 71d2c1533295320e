"""The shared test harness of operator_runtime (ships with the package, so it runs from the wheel too).

`from operator_runtime import testing` gives every name below; each lives in the module of its concern:
  dtypes       DTYPES, np_dtype / dtype_name, dtype_params(); TOLERANCES, stated once, and tolerance(),
               which widens them for reductions.
  backends     backends() / backend_params() / parametrize_backends(): what to run on (OPRT_TEST_BACKENDS,
               else every available backend; a requested one that is not available is skipped, not
               failed); to_backend() / to_numpy(): numpy in, the backend's tensor out (exact layout kept)
               and back; FakeDeviceArray.
  values       SIZES, EDGE_SHAPES, SENTINEL; random_values(), special_values() / with_specials() (NaN,
               +-inf and huge finite values of each dtype), huge().
  layout       LAYOUTS / OUT_LAYOUTS, arrange() / layouts() / make_output(): inputs in several layouts
               (contiguous, transposed, sliced with a step, broadcast) and outputs pre-filled with the
               sentinel; strided_view(), overlapping_pair(), self_overlapping_output().
  checking     assert_close(): NaN positions must match, infinities exactly, the rest within tolerance;
               check_case(): run an op on a backend, compare with a numpy float64 reference (and torch on
               nvidia when importable), check that a given out= is written only where it should be;
               check_error(): an op must raise exactly the given error and leave its output untouched.
  cases        Case / shape_cases() / case_params() / run_case(): the cases each op's cases.py lists,
               run by tests and tools alike.
  bench        BenchCase / bench_inputs(): benchmark shapes.
  contract     Contract: what the cross-operator tests need of each C operator (each cases.py's
               CONTRACTS); discover_cases() finds the ops/**/cases.py modules (tests and tools/run_ops).
  pytest_main  main(path): run pytest on one test file (what `py_test` main files call).
"""

from .backends import FakeDeviceArray, backend_params, backends, is_device, parametrize_backends, skip_reason, to_backend, to_numpy
from .bench import BenchCase, bench_inputs
from .cases import Case, case_params, make_inputs, run_case, seed_of, shape_cases
from .checking import _bits, assert_close, check_case, check_error
from .contract import Contract, contract_of, contracts, discover_cases, operator_names
from .dtypes import DTYPES, TOLERANCES, Tolerance, dtype_name, dtype_params, np_dtype, tolerance
from .layout import (LAYOUTS, OUT_LAYOUTS, _span, arrange, contiguous_strides, layout_applies, layouts, make_output,
                      overlapping_pair, self_overlapping_output, strided_view)
from .pytest_main import main
from .values import EDGE_SHAPES, SENTINEL, SIZES, huge, random_values, special_values, with_specials
