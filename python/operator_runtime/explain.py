"""oprt.explain(op, *args, **kwargs): runs one call and says which kernels served it, with their launch
configuration and the bytes the call moves, so a shape can be traced to a tier of the op's kernel.cuh."""

from __future__ import annotations

import math
import re
from typing import NamedTuple

from ._lib import lib
from .tensor import view_of

_LAUNCH = re.compile(r"(.+) grid=\((\d+),(\d+),(\d+)\) block=\((\d+),(\d+),(\d+)\) shared=(\d+)$")


class Launch(NamedTuple):
    kernel: str  # the kernel's name in the source
    grid: tuple
    block: tuple
    shared_bytes: int  # dynamic shared memory

    def __str__(self):
        return "%s  grid=%s block=%s shared=%d B" % (self.kernel, self.grid, self.block, self.shared_bytes)


class Explanation(NamedTuple):
    launches: list  # of Launch, in launch order; empty on the CPU backend
    bytes_moved: int  # every operand read once and the output written once: the floor of the traffic

    def __str__(self):
        lines = [str(launch) for launch in self.launches] or ["no device launch (CPU reference kernel)"]
        return "\n".join(lines + ["bytes moved (inputs read + output written): %d" % self.bytes_moved])


def last_launches() -> list:
    """The launches of this thread's last execute call (oprt_last_launches)."""
    launches = []
    for line in lib.oprt_last_launches().decode().splitlines():
        match = _LAUNCH.match(line)
        if match:
            numbers = [int(g) for g in match.groups()[1:]]
            launches.append(Launch(match.group(1), tuple(numbers[0:3]), tuple(numbers[3:6]), numbers[6]))
    return launches


def _nbytes(x) -> int:
    """Bytes of a tensor argument; 0 for an attribute (axis, slope, keepdims, impl, ...)."""
    if x is None or isinstance(x, (bool, int, float, str, tuple, list)):
        return 0
    v = view_of(x)
    return math.prod(v.shape) * lib.oprt_dtype_size(v.dtype)


def explain(op, *args, **kwargs) -> Explanation:
    """Runs op(*args, **kwargs) once, e.g. explain(oprt.softmax, x, axis=-1), and returns what ran."""
    out = op(*args, **kwargs)
    launches = last_launches()
    inputs = [a for a in args] + [v for k, v in kwargs.items() if k != "out"]
    return Explanation(launches, sum(_nbytes(x) for x in inputs) + _nbytes(out))
