"""reduce_sum's rows of exactly 8 KB (half 4096, f32 2048 values; aligned): a 256-thread block per row
(sum_slices, kShortRowAtOnceThreads in nvidia/kernel.cuh). Each call's sums are checked; on the SIMT emulator so
is the kernel that served it (oprt.explain). A real device's tiers around these rows (split rows, a warp per row
on 64-lane warps) depend on its SM count and occupancy, so there only the sums are checked, on the benchmark's
4096 rows."""

import numpy as np
import pytest

import operator_runtime as oprt
from operator_runtime import testing
from ops.reduce_sum import cases

DEVICE_BACKENDS = [b for b in testing.backends() if testing.is_device(b)]
# The emulated device (104 SMs, 2 blocks each) splits rows that fill less than half a wave of row blocks (104)
# and gives 64-lane warps a row each from 416 rows on: 301 rows reach the 8 KB branch.
EMULATED_ROWS = 301
DEVICE_ROWS = 4096
COLUMNS = {"float16": 4096, "bfloat16": 4096, "float32": 2048}


@pytest.mark.parametrize("backend", DEVICE_BACKENDS or [pytest.param("none", marks=pytest.mark.skip("no device"))])
@pytest.mark.parametrize("dtype", sorted(COLUMNS))
def test_rows_of_8kb(backend, dtype):
    emulated = oprt.device_name(backend).startswith("SIMT emulator")
    shape = (EMULATED_ROWS if emulated else DEVICE_ROWS, COLUMNS[dtype])
    case = testing.Case(shapes=(shape,), fill="uniform", attrs=(("axis", -1), ("keepdims", False)))
    testing.run_case(cases, case, dtype, backend)
    if emulated:
        x = testing.to_backend(testing.random_values(shape, dtype, np.random.default_rng(8)), backend)
        with oprt.backend(backend):
            launches = oprt.explain(oprt.reduce_sum, x, axis=-1).launches
        assert [launch.kernel.split(" (")[0] for launch in launches] == ["sum_slices"]


if __name__ == "__main__":
    raise SystemExit(testing.main(__file__))
