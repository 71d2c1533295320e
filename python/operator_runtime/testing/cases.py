"""Cases: the correctness cases each op's cases.py lists (Case, shape_cases), their pytest params
(case_params) and how one runs (run_case), by tests and tools alike."""

from __future__ import annotations

import dataclasses
import itertools
import zlib

import numpy as np

from .. import tensor as _tensor
from .backends import backends, is_device, skip_reason
from .checking import check_case
from .dtypes import DTYPES, dtype_name
from .layout import LAYOUTS, arrange, layout_applies
from .values import random_values


@dataclasses.dataclass(frozen=True)
class Case:
    """One correctness case of an op, listed in that op's cases.py.

    shapes   logical shape of each input
    layouts  layout of each input (LAYOUTS; missing ones are "contiguous")
    out      None (the op allocates), an OUT_LAYOUTS name (a given out=), or k (in place into input k)
    attrs    ((name, value), ...) passed to the op and to its reference
    fill     random_values kind of the inputs ("normal", "uniform", "specials", ...), scaled by `scale`
    dtypes   the dtypes it runs in
    device_only  too big for the CPU reference within the test time budget
    """

    shapes: tuple
    layouts: tuple = ()
    out: object = None
    attrs: tuple = ()
    fill: str = "normal"
    scale: float = 1.0
    dtypes: tuple = DTYPES
    device_only: bool = False

    @property
    def shape(self):
        return self.shapes[0]

    @property
    def kwargs(self) -> dict:
        return dict(self.attrs)

    def layout(self, i: int) -> str:
        return self.layouts[i] if i < len(self.layouts) else "contiguous"

    @property
    def numel(self) -> int:
        return max(int(np.prod(s, dtype=np.int64)) for s in self.shapes)

    @property
    def id(self) -> str:
        parts = []
        for i, s in enumerate(self.shapes):
            lay = self.layout(i)
            parts.append("x".join(str(n) for n in s) or "0d")
            if lay != "contiguous":
                parts[-1] += ":" + lay
        text = ",".join(parts)
        if self.out is not None:
            text += "-out:" + ("inplace%d" % self.out if isinstance(self.out, int) else self.out)
        for k, v in self.attrs:
            text += "-%s=%s" % (k, v)
        if self.fill != "normal":
            text += "-" + self.fill
        return text.replace(" ", "")

    def __str__(self):
        return self.id


def make_inputs(case: Case, dtype, rng) -> list:
    """The case's inputs in `dtype` and their layouts (numpy arrays)."""
    return [arrange(random_values(s, dtype, rng, case.fill, case.scale), case.layout(i))
            for i, s in enumerate(case.shapes)]


def seed_of(*parts) -> int:
    return zlib.crc32("|".join(str(p) for p in parts).encode())


def run_case(module, case: Case, dtype, backend: str, rng=None):
    """Runs one case of an op's cases module (which defines op, reference and optionally
    torch_reference and tolerance(case, inputs, dtype) -> check_case keywords). Returns the result."""
    dtype = dtype_name(dtype)
    rng = rng if rng is not None else np.random.default_rng(seed_of(case.id, dtype))
    inputs = make_inputs(case, dtype, rng)
    extra = module.tolerance(case, inputs, dtype) if hasattr(module, "tolerance") else {}
    return check_case(module.op, module.reference, inputs, dtype, backend, attrs=case.kwargs, out=case.out,
                      torch_fn=getattr(module, "torch_reference", None),
                      msg="%s[%s, %s, %s]" % (getattr(module, "NAME", "op"), case.id, dtype, backend), **extra)


def case_params(cases, backend_list=None) -> list:
    """pytest params (backend, case, dtype) for every case x its dtypes x backend; device_only cases are
    left out on cpu, unavailable backends are marked skip."""
    import pytest

    params = []
    for b in backends() if backend_list is None else backend_list:
        reason = skip_reason(b)
        for case in cases:
            if case.device_only and not is_device(b):
                continue
            for d in case.dtypes:
                marks = [pytest.mark.skip(reason=reason)] if reason else []
                if d == "bfloat16" and _tensor.BFLOAT16 is None:
                    marks = [pytest.mark.skip(reason="bfloat16 needs ml_dtypes")]
                params.append(pytest.param(b, case, d, id="%s-%s-%s" % (b, case.id, d), marks=marks))
    return params


def shape_cases(shapes, layouts=LAYOUTS, outs=(None,), attrs_list=((),), dtypes=DTYPES, **kw) -> list:
    """Case for each shape x applicable layout x out x attrs (one input)."""
    out = []
    for shape, layout, o, attrs in itertools.product(shapes, layouts, outs, attrs_list):
        if not layout_applies(layout, shape):
            continue
        out.append(Case(shapes=(tuple(shape),), layouts=(layout,), out=o, attrs=tuple(attrs), dtypes=dtypes, **kw))
    return out
