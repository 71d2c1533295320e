"""reduce_sum's aligned rows of 4 to 16 KB, a block per row with every load in flight at once: rows of exactly
8 KB (half 4096, f32 2048 values) and 16 KB in sum_slices, other lengths in sum_row_at_once, masked to the row
(launch_long_rows in nvidia/kernel.cuh). Each call's sums are checked; on the SIMT emulator so is the kernel that
served it (oprt.explain). A real device's tiers around these rows (split rows, a warp per row on 64-lane warps)
depend on its SM count and occupancy, so there only the sums are checked, on the benchmark's 4096 rows."""

import numpy as np
import pytest

import operator_runtime as oprt
from operator_runtime import testing
from ops.reduce_sum import cases

DEVICE_BACKENDS = [b for b in testing.backends() if testing.is_device(b)]
# The emulated device (104 SMs, 2 blocks each) splits rows that fill less than half a wave of row blocks (104)
# and gives 64-lane warps a row each from 416 rows on: 301 rows reach the block-per-row tiers.
EMULATED_ROWS = 301
DEVICE_ROWS = 4096
# Row lengths in 16-byte packs: past a 32-lane warp's 256, the 8 KB block's 512 (exact and not), the 16 KB
# block's 1024 (exact and not).
PACKS = (257, 384, 512, 640, 1023, 1024)
ITEMSIZE = {"float16": 2, "bfloat16": 2, "float32": 4}


def kernel_on_the_emulator(packs):
    """The kernel the emulator's tiers pick (None: not checked). A 64-lane warp's longest row is 512 packs
    (kWarpRowMaxPacks), so there rows of up to 512 packs that are not exactly 8 KB keep the row blocks."""
    if packs in (512, 1024):
        return "sum_slices"
    return "sum_row_at_once" if packs > 512 else None


@pytest.mark.parametrize("backend", DEVICE_BACKENDS or [pytest.param("none", marks=pytest.mark.skip("no device"))])
@pytest.mark.parametrize("dtype", sorted(ITEMSIZE))
@pytest.mark.parametrize("packs", PACKS)
def test_rows_at_once(backend, dtype, packs):
    emulated = oprt.device_name(backend).startswith("SIMT emulator")
    shape = (EMULATED_ROWS if emulated else DEVICE_ROWS, packs * 16 // ITEMSIZE[dtype])
    case = testing.Case(shapes=(shape,), fill="uniform", attrs=(("axis", -1), ("keepdims", False)))
    testing.run_case(cases, case, dtype, backend)
    expected = kernel_on_the_emulator(packs)
    if emulated and expected:
        x = testing.to_backend(testing.random_values(shape, dtype, np.random.default_rng(8)), backend)
        with oprt.backend(backend):
            launches = oprt.explain(oprt.reduce_sum, x, axis=-1).launches
        assert [launch.kernel.split(" (")[0] for launch in launches] == [expected]


if __name__ == "__main__":
    raise SystemExit(testing.main(__file__))
