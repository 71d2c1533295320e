"""Benchmark cases: the shapes each op's cases.py lists in BENCH_CASES, and their inputs."""

from __future__ import annotations

import dataclasses

import numpy as np

from .backends import to_backend
from .cases import seed_of
from .values import random_values


@dataclasses.dataclass(frozen=True)
class BenchCase:
    """One benchmark shape of an op: input shapes, dtype and attributes (see each cases.py's BENCH_CASES)."""

    shapes: tuple
    dtype: str
    attrs: tuple = ()

    @property
    def kwargs(self) -> dict:
        return dict(self.attrs)

    @property
    def numel(self) -> int:
        return max(int(np.prod(s, dtype=np.int64)) for s in self.shapes)

    @property
    def id(self) -> str:
        text = ",".join("x".join(str(n) for n in s) for s in self.shapes) + "-" + self.dtype
        for k, v in self.attrs:
            text += "-%s=%s" % (k, v)
        return text


def bench_inputs(case: BenchCase, backend: str, rng=None) -> list:
    """Contiguous inputs of a benchmark case on `backend`: a random block of 2^20 normal values
    repeated to the full size (fast to make, and realistic enough for bandwidth)."""
    rng = rng if rng is not None else np.random.default_rng(seed_of(case.id))
    block = random_values((1 << 20,), case.dtype, rng)
    out = []
    for s in case.shapes:
        host = np.resize(block, int(np.prod(s, dtype=np.int64))).reshape(s)
        out.append(to_backend(host, backend))
    return out
