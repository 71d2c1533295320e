"""Seeded differential fuzz test of every public op (copy, vector_add, relu, reduce_sum, softmax,
log_softmax) against numpy in float64, on the CPU backend with numpy arrays.

Each case draws a dtype (f64 / f32 / f16 / bf16), a shape (0-d, empty dims, size-1 dims, up to 6 dims),
a memory layout for every operand (permuted, sliced with steps, negative strides, zero-stride broadcast,
leading offsets, unaligned views of a byte buffer at offset 1, strides that are no multiple of the item
size, arbitrary strides on extent-1 dims, read-only inputs), the op's attributes (broadcast shapes, leaky
slopes, axis None / int / negative / tuple / list / numpy int, keepdims), values (normal, integers, with
NaN / +-inf / -0.0 / huge / tiny / subnormal) and a scenario that fixes the right outcome in advance:

  ok               must match numpy (per-dtype tolerances of operator_runtime.testing, exact where the
                   arithmetic is exact) and write nothing but out's elements; also for out is x (in
                   place), negative strides and unaligned arrays (the bindings stage them);
  readonly_out     out= not writable (flag, immutable bytes, a mode='r' memmap, a broadcast view):
                   ValueError as numpy, out and inputs unchanged;
  list_out         out= a Python list: TypeError (numpy) or ValueError, the list unchanged;
  overlap          out overlaps an input partially, or is its memory in another layout: BadStridesError;
  self_overlap     out has a zero stride over an extent > 1: BadStridesError;
  dtype_mismatch / bad_dtype / shape_mismatch / rank9: BadDtypeError / BadShapeError;
  bad_axis / axis_type / axis_overflow / bad_slope: InvalidArgumentError / TypeError / ValueError;
and every error leaves all operand memory bit-for-bit unchanged.

A fraction of the ok cases runs again on oprt.Tensor copies of the same layouts (a cache hit there takes
the compiled fast path, operator_runtime._fastcall) and must give the same bits.

Environment: OPRT_FUZZ_CASES (total over the six ops, default 3000), OPRT_FUZZ_SEED (default below),
OPRT_FUZZ_ONLY=op:index (rerun one case), OPRT_FUZZ_VERBOSE=1 (print every case before it runs). Case i
of an op depends only on (seed, op, i). A failing case is printed in full; a case that kills the process
(segfault, sanitizer abort) is named in the Python traceback printed at the crash ("<fuzz case ...>").
A longer run:  OPRT_FUZZ_CASES=100000 ./bazelw test //tests:test_fuzz --test_env=OPRT_FUZZ_CASES
"""

from __future__ import annotations

import collections
import dataclasses
import math
import os
import sys
import tempfile
import time
import traceback
import types

import numpy as np
import pytest

import operator_runtime as oprt
from operator_runtime import testing

DEFAULT_SEED = 20250114
SEED = int(os.environ.get("OPRT_FUZZ_SEED", DEFAULT_SEED))
TOTAL_CASES = int(os.environ.get("OPRT_FUZZ_CASES", "3000"))
ONLY = os.environ.get("OPRT_FUZZ_ONLY", "")
VERBOSE = os.environ.get("OPRT_FUZZ_VERBOSE", "") not in ("", "0")
OPS = ["copy", "vector_add", "relu", "reduce_sum", "softmax", "log_softmax"]
DTYPES = ["float64", "float32", "float16", "bfloat16"]
MAX_ELEMENTS = 3000  # per operand: keeps 3000 cases well under a minute, under ASan too
MAX_FAILURES_SHOWN = 5
SUMMARY = {}  # op -> dict of counts, printed by the module fixture

# ------------------------------------------------------------------------------------------ operands


@dataclasses.dataclass
class Operand:
    """One array of a case: a view (shape, byte strides, byte offset) into buffer `buffer` of the case."""

    role: str  # "x", "a", "b", "out"
    dtype: str
    shape: tuple
    strides: tuple  # bytes
    offset: int  # bytes from the buffer's start
    buffer: int  # index into Case.buffer_sizes
    readonly: str = ""  # "", "flag", "bytes", "memmap", "broadcast"
    layout: str = "contiguous"  # what the generator did, for the description

    def describe(self) -> str:
        ro = " readonly=%s" % self.readonly if self.readonly else ""
        return "%s: %s %s strides(bytes)=%s offset=%d buffer=%d layout=%s%s" % (
            self.role, self.dtype, self.shape, self.strides, self.offset, self.buffer, self.layout, ro)


@dataclasses.dataclass
class Case:
    op: str
    index: int
    dtype: str
    scenario: str
    operands: list  # inputs first, then out (or no out)
    attrs: dict
    values: str
    buffer_sizes: list = dataclasses.field(default_factory=list)
    out_is: str = ""  # "x" / "a" / "b": out= is that input object itself (exact alias)
    out_kind: str = "array"  # "array", "none" (the op allocates), "list"
    expect: str = "match"  # "match" or the name of the expected error class / Python exception
    tensor_path: bool = False

    @property
    def inputs(self):
        return [o for o in self.operands if o.role != "out"]

    @property
    def out(self):
        return next((o for o in self.operands if o.role == "out"), None)

    def describe(self) -> str:
        lines = ["fuzz case %s #%d (OPRT_FUZZ_SEED=%d OPRT_FUZZ_ONLY=%s:%d): scenario=%s dtype=%s values=%s expect=%s"
                 % (self.op, self.index, SEED, self.op, self.index, self.scenario, self.dtype, self.values, self.expect)]
        lines.append("  attrs=%r out=%s%s buffers(bytes)=%s" % (
            self.attrs, self.out_kind, " (out is %s)" % self.out_is if self.out_is else "", self.buffer_sizes))
        lines += ["  " + o.describe() for o in self.operands]
        return "\n".join(lines)


def itemsize(dtype: str) -> int:
    return testing.np_dtype(dtype).itemsize


def numel(shape) -> int:
    return math.prod(shape)


def random_shape(rng, max_ndim=6, min_numel=0):
    """0-d .. max_ndim dims, extents favouring 1 and small sizes, sometimes 0; numel <= MAX_ELEMENTS."""
    while True:
        ndim = int(rng.choice(np.arange(max_ndim + 1), p=_NDIM_P[max_ndim]))
        shape = []
        for _ in range(ndim):
            r = rng.random()
            if r < 0.04:
                shape.append(0)
            elif r < 0.25:
                shape.append(1)
            elif r < 0.85:
                shape.append(int(rng.integers(2, 8)))
            else:
                shape.append(int(rng.choice([13, 16, 31, 33, 64, 100, 257, 1025])))
        shape = tuple(shape)
        if numel(shape) <= MAX_ELEMENTS and numel(shape) >= min_numel:
            return shape


_NDIM_P = {}
for _m in range(0, 7):
    _w = np.array([0.08, 0.2, 0.25, 0.2, 0.12, 0.08, 0.07][: _m + 1])
    _NDIM_P[_m] = _w / _w.sum()


def broadcast_source(rng, shape):
    """A shape that broadcasts to `shape`: leading dims dropped, some extents set to 1."""
    drop = int(rng.integers(0, len(shape) + 1)) if rng.random() < 0.3 else 0
    return tuple(1 if rng.random() < 0.3 else n for n in shape[drop:])


def random_layout(rng, case, role, dtype, shape, *, writable_out=False, plain=False, allow_zero=False):
    """An Operand of `shape` in a fresh buffer with a random layout (plain: contiguous, aligned)."""
    isz = itemsize(dtype)
    nd = len(shape)
    unit = isz
    tags = []
    order = list(range(nd))
    steps = [1] * nd
    negative = [False] * nd
    zero = [False] * nd
    lead = 0
    misalign = 0
    if not plain:
        if nd >= 2 and rng.random() < 0.3:
            order = list(rng.permutation(nd))
            tags.append("permuted")
        if rng.random() < 0.3:
            steps = [int(rng.integers(1, 4)) if rng.random() < 0.5 else 1 for _ in range(nd)]
            tags.append("stepped")
        if rng.random() < 0.2:
            negative = [rng.random() < 0.5 for _ in range(nd)]
            if any(negative):
                tags.append("negative")
        if allow_zero and not writable_out and rng.random() < 0.2:
            zero = [n > 1 and rng.random() < 0.5 for n in shape]
            if any(zero):
                tags.append("zero-stride")
        if rng.random() < 0.3:
            lead = int(rng.integers(1, 4))
            tags.append("offset")
        r = rng.random()
        if isz > 1 and r < 0.06:
            misalign = 1
            tags.append("unaligned")
        elif isz > 1 and r < 0.08:
            unit = isz + 1  # byte strides that are no multiple of the item size (and unaligned data)
            tags.append("odd-strides")
    strides = [0] * nd
    running = 1
    for d in reversed(order):
        strides[d] = running * steps[d]
        running *= max(shape[d], 1) * steps[d]
    byte_strides = []
    for d in range(nd):
        s = strides[d] * unit
        if zero[d]:
            s = 0
        elif shape[d] == 1 and not plain and rng.random() < 0.2:
            s = int(rng.choice([0, 7 * unit, -3 * unit, 1 << 20]))  # any stride is valid on an extent-1 dim
            tags.append("odd-extent-1-stride")
        elif negative[d]:
            s = -s
        byte_strides.append(s)
    empty = any(n == 0 for n in shape)
    low = sum(min(0, (n - 1) * s) for n, s in zip(shape, byte_strides)) if not empty else 0
    high = sum(max(0, (n - 1) * s) for n, s in zip(shape, byte_strides)) if not empty else 0
    offset = -low + lead * unit + misalign
    size = offset + high + isz + int(rng.integers(0, 3)) * isz
    case.buffer_sizes.append(size)
    return Operand(role, dtype, tuple(shape), tuple(byte_strides), offset, len(case.buffer_sizes) - 1,
                   layout="+".join(tags) or "contiguous")


def contiguous_in(case, role, dtype, shape, buffer, offset):
    """A row-major operand at byte `offset` of an existing buffer (for overlaps)."""
    isz = itemsize(dtype)
    strides = tuple(s * isz for s in testing.contiguous_strides(shape))
    return Operand(role, dtype, tuple(shape), strides, offset, buffer, layout="contiguous@%d" % offset)


# ------------------------------------------------------------------------------------------ case generation

SPECIAL_KINDS = ("nan", "inf", "-inf", "huge", "-huge", "-0", "tiny", "-tiny", "subnormal")


def make_case(op: str, index: int) -> Case:
    rng = np.random.default_rng([SEED, OPS.index(op), index])
    dtype = str(rng.choice(DTYPES))
    scenario = _pick(rng, SCENARIOS[op])
    values = _pick(rng, {"normal": 0.5, "integers": 0.15, "specials": 0.35})
    case = Case(op, index, dtype, scenario, [], {}, values)
    GENERATORS[op](rng, case)
    if case.expect == "match" and case.out_kind != "list" and rng.random() < 0.15:
        case.tensor_path = all(not o.readonly and o.offset % itemsize(o.dtype) == 0 and
                               all(s >= 0 and s % itemsize(o.dtype) == 0 for s in o.strides) for o in case.operands)
    case._rng_state = rng.bit_generator.state  # values are drawn from here on
    return case


def _pick(rng, weights: dict):
    keys = list(weights)
    p = np.array([weights[k] for k in keys], dtype=np.float64)
    return keys[int(rng.choice(len(keys), p=p / p.sum()))]


_COMMON = {"ok": 0.72, "readonly_out": 0.05, "list_out": 0.01, "overlap": 0.06, "self_overlap": 0.02,
           "dtype_mismatch": 0.03, "bad_dtype": 0.01, "shape_mismatch": 0.04, "rank9": 0.01}
SCENARIOS = {
    "copy": dict(_COMMON),
    "vector_add": dict(_COMMON),
    "relu": dict(_COMMON, bad_slope=0.03),
    "reduce_sum": dict(_COMMON, bad_axis=0.04, axis_type=0.02, axis_overflow=0.02),
    "softmax": dict(_COMMON, bad_axis=0.04, axis_type=0.02, axis_overflow=0.02),
    "log_softmax": dict(_COMMON, bad_axis=0.04, axis_type=0.02, axis_overflow=0.02),
}
ERRORS = {  # scenario -> the outcome that is right for it
    "readonly_out": "ValueError",
    "list_out": "TypeError|ValueError",
    "overlap": "BadStridesError",
    "self_overlap": "BadStridesError",
    "dtype_mismatch": "BadDtypeError",
    "bad_dtype": "BadDtypeError",
    "shape_mismatch": "BadShapeError",
    "rank9": "BadShapeError",
    "bad_axis": "InvalidArgumentError",
    "axis_type": "TypeError",
    "axis_overflow": "ValueError",
    "bad_slope": "InvalidArgumentError",
}


def _out_options(rng, case, shape, inputs):
    """Adds out (or not) for an ok / error scenario; `inputs` are the input Operands."""
    s = case.scenario
    dtype = case.dtype
    if s == "list_out":
        case.out_kind = "list"
        return
    if s == "readonly_out":
        out = random_layout(rng, case, "out", dtype, shape, writable_out=True)
        out.readonly = _pick(rng, {"flag": 0.4, "bytes": 0.3, "memmap": 0.15, "broadcast": 0.15})
        if out.readonly == "broadcast":  # np.broadcast_to-like: zero strides, never writable
            out.strides = tuple(0 for _ in shape)
            out.layout = "broadcast"
        case.operands.append(out)
        return
    if s == "self_overlap":
        out = random_layout(rng, case, "out", dtype, shape, writable_out=True, plain=True)
        big = [d for d, n in enumerate(shape) if n > 1]
        d = big[int(rng.integers(len(big)))]
        out.strides = tuple(0 if k == d else st for k, st in enumerate(out.strides))
        out.layout = "zero-stride on dim %d" % d
        case.operands.append(out)
        return
    if s == "overlap":
        _overlap(rng, case, shape, inputs)
        return
    if s == "dtype_mismatch":
        other = str(rng.choice([d for d in DTYPES if d != dtype]))
        case.operands.append(random_layout(rng, case, "out", other, shape, writable_out=True))
        return
    if s == "ok":
        r = rng.random()
        same_shape = [i for i in inputs if i.shape == tuple(shape) and not any(st == 0 for st in i.strides)]
        if r < 0.25:
            case.out_kind = "none"
        elif r < 0.37 and same_shape and case.op != "reduce_sum":
            src = same_shape[int(rng.integers(len(same_shape)))]
            case.out_is = src.role
        else:
            case.operands.append(random_layout(rng, case, "out", dtype, shape, writable_out=True))
        return
    # an error scenario decided by the inputs or attributes: out given or not
    if rng.random() < 0.5:
        case.out_kind = "none"
    else:
        case.operands.append(random_layout(rng, case, "out", dtype, shape, writable_out=True))


def _overlap(rng, case, shape, inputs):
    """out partially overlapping one input (both row-major, aligned), or the input's memory transposed."""
    victim = inputs[int(rng.integers(len(inputs)))]
    isz = itemsize(case.dtype)
    n_in, n_out = numel(victim.shape), numel(shape)
    square = len(shape) == 2 and shape[0] == shape[1] >= 2 and tuple(victim.shape) == tuple(shape)
    if square and case.op != "reduce_sum" and rng.random() < 0.3:
        out = contiguous_in(case, "out", case.dtype, shape, victim.buffer, victim.offset)
        out.strides = (victim.strides[1], victim.strides[0])
        out.layout = "input %s's memory, transposed" % victim.role
    else:
        lo = 0 if tuple(shape) != tuple(victim.shape) else 1  # shift 0, same layout: an exact alias
        shift = int(rng.integers(lo, n_in)) if n_in > lo else lo
        out = contiguous_in(case, "out", case.dtype, shape, victim.buffer, victim.offset + shift * isz)
        out.layout = "overlaps %s from its element %d" % (victim.role, shift)
        need = out.offset + n_out * isz
        case.buffer_sizes[victim.buffer] = max(case.buffer_sizes[victim.buffer], need)
    case.operands.append(out)


def _mismatched_shape(rng, in_shape, out_shape, strict=False):
    """A shape out can NOT have: in_shape does not broadcast to it (strict: any other shape)."""
    for _ in range(50):
        r = rng.random()
        if r < 0.3 and len(out_shape) >= 1:
            cand = list(out_shape)
            d = int(rng.integers(len(cand)))
            cand[d] = cand[d] + int(rng.integers(1, 4))
        elif r < 0.5 and len(out_shape) >= 1:
            cand = list(out_shape[1:])  # a dim fewer
        elif r < 0.7:
            cand = list(out_shape) + [int(rng.integers(2, 4))]
        else:
            cand = list(random_shape(rng, max_ndim=4))
        cand = tuple(cand)
        if cand == tuple(out_shape) or numel(cand) > MAX_ELEMENTS:
            continue
        if strict:
            return cand
        try:
            if np.broadcast_shapes(tuple(in_shape), cand) == cand:
                continue  # in broadcasts to cand: valid
        except ValueError:
            pass
        return cand
    return tuple(out_shape) + (2, 3)


def _input_dtype(rng, case):
    """The case's dtype, or one the library does not support (bad_dtype)."""
    if case.scenario == "bad_dtype":
        return str(rng.choice(["int32", "int16", "complex64", "uint8", "int64"]))
    return case.dtype


def _needs_elements(s):
    """Scenarios that are only errors when there are elements: an extent > 1 and no empty dim."""
    return s in ("overlap", "self_overlap", "shape_mismatch")


def gen_unary(rng, case):
    """copy and relu: x (may broadcast to out's shape), out."""
    s = case.scenario
    plain = s == "overlap"
    shape = random_shape(rng, min_numel=2 if _needs_elements(s) else 0)
    if case.op == "relu":
        slope = float(rng.choice([0.0, 0.0, 0.01, 0.1, 0.2, -0.5, 1.5, 1 / 3, 1e-3]))
        if s == "bad_slope":
            slope = float(rng.choice([np.nan, np.inf, -np.inf]))
        case.attrs["negative_slope"] = slope
    x_shape = shape
    if s == "ok" and rng.random() < 0.2:
        x_shape = broadcast_source(rng, shape)  # x broadcast to out's shape (out given below)
    if s == "rank9":
        x_shape = tuple(int(rng.integers(1, 3)) for _ in range(9))
        shape = x_shape
    dtype = case.dtype
    x = random_layout(rng, case, "x", _input_dtype(rng, case), x_shape, plain=plain, allow_zero=True)
    case.operands.append(x)
    if s == "shape_mismatch":
        case.operands.append(random_layout(rng, case, "out", dtype, _mismatched_shape(rng, x_shape, shape),
                                           writable_out=True))
    elif s == "ok" and x_shape != shape:
        case.operands.append(random_layout(rng, case, "out", dtype, shape, writable_out=True))
    else:
        _out_options(rng, case, shape, [x])
    case.expect = "match" if s == "ok" else ERRORS[s]


def gen_vector_add(rng, case):
    s = case.scenario
    plain = s == "overlap"
    shape = random_shape(rng, min_numel=2 if _needs_elements(s) else 0)
    a_shape, b_shape = shape, shape
    incompatible = False
    if s == "rank9":
        shape = a_shape = b_shape = tuple(int(rng.integers(1, 3)) for _ in range(9))
    elif s == "shape_mismatch" and rng.random() < 0.5:
        # a and b that do not broadcast together: last dims k and k + 1, k >= 2
        incompatible = True
        k = int(rng.integers(2, 6))
        lead = tuple(shape[:-1])[-3:]
        a_shape, b_shape = lead + (k,), lead + (k + 1,)
        shape = a_shape
    elif s not in ("overlap", "self_overlap", "shape_mismatch") and rng.random() < 0.5:
        a_shape, b_shape = broadcast_source(rng, shape), broadcast_source(rng, shape)
        if rng.random() < 0.5:
            a_shape = shape  # one full-size operand, most of the time
    a = random_layout(rng, case, "a", case.dtype, a_shape, plain=plain, allow_zero=True)
    b_dtype = case.dtype
    if s == "dtype_mismatch" and rng.random() < 0.5:
        b_dtype = str(rng.choice([d for d in DTYPES if d != case.dtype]))  # a and b differ (else out does)
    elif s == "bad_dtype":
        b_dtype = _input_dtype(rng, case)
    b = random_layout(rng, case, "b", b_dtype, b_shape, plain=plain, allow_zero=True)
    if rng.random() < 0.5:
        a, b = dataclasses.replace(b, role="a"), dataclasses.replace(a, role="b")
    case.operands += [a, b]
    full = a_shape if incompatible else np.broadcast_shapes(a_shape, b_shape)
    if incompatible or (s == "dtype_mismatch" and b_dtype != case.dtype):
        if rng.random() < 0.5:
            case.out_kind = "none"
        else:
            case.operands.append(random_layout(rng, case, "out", case.dtype, full, writable_out=True))
    elif s == "shape_mismatch":
        case.operands.append(random_layout(rng, case, "out", case.dtype, _mismatched_shape(rng, full, full),
                                           writable_out=True))
    elif s == "ok" and full != shape:
        case.operands.append(random_layout(rng, case, "out", case.dtype, shape, writable_out=True))
    else:
        _out_options(rng, case, shape, [a, b])
    case.expect = "match" if s == "ok" else ERRORS[s]


def _random_axes(rng, ndim):
    """A valid axis argument of reduce_sum in one of its spellings."""
    if ndim == 0:
        return None if rng.random() < 0.6 else ()
    form = _pick(rng, {"none": 0.15, "int": 0.25, "neg": 0.15, "tuple": 0.25, "list": 0.07, "empty": 0.05,
                       "npint": 0.08})
    if form == "none":
        return None
    if form == "empty":
        return ()
    if form in ("int", "neg", "npint"):
        a = int(rng.integers(ndim))
        a = a - ndim if form == "neg" else a
        return np.int64(a) if form == "npint" else a
    k = int(rng.integers(1, ndim + 1))
    axes = [int(a) for a in rng.permutation(ndim)[:k]]
    axes = [a - ndim if rng.random() < 0.3 else a for a in axes]
    return list(axes) if form == "list" else tuple(axes)


def _numpy_axis(axis):
    if isinstance(axis, list):
        return tuple(axis)
    if isinstance(axis, np.integer):
        return int(axis)
    return axis


def gen_reduce_sum(rng, case):
    s = case.scenario
    plain = s == "overlap"
    shape = random_shape(rng, min_numel=2 if _needs_elements(s) else 0)
    if s == "rank9":
        shape = tuple(int(rng.integers(1, 3)) for _ in range(9))
    if s == "self_overlap":
        while True:
            shape = random_shape(rng, min_numel=2)
            axis = _random_axes(rng, len(shape))
            out_shape = np.sum(np.zeros(shape), axis=_numpy_axis(axis)).shape
            if any(n > 1 for n in out_shape):
                break
    ndim = len(shape)
    axis = _random_axes(rng, ndim) if s != "self_overlap" else axis
    keepdims = bool(rng.random() < 0.4)
    if s == "bad_axis":
        if ndim == 0 or rng.random() < 0.4:
            axis = int(rng.choice([ndim, ndim + 1, -ndim - 1, -ndim - 5, 1000, -(2 ** 31)]))
        elif rng.random() < 0.5 and ndim >= 1:
            a = int(rng.integers(ndim))
            axis = (a, a - ndim) if rng.random() < 0.5 else (a, a)  # the same axis twice
        else:
            axis = tuple(range(ndim)) + (ndim,)  # one out of range (also: more axes than dims)
    elif s == "axis_type":
        axis = _pick(rng, {"float": 0.4, "floatint": 0.2, "str": 0.2, "tuplefloat": 0.2})
        axis = {"float": 1.7, "floatint": 0.0, "str": "0", "tuplefloat": (0, 1.5)}[axis]
    elif s == "axis_overflow":
        axis = int(rng.choice([2 ** 32, 2 ** 32 + 1, -(2 ** 31) - 1, 2 ** 40]))
    case.attrs.update(axis=axis, keepdims=keepdims)
    x = random_layout(rng, case, "x", _input_dtype(rng, case), shape, plain=plain, allow_zero=True)
    case.operands.append(x)
    valid_axis = s not in ("bad_axis", "axis_type", "axis_overflow")
    out_shape = np.sum(np.zeros(shape), axis=_numpy_axis(axis), keepdims=keepdims).shape if valid_axis else shape
    if s == "shape_mismatch":
        case.operands.append(random_layout(rng, case, "out", case.dtype, _mismatched_shape(rng, shape, out_shape, True),
                                           writable_out=True))
    else:
        _out_options(rng, case, out_shape, [x])
    case.expect = "match" if s == "ok" else ERRORS[s]


def gen_softmax(rng, case):
    s = case.scenario
    plain = s == "overlap"
    shape = random_shape(rng, min_numel=2 if _needs_elements(s) else 0)
    if s == "rank9":
        shape = tuple(int(rng.integers(1, 3)) for _ in range(9))
    ndim = len(shape)
    span = max(ndim, 1)
    axis = int(rng.integers(-span, span))
    if s == "bad_axis":
        axis = int(rng.choice([span, span + 1, -span - 1, 1000, -(2 ** 31), 2 ** 31 - 1]))
    elif s == "axis_type":
        axis = {0: 0.0, 1: 1.7, 2: "0"}[int(rng.integers(3))]
    elif s == "axis_overflow":
        axis = int(rng.choice([2 ** 32, 2 ** 32 - 1, -(2 ** 31) - 1, 2 ** 40]))
    case.attrs["axis"] = axis
    x = random_layout(rng, case, "x", _input_dtype(rng, case), shape, plain=plain, allow_zero=True)
    case.operands.append(x)
    if s == "shape_mismatch":
        case.operands.append(random_layout(rng, case, "out", case.dtype, _mismatched_shape(rng, shape, shape, True),
                                           writable_out=True))
    else:
        _out_options(rng, case, shape, [x])
    case.expect = "match" if s == "ok" else ERRORS[s]


GENERATORS = {"copy": gen_unary, "relu": gen_unary, "vector_add": gen_vector_add, "reduce_sum": gen_reduce_sum,
              "softmax": gen_softmax, "log_softmax": gen_softmax}


# ------------------------------------------------------------------------------------------ building the arrays


def np_dtype(name):
    return testing.np_dtype(name) if name in DTYPES else np.dtype(name)


def random_values(rng, shape, dtype, kind, op):
    """float64 values of `shape` (cast to dtype by the caller)."""
    n = numel(shape)
    if kind == "integers":
        v = rng.integers(-8, 9, size=n).astype(np.float64)
    else:
        v = rng.standard_normal(n) * float(rng.choice([0.1, 1.0, 3.0, 30.0]))
    if kind == "specials" and n:
        name = dtype if dtype in DTYPES else "float32"
        d = testing.np_dtype(name)
        huge = testing.huge(name)
        finfo = np.finfo(np.float32) if name == "bfloat16" else np.finfo(d)
        table = {"nan": np.nan, "inf": np.inf, "-inf": -np.inf, "huge": huge, "-huge": -huge, "-0": -0.0,
                 "tiny": float(finfo.tiny), "-tiny": -float(finfo.tiny),
                 "subnormal": float(finfo.smallest_subnormal) * 3}
        kinds = list(SPECIAL_KINDS)
        if op == "reduce_sum":
            # Whether a sum overflows, and whether an overflow meets an infinity of the other sign
            # (inf - inf = NaN), depends on the summation order unless huge values and infinities
            # of the other sign stay apart: either no huge values, or huge and inf of one sign only.
            if rng.random() < 0.5:
                kinds = [k for k in kinds if k not in ("huge", "-huge")]
            else:
                drop = ("-huge", "-inf") if rng.random() < 0.5 else ("huge", "inf")
                kinds = [k for k in kinds if k not in drop]
        count = max(1, int(n * float(rng.choice([0.02, 0.1, 0.3]))))
        where = rng.choice(n, size=min(count, n), replace=False)
        picks = rng.integers(len(kinds), size=where.size)
        v[where] = [table[kinds[i]] for i in picks]
    return v.reshape(shape)


class Built:
    """The arrays of one case: buffers, views, snapshots."""

    def __init__(self, case: Case, rng):
        self.case = case
        self.buffers = []
        for size in case.buffer_sizes:
            raw = np.empty(size + 64, dtype=np.uint8)
            start = (-raw.ctypes.data) % 64
            buf = raw[start:start + size]
            buf[...] = rng.integers(0, 256, size=size, dtype=np.uint8)  # gaps: random bytes
            self.buffers.append(buf)
        self.values = {}  # role -> the input's values (float64), as the op will read them
        self.arrays = {}
        self.memmaps = []
        for o in case.inputs:  # write the inputs' values through writable views, then read them back
            arr = self._view(o, self.buffers[o.buffer])
            vals = random_values(rng, o.shape, o.dtype, case.values, case.op)
            with np.errstate(all="ignore"):
                if o.dtype in DTYPES:
                    arr[...] = vals.astype(np_dtype(o.dtype))
                else:
                    arr[...] = np.nan_to_num(vals).clip(-100, 100).astype(np.int64).astype(o.dtype)
            self.values[o.role] = np.array(arr).astype(np.float64) if o.dtype in DTYPES else None
        # read-only inputs: sometimes flagged read-only (inputs need not be writable)
        for o in case.inputs:
            arr = self._view(o, self.buffers[o.buffer])
            if rng.random() < 0.1 and o.role != case.out_is:
                arr.flags.writeable = False
                o.layout += "+readonly-input"
            self.arrays[o.role] = arr
        out = case.out
        if out is not None:
            self.arrays["out"] = self._out_view(out)
        self.list_out = None
        if case.out_kind == "list":
            shape = case.inputs[0].shape
            self.list_out = np.full(shape, -7.25).tolist() if shape else [-7.25]

    def _view(self, o: Operand, buf):
        return np.ndarray(o.shape, dtype=np_dtype(o.dtype), buffer=buf, offset=o.offset, strides=o.strides)

    def _out_view(self, o: Operand):
        buf = self.buffers[o.buffer]
        if o.readonly == "bytes":
            self.buffers[o.buffer] = buf = bytes(buf.tobytes())  # immutable: a write would change a bytes object
        elif o.readonly == "memmap":
            fd, path = tempfile.mkstemp(prefix="oprt_fuzz_", suffix=".bin")
            with os.fdopen(fd, "wb") as f:
                f.write(buf.tobytes())
            mm = np.memmap(path, dtype=np.uint8, mode="r", shape=(buf.size,))
            os.unlink(path)  # the mapping stays valid
            self.memmaps.append(mm)
            self.buffers[o.buffer] = buf = mm
        arr = np.ndarray(o.shape, dtype=np_dtype(o.dtype), buffer=buf, offset=o.offset, strides=o.strides)
        if o.readonly in ("flag", "broadcast"):
            arr.flags.writeable = False
        return arr

    def snapshot(self):
        return [b if isinstance(b, bytes) else b.tobytes() for b in self.buffers]

    def out_element_bytes(self, o: Operand) -> np.ndarray:
        """Mask over o's buffer: True on the bytes of o's elements."""
        mask = np.zeros(len(self.buffers[o.buffer]), dtype=bool)
        if numel(o.shape) == 0:
            return mask
        offsets = np.full((), o.offset, dtype=np.int64)
        for n, s in zip(o.shape, o.strides):
            offsets = np.add.outer(offsets, np.arange(n, dtype=np.int64) * s)
        starts = offsets.ravel()
        for k in range(itemsize(o.dtype)):
            mask[starts + k] = True
        return mask


# ------------------------------------------------------------------------------------------ references


def reference(case: Case, built: Built):
    """(float64 expected result, check keywords) for an ok case."""
    op, a = case.op, case.attrs
    with np.errstate(all="ignore"):
        if op == "copy":
            x = built.values["x"]
            shape = case.out.shape if case.out is not None else x.shape
            return np.broadcast_to(x, shape), {"bits": True}
        if op == "relu":
            x = built.values["x"]
            shape = case.out.shape if case.out is not None else x.shape
            slope = a["negative_slope"]
            # torch: relu(NaN) = NaN, relu(-inf) = 0 when slope == 0 (not -inf * 0)
            y = np.where(x > 0, x, x * slope if slope else 0.0)
            y = np.where(np.isnan(x), x, y)
            return np.broadcast_to(y, shape), {"exact": case.dtype == "float64"}
        if op == "vector_add":
            y = built.values["a"] + built.values["b"]
            shape = case.out.shape if case.out is not None else y.shape
            return np.broadcast_to(y, shape), {"exact": case.dtype == "float64"}
        if op == "reduce_sum":
            x = built.values["x"]
            axis = _numpy_axis(a["axis"])
            y = np.sum(x, axis=axis, keepdims=a["keepdims"])
            axes = range(x.ndim) if axis is None else ((axis,) if isinstance(axis, int) else axis)
            n = math.prod(x.shape[k] for k in axes) if x.ndim else 1
            magnitude = np.sum(np.abs(x), axis=axis, keepdims=a["keepdims"])
            return y, {"reduce_len": max(n, 1), "magnitude": magnitude}
        # softmax / log_softmax, torch's special-value semantics
        x = built.values["x"]
        log = op == "log_softmax"
        xs, axis = (x.reshape(1), 0) if x.ndim == 0 else (x, a["axis"])
        if xs.size == 0:
            return x.copy(), {}
        m = np.max(xs, axis=axis, keepdims=True)
        shifted = xs - m
        e = np.exp(shifted)
        s = np.sum(e, axis=axis, keepdims=True)
        y = shifted - np.log(s) if log else e / s
        n = xs.shape[axis]
        extra = {"reduce_len": n}
        if log:
            magnitude = np.abs(shifted) + np.abs(np.log(s)) + 1.0
            extra["magnitude"] = np.nan_to_num(magnitude, nan=0.0, posinf=0.0).reshape(x.shape)
        return y.reshape(x.shape), extra


# ------------------------------------------------------------------------------------------ running


def call(case: Case, arrays: dict, out):
    a = case.attrs
    if case.op == "copy":
        return oprt.copy(arrays["x"], out=out)
    if case.op == "relu":
        return oprt.relu(arrays["x"], negative_slope=a["negative_slope"], out=out)
    if case.op == "vector_add":
        return oprt.vector_add(arrays["a"], arrays["b"], out=out)
    if case.op == "reduce_sum":
        return oprt.reduce_sum(arrays["x"], axis=a["axis"], keepdims=a["keepdims"], out=out)
    fn = oprt.log_softmax if case.op == "log_softmax" else oprt.softmax
    return fn(arrays["x"], axis=a["axis"], out=out)


def _error_matches(expect: str, e: BaseException) -> bool:
    """The library's own errors must be exactly the class named; "ValueError" / "TypeError" (what numpy
    raises there) may be Python's or, for ValueError, InvalidArgumentError, but not another OprtError
    (a BadShapeError for a read-only out would be the right type for the wrong reason)."""
    for name in expect.split("|"):
        cls = getattr(oprt, name, None) or {"ValueError": ValueError, "TypeError": TypeError}[name]
        if issubclass(cls, oprt.OprtError):
            if type(e) is cls:
                return True
        elif isinstance(e, cls):
            if not isinstance(e, oprt.OprtError) or (cls is ValueError and type(e) is oprt.InvalidArgumentError):
                return True
    return False


def run_case(case: Case) -> str | None:
    """Runs one case; returns None when right, else what went wrong."""
    rng = np.random.default_rng()
    rng.bit_generator.state = case._rng_state
    built = Built(case, rng)
    arrays = dict(built.arrays)
    if case.out_kind == "list":
        out = built.list_out
    elif case.out_is:
        out = arrays[case.out_is]
    else:
        out = arrays.get("out")
    before = built.snapshot()
    list_before = repr(built.list_out)
    expected64 = extra = None
    if case.expect == "match":
        expected64, extra = reference(case, built)
    try:
        result = call(case, arrays, out)
    except Exception as e:  # noqa: BLE001 - every exception is judged below
        if case.expect == "match":
            return "raised %s: %s, expected a result matching numpy\n%s" % (
                type(e).__name__, e, "".join(traceback.format_exception(e)[-4:]))
        if not _error_matches(case.expect, e):
            return "raised %s (%s), expected %s" % (type(e).__name__, e, case.expect)
        if built.snapshot() != before:
            changed = [i for i, (x, y) in enumerate(zip(before, built.snapshot())) if x != y]
            return "raised %s as expected, but modified buffer(s) %s" % (type(e).__name__, changed)
        if repr(built.list_out) != list_before:
            return "raised %s as expected, but modified the out= list" % type(e).__name__
        return None
    if case.expect != "match":
        return "returned normally, expected %s" % case.expect
    return check_result(case, built, out, result, expected64, extra, before)


def check_result(case, built, out, result, expected64, extra, before) -> str | None:
    dtype = case.dtype
    if out is not None and result is not out:
        return "did not return the out= object it was given"
    actual = np.asarray(result)
    if actual.dtype != np_dtype(dtype):
        return "result dtype %s, expected %s" % (actual.dtype, dtype)
    with np.errstate(all="ignore"):
        expected = np.asarray(expected64, dtype=np.float64).astype(np_dtype(dtype))
    try:
        if extra.pop("bits", False):
            if actual.shape != expected.shape or not np.array_equal(testing._bits(actual), testing._bits(expected)):
                testing.assert_close(actual, expected, dtype, exact=True)
                return "copy is not bit-exact (values equal, bits differ: -0.0 or NaN payload)"
        else:
            testing.assert_close(actual, expected, dtype, **extra)
    except AssertionError as e:
        return str(e)
    # Nothing but out's elements may change: inputs (unless out is one of them) and out's gaps.
    after = built.snapshot()
    out_operand = case.out
    if case.out_is:
        out_operand = next(o for o in case.inputs if o.role == case.out_is)
    for i, (x, y) in enumerate(zip(before, after)):
        if x == y:
            continue
        if out_operand is None or i != out_operand.buffer:
            return "modified buffer %d, which holds no output" % i
        mask = built.out_element_bytes(out_operand)
        xb, yb = np.frombuffer(x, np.uint8), np.frombuffer(y, np.uint8)
        if not np.array_equal(xb[~mask], yb[~mask]):
            return "wrote outside out's elements (bytes %s of buffer %d)" % (
                np.flatnonzero((xb != yb) & ~mask)[:8].tolist(), i)
    if case.tensor_path:
        return check_tensor_path(case, built, actual)
    return None


def check_tensor_path(case, built, numpy_result) -> str | None:
    """The same call on oprt.Tensor copies of the same layouts (CPU backend), twice: the second (and
    maybe the first: the numpy call cached the descriptor) runs through the fast path. Same kernel,
    same layouts: the same bits."""
    want = testing._bits(np.ascontiguousarray(numpy_result).reshape(-1))
    for attempt in (1, 2):
        tensors = {}
        for o in case.inputs:  # the values the numpy call read (an in-place call overwrote its input)
            with np.errstate(all="ignore"):
                host = _same_layout(built.arrays[o.role], built.values[o.role].astype(np_dtype(o.dtype)))
            tensors[o.role] = oprt.Tensor.from_numpy(host)
        if case.out_is:
            out = tensors[case.out_is]
        elif case.out is not None:
            out = oprt.Tensor.from_numpy(built.arrays["out"])
        else:
            out = None
        try:
            result = call(case, tensors, out)
        except Exception as e:  # noqa: BLE001
            return "oprt.Tensor path (call %d) raised %s: %s" % (attempt, type(e).__name__, e)
        if not np.array_equal(testing._bits(testing.to_numpy(result).reshape(-1)), want):
            return "oprt.Tensor path (call %d, fast path enabled: %s) differs from the numpy path" % (
                attempt, oprt.fastcall_enabled())
    return None


def _same_layout(template: np.ndarray, values: np.ndarray) -> np.ndarray:
    """`values` in an array with template's strides (zero strides kept as such)."""
    isz = template.itemsize
    if template.size == 0:
        return np.empty(template.shape, template.dtype)
    span = sum((n - 1) * s for n, s in zip(template.shape, template.strides)) // isz + 1
    base = np.zeros(span, template.dtype)
    view = np.lib.stride_tricks.as_strided(base, template.shape, template.strides)
    view[...] = values
    return view


# ------------------------------------------------------------------------------------------ the tests


def case_features(case: Case) -> set:
    """What a case exercised, for the coverage line of the test output."""
    f = {"scenario " + case.scenario, case.dtype}
    for o in case.operands:
        f.update(t for t in o.layout.split("+") if t and " " not in t and "@" not in t)
        if not o.shape:
            f.add("0-d")
        if 0 in o.shape:
            f.add("empty")
        if o.readonly:
            f.add("readonly-out-" + o.readonly)
    if case.out_is:
        f.add("out-is-input")
    if case.out_kind == "none":
        f.add("out-allocated")
    if case.values == "specials":
        f.add("special-values")
    return f


def _labelled(fn, case: Case):
    """fn with the case's reproduction line as its code's file name: if the case kills the process (a
    segfault, a sanitizer abort), the traceback pytest's faulthandler prints names it."""
    label = "<fuzz case %s #%d: OPRT_FUZZ_SEED=%d OPRT_FUZZ_ONLY=%s:%d OPRT_FUZZ_VERBOSE=1>" % (
        case.op, case.index, SEED, case.op, case.index)
    code = fn.__code__.replace(co_filename=label)
    return types.FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)


def cases_per_op() -> int:
    return max(1, -(-TOTAL_CASES // len(OPS)))


@pytest.fixture(scope="module", autouse=True)
def summary(request):
    yield
    if not SUMMARY:
        return
    tried = sum(s["tried"] for s in SUMMARY.values())
    failed = sum(s["failed"] for s in SUMMARY.values())
    seconds = sum(s["seconds"] for s in SUMMARY.values())
    capman = request.config.pluginmanager.getplugin("capturemanager")
    with capman.global_and_fixture_disabled():
        print("\nfuzz: %d cases tried, %d failures (seed %d, %.1f s)" % (tried, failed, SEED, seconds))


@pytest.mark.parametrize("op", OPS)
def test_fuzz(op, request):
    if ONLY and ONLY.split(":")[0] != op:
        pytest.skip("OPRT_FUZZ_ONLY=%s" % ONLY)
    indices = [int(ONLY.split(":")[1])] if ONLY else range(cases_per_op())
    capman = request.config.pluginmanager.getplugin("capturemanager")
    with oprt.backend("cpu"):
        counts = {"tried": 0, "failed": 0, "matched": 0, "raised": 0, "tensor_path": 0, "seconds": 0.0}
        failures = []
        coverage = collections.Counter()
        start = time.perf_counter()
        for i in indices:
            case = make_case(op, i)
            if VERBOSE:  # past pytest's capture, so that a crash leaves it in the log
                with capman.global_and_fixture_disabled():
                    sys.stderr.write(case.describe() + "\n")
                    sys.stderr.flush()
            coverage.update(case_features(case))
            try:
                problem = _labelled(run_case, case)(case)
            except Exception:  # noqa: BLE001 - a failure of the harness itself: still show the case
                problem = "the fuzz harness failed:\n" + traceback.format_exc()
            counts["tried"] += 1
            if problem is None:
                counts["matched" if case.expect == "match" else "raised"] += 1
                counts["tensor_path"] += case.tensor_path
            else:
                counts["failed"] += 1
                failures.append("%s\n  -> %s" % (case.describe(), problem.replace("\n", "\n     ")))
        counts["seconds"] = time.perf_counter() - start
    SUMMARY[op] = counts
    with capman.global_and_fixture_disabled():
        print("\nfuzz %s: %d cases tried, %d failures (%d matched numpy, %d raised the expected error, "
              "%d also on oprt.Tensor; seed %d, %.1f s)" % (
                  op, counts["tried"], counts["failed"], counts["matched"], counts["raised"],
                  counts["tensor_path"], SEED, counts["seconds"]))
        print("fuzz %s coverage: %s" % (op, ", ".join("%s %d" % kv for kv in sorted(coverage.items()))))
    if failures:
        shown = failures[:MAX_FAILURES_SHOWN]
        more = len(failures) - len(shown)
        pytest.fail("%d of %d fuzz cases of %s failed (seed %d):\n\n%s%s" % (
            len(failures), counts["tried"], op, SEED, "\n\n".join(shown),
            "\n\n... and %d more" % more if more else ""), pytrace=False)


if __name__ == "__main__":
    raise SystemExit(testing.main(__file__))
