"""dtypes and tolerances: the dtype names every op runs in and the one table of per-dtype tolerances."""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from .. import tensor as _tensor

DTYPES = ("float64", "float32", "float16", "bfloat16")


def np_dtype(dtype) -> np.dtype:
    """numpy dtype of a dtype name ("bfloat16" needs ml_dtypes)."""
    if isinstance(dtype, str) and dtype == "bfloat16":
        if _tensor.BFLOAT16 is None:
            raise ImportError("bfloat16 needs the ml_dtypes package")
        return _tensor.BFLOAT16
    return np.dtype(dtype)


def dtype_name(dtype) -> str:
    d = np_dtype(dtype)
    return "bfloat16" if _tensor.BFLOAT16 is not None and d == _tensor.BFLOAT16 else d.name


def dtype_params(dtypes=DTYPES) -> list:
    """pytest params of dtype names; bfloat16 is skipped without ml_dtypes."""
    import pytest

    out = []
    for d in dtypes:
        marks = []
        if d == "bfloat16" and _tensor.BFLOAT16 is None:
            marks = [pytest.mark.skip(reason="bfloat16 needs ml_dtypes")]
        out.append(pytest.param(d, id=d, marks=marks))
    return out


@dataclasses.dataclass(frozen=True)
class Tolerance:
    rtol: float  # relative, against the float64 reference cast to the dtype
    atol: float  # absolute floor (values near zero, subnormals)
    eps: float  # spacing of 1.0 in the dtype (one ulp, relative)
    acc_eps: float  # spacing of 1.0 in the compute / accumulation type (f32 for half types)


# The one table. Half types are computed in f32 and rounded once, so they may differ from the
# correctly rounded reference by one ulp (rtol = eps). f32 allows ~80 ulps (library exp /
# log / division), f64 a few thousand. Reductions add the growth of `tolerance()` on top.
TOLERANCES = {
    "float64": Tolerance(rtol=1e-12, atol=1e-15, eps=2.0**-52, acc_eps=2.0**-52),
    "float32": Tolerance(rtol=1e-5, atol=1e-7, eps=2.0**-23, acc_eps=2.0**-23),
    "float16": Tolerance(rtol=2.0**-10, atol=2.0**-24, eps=2.0**-10, acc_eps=2.0**-23),
    "bfloat16": Tolerance(rtol=2.0**-7, atol=1e-37, eps=2.0**-7, acc_eps=2.0**-23),
}


def tolerance(dtype, reduce_len: int = 1, magnitude=None):
    """(rtol, atol) for results of `dtype`.

    reduce_len: how many terms each output sums (softmax's row length, reduce_sum's reduced count).
    The rounding error of such a sum grows like acc_eps * sqrt(n) relative to the sum of the terms'
    magnitudes, so rtol grows by 2 * acc_eps * sqrt(n); when `magnitude` (per output element, e.g.
    sum |x| over the reduced elements, broadcastable to the output) is given, atol grows by
    that much times the magnitude, which covers cancellation (a sum near zero of large terms).
    """
    t = TOLERANCES[dtype_name(dtype)]
    growth = 2.0 * t.acc_eps * math.sqrt(max(int(reduce_len), 1))
    rtol = t.rtol + growth
    if magnitude is None:
        return rtol, t.atol
    with np.errstate(all="ignore"):
        return rtol, t.atol + growth * np.asarray(magnitude, dtype=np.float64)
