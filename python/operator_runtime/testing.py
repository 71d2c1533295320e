"""The shared test harness of operator_runtime (ships with the package, so it runs from the wheel too).

One place for what every operator test needs:
  * TOLERANCES: the per-dtype tolerances, stated once; `tolerance()` widens them for reductions.
  * backends() / case_params() / backend_params(): what to run on (OPRT_TEST_BACKENDS, else every
    available backend); a requested backend that is not available is skipped, not failed.
  * to_backend() / to_numpy(): numpy in, the backend's tensor out (exact layout kept) and back.
  * random_values() / arrange() / make_output(): inputs of a shape in several layouts (contiguous,
    transposed/permuted, sliced with a step, broadcast) and outputs pre-filled with a sentinel.
  * special_values() / with_specials(): NaN, +-inf and huge finite values of each dtype.
  * assert_close(): NaN positions must match, infinities must match exactly, the rest within tolerance.
  * check_case(): run an op on a backend, compare with a numpy float64 reference (and with torch on
    nvidia when torch is importable), check that a given out= is written only where it should be.
  * check_error(): an op must raise exactly the given error and leave its output untouched.
  * Case / run_case(): the case descriptions each op's cases.py lists, run by tests and tools alike.
  * main(path): run pytest on one test file (what `py_test` main files call).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import os
import sys
import zlib

import numpy as np

import operator_runtime as oprt

from . import tensor as _tensor

# ----------------------------------------------------------------------------------------------------
# dtypes and tolerances

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


# ----------------------------------------------------------------------------------------------------
# backends


def backends() -> list:
    """Backends to test: $OPRT_TEST_BACKENDS (comma-separated) if set, else every available backend."""
    requested = os.environ.get("OPRT_TEST_BACKENDS", "").strip()
    if requested:
        return [b.strip() for b in requested.split(",") if b.strip()]
    return oprt.available_backends()


def is_device(backend: str) -> bool:
    return backend != "cpu"


def _skip_reason(backend: str):
    if backend not in oprt._backends.BACKENDS:
        return None  # an unknown name fails loudly in the test (InvalidArgumentError)
    if backend in oprt.available_backends():
        return None
    if backend not in oprt.compiled_backends():
        return "backend %r is not compiled into this library" % backend
    return "backend %r is compiled in but no device is usable here" % backend


def backend_params(devices_only: bool = False) -> list:
    """pytest params, one per requested backend (only device backends if `devices_only`); unavailable
    ones are marked skip (not failed)."""
    import pytest

    params = []
    for b in backends():
        if devices_only and not is_device(b):
            continue
        reason = _skip_reason(b)
        params.append(pytest.param(b, id=b, marks=[pytest.mark.skip(reason=reason)] if reason else []))
    return params


def parametrize_backends(fn):
    """Decorator: @testing.parametrize_backends def test_x(backend): ..."""
    import pytest

    return pytest.mark.parametrize("backend", backend_params())(fn)


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


# ----------------------------------------------------------------------------------------------------
# moving data


def to_backend(array, backend: str):
    """The numpy array itself on "cpu"; else oprt.Tensor.from_numpy(array) on that backend, which keeps
    the exact layout (strides, 0-strides of broadcast views, the gaps of sliced views).
    With $OPRT_TEST_CPU_TENSORS set, "cpu" gets oprt.Tensor too: the device code path without a device."""
    if not is_device(backend) and not os.environ.get("OPRT_TEST_CPU_TENSORS"):
        return array
    with oprt.backend(backend):
        return oprt.Tensor.from_numpy(np.asarray(array))


def to_numpy(result) -> np.ndarray:
    """A host numpy array of any result (numpy, oprt.Tensor, torch, cupy)."""
    if isinstance(result, np.ndarray):
        return result
    if isinstance(result, oprt.Tensor):
        return result.numpy()
    module = type(result).__module__
    if module.startswith("torch"):
        import torch

        t = result.detach().cpu()
        if t.dtype == torch.bfloat16:
            return t.float().numpy().astype(np_dtype("bfloat16"))
        return t.numpy()
    if hasattr(result, "get"):  # cupy
        return result.get()
    return np.asarray(result)


def _span(obj) -> np.ndarray:
    """Every element from obj's first to its last, gaps included, as a flat host copy."""
    if isinstance(obj, oprt.Tensor):
        n = _span_elements(obj.shape, obj.element_strides)
        flat = oprt.Tensor(obj._buffer, obj._offset, (n,), (1,), obj.dtype)
        return flat.numpy().copy()
    a = np.asarray(obj)
    n = _span_elements(a.shape, tuple(s // a.itemsize for s in a.strides))
    return np.lib.stride_tricks.as_strided(a, (n,), (a.itemsize,), writeable=False).copy()


def _span_elements(shape, strides) -> int:
    if any(n == 0 for n in shape):
        return 0
    return sum((n - 1) * s for n, s in zip(shape, strides)) + 1


def _element_mask(obj) -> np.ndarray:
    """Boolean mask over _span(obj): True at the positions that are elements of obj."""
    if isinstance(obj, oprt.Tensor):
        shape, strides = obj.shape, obj.element_strides
    else:
        a = np.asarray(obj)
        shape, strides = a.shape, tuple(s // a.itemsize for s in a.strides)
    mask = np.zeros(_span_elements(shape, strides), dtype=bool)
    if mask.size:
        offsets = np.zeros((), dtype=np.int64)
        for n, s in zip(shape, strides):
            offsets = np.add.outer(offsets, np.arange(n, dtype=np.int64) * s)
        mask[offsets.ravel()] = True
    return mask


def strided_view(obj, shape, strides, offset: int = 0):
    """A view of obj's memory (numpy array or oprt.Tensor) starting `offset` elements after obj's first
    element, with `shape` and element `strides`: how tests make overlapping and self-overlapping
    tensors on any backend (np.lib.stride_tricks.as_strided on the host)."""
    shape, strides = tuple(shape), tuple(strides)
    if isinstance(obj, oprt.Tensor):
        return oprt.Tensor(obj._buffer, obj._offset + offset * obj.dtype.itemsize, shape, strides, obj.dtype)
    a = np.asarray(obj)
    n = _span_elements(a.shape, tuple(s // a.itemsize for s in a.strides))
    start = np.lib.stride_tricks.as_strided(a, (n,), (a.itemsize,))[offset:]
    return np.lib.stride_tricks.as_strided(start, shape, tuple(s * a.itemsize for s in strides))


def contiguous_strides(shape) -> tuple:
    """Row-major strides of `shape`, in elements."""
    strides, step = [], 1
    for n in reversed(tuple(shape)):
        strides.append(step)
        step *= max(int(n), 1)
    return tuple(reversed(strides))


def overlapping_pair(backend: str, dtype, shape, shift: int = 1, rng=None):
    """(x, out): two row-major views of `shape` into ONE buffer on `backend`, out starting `shift`
    elements after x, so that they partially overlap (an in-place call gone wrong)."""
    rng = rng if rng is not None else np.random.default_rng(0)
    n = int(np.prod(shape, dtype=np.int64))
    base = to_backend(random_values((n + shift,), dtype, rng), backend)
    strides = contiguous_strides(shape)
    return strided_view(base, shape, strides, 0), strided_view(base, shape, strides, shift)


def self_overlapping_output(backend: str, dtype, shape):
    """An output of `shape` on `backend` whose first dim of extent > 1 has stride 0 (as_strided on the
    host), so that several indices address one element; filled with SENTINEL."""
    shape = tuple(shape)
    strides = list(contiguous_strides(shape))
    for d, n in enumerate(shape):
        if n > 1:
            strides[d] = 0
            break
    span = _span_elements(shape, strides)
    base = to_backend(np.full((max(span, 1),), SENTINEL, dtype=np_dtype(dtype)), backend)
    return strided_view(base, shape, strides)


class FakeDeviceArray:
    """Claims to be device memory through __cuda_array_interface__ while pointing at a host numpy array:
    the CPU backend must reject it (InvalidArgumentError) like any device tensor."""

    def __init__(self, array):
        self.array = array

    @property
    def __cuda_array_interface__(self):
        a = self.array
        return {"shape": a.shape, "typestr": a.dtype.str, "strides": a.strides,
                "data": (a.__array_interface__["data"][0], False), "version": 3}


def _bits(a: np.ndarray) -> np.ndarray:
    """The raw bytes of a (contiguous) array as unsigned integers, to compare bit for bit (NaN == NaN)."""
    a = np.ascontiguousarray(a)
    kind = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}.get(a.itemsize)
    return a.view(kind) if kind is not None else a.reshape(-1).view(np.uint8)


# ----------------------------------------------------------------------------------------------------
# inputs, layouts and special values

# Extents around the usual block / warp / vector-width boundaries, for every op's 1-D cases.
SIZES = (1, 31, 1023, 1024, 1025, 4097)
# The degenerate shapes every op must handle: 0-d, one element, empty (also with other extents).
EDGE_SHAPES = ((), (1,), (0,), (2, 0, 3))
LAYOUTS = ("contiguous", "transposed", "sliced", "broadcast")  # of inputs
OUT_LAYOUTS = ("contiguous", "transposed", "sliced")  # of a given out= (never broadcast)
SENTINEL = -7.25  # exactly representable in every dtype; what outputs are pre-filled with


def layout_applies(layout: str, shape) -> bool:
    """Whether `layout` means something different from contiguous for `shape`."""
    shape = tuple(shape)
    if layout == "contiguous":
        return True
    if layout == "transposed":
        return sum(n > 1 for n in shape) >= 2
    if layout == "sliced":
        return len(shape) >= 1
    if layout == "broadcast":
        return any(n > 1 for n in _broadcast_dims(shape).values())
    raise ValueError("unknown layout %r" % layout)


def _broadcast_dims(shape):
    """The dims a broadcast layout makes 0-stride: every other dim from the first (the only one in 1-D)."""
    return {d: n for d, n in enumerate(shape) if d % 2 == 0}


def _permutation(ndim: int):
    """Memory order of the transposed layout: reversed for 2-D, rotated (last dim outermost) above."""
    if ndim <= 2:
        return tuple(reversed(range(ndim)))
    return (ndim - 1,) + tuple(range(ndim - 1))


def arrange(values, layout: str, gap=np.nan) -> np.ndarray:
    """`values` (any numpy array) laid out as `layout`, same shape and dtype:

    contiguous  row-major copy
    transposed  a permuted view of a row-major buffer (reversed dims in 2-D, rotated in n-D)
    sliced      base[1:, ..., ::2] of a larger buffer whose gaps hold `gap` (NaN: reading one shows)
    broadcast   np.broadcast_to of a slice: dims 0, 2, 4... take values[0] (0 strides); this CHANGES
                the values, so always compute references from the returned array
    """
    values = np.asarray(values)
    nd, shape = values.ndim, values.shape
    if layout == "contiguous" or (layout != "broadcast" and not layout_applies(layout, shape)):
        return values.copy(order="C")
    if layout == "transposed":
        perm = _permutation(nd)
        buf = values.transpose(perm).copy(order="C")
        return buf.transpose(np.argsort(perm))
    if layout == "sliced":
        base_shape = list(shape)
        index = [slice(None)] * nd
        base_shape[0] += 1
        index[0] = slice(1, None)
        base_shape[-1] *= 2
        index[-1] = slice(index[-1].start, None, 2)
        if nd == 1:
            base_shape[0] = 2 * shape[0] + 1
            index[0] = slice(1, None, 2)
        base = np.full(base_shape, gap, dtype=values.dtype)
        view = base[tuple(index)]
        view[...] = values
        return view
    if layout == "broadcast":
        index = tuple(slice(0, 1) if d in _broadcast_dims(shape) else slice(None) for d in range(nd))
        return np.broadcast_to(values[index].copy(order="C"), shape)
    raise ValueError("unknown layout %r" % layout)


def layouts(values, kinds=LAYOUTS) -> list:
    """[(layout name, array)]: `values` in every layout of `kinds` that applies to its shape."""
    return [(k, arrange(values, k)) for k in kinds if layout_applies(k, np.shape(values))]


def make_output(shape, dtype, layout: str = "contiguous", fill=SENTINEL) -> np.ndarray:
    """An output array of `shape` in `layout`, every byte of its buffer (gaps too) set to `fill`."""
    return arrange(np.full(tuple(shape), fill, dtype=np_dtype(dtype)), layout, gap=fill)


def huge(dtype) -> float:
    """A large finite value of the dtype: 6e4 (f16), 3e38 (f32, bf16), 1e308 (f64)."""
    return {"float16": 6e4, "float32": 3e38, "bfloat16": 3e38, "float64": 1e308}[dtype_name(dtype)]


def special_values(dtype) -> np.ndarray:
    """NaN, +inf, -inf, +-huge, +-0, +-1 and the smallest normal of the dtype."""
    d = np_dtype(dtype)
    h = huge(dtype)
    tiny = float(np.finfo(np.float32).tiny) if dtype_name(dtype) == "bfloat16" else float(np.finfo(d).tiny)
    return np.array([np.nan, np.inf, -np.inf, h, -h, 0.0, -0.0, 1.0, -1.0, tiny], dtype=np.float64).astype(d)


def random_values(shape, dtype, rng, kind: str = "normal", scale: float = 1.0) -> np.ndarray:
    """Values of `shape` in `dtype` (contiguous): "normal", "uniform" ([0, 1)), "specials" (normal with
    about 10% NaN / +-inf / +-huge), "ones", "arange" (0, 1, 2, ... each exact in the dtype)."""
    shape = tuple(shape)
    if kind in ("normal", "specials"):
        v = rng.standard_normal(shape) * scale
    elif kind == "uniform":
        v = rng.random(shape) * scale
    elif kind == "ones":
        v = np.ones(shape)
    elif kind == "arange":
        v = (np.arange(int(np.prod(shape, dtype=np.int64))) % 256).reshape(shape).astype(np.float64)
    else:
        raise ValueError("unknown value kind %r" % kind)
    v = np.asarray(v, dtype=np.float64)
    with np.errstate(all="ignore"):
        v = v.astype(np_dtype(dtype))
    if kind == "specials":
        v = with_specials(v, rng)
    return v


def with_specials(values, rng, fraction: float = 0.1, kinds=("nan", "inf", "-inf", "huge", "-huge")) -> np.ndarray:
    """A copy of `values` with about `fraction` of the elements replaced by special values."""
    v = np.array(values, copy=True)
    if v.size == 0:
        return v
    table = {"nan": np.nan, "inf": np.inf, "-inf": -np.inf, "huge": huge(v.dtype), "-huge": -huge(v.dtype)}
    flat = v.reshape(-1)
    count = max(1, int(flat.size * fraction))
    positions = rng.choice(flat.size, size=min(count, flat.size), replace=False)
    picks = rng.integers(0, len(kinds), size=positions.size)
    flat[positions] = np.array([table[kinds[i]] for i in picks], dtype=np.float64).astype(v.dtype)
    return flat.reshape(v.shape)


# ----------------------------------------------------------------------------------------------------
# comparing


def _f64(a) -> np.ndarray:
    return np.asarray(a).astype(np.float64)


def assert_close(actual, expected, dtype, rtol=None, atol=None, reduce_len: int = 1, magnitude=None,
                 exact: bool = False, msg: str = "") -> None:
    """actual ~ expected for results of `dtype`:

    * same shape;
    * NaN exactly where expected is NaN;
    * +inf / -inf exactly where expected is +inf / -inf (and nowhere else);
    * elsewhere |actual - expected| <= atol + rtol * |expected|, with (rtol, atol) from
      tolerance(dtype, reduce_len, magnitude) unless given; exact=True asks for equal values.
    """
    a, e = _f64(to_numpy(actual)), _f64(expected)
    if a.shape != e.shape:
        raise AssertionError("%sshape %s, expected %s" % (_prefix(msg), a.shape, e.shape))
    if exact:
        rtol, atol = 0.0, 0.0
    else:
        default_rtol, default_atol = tolerance(dtype, reduce_len, magnitude)
        rtol = default_rtol if rtol is None else rtol
        atol = default_atol if atol is None else atol
    problems = []
    nan_a, nan_e = np.isnan(a), np.isnan(e)
    bad_nan = nan_a != nan_e
    if bad_nan.any():
        problems.append(("NaN where a number was expected, or a number where NaN was expected", bad_nan))
    inf_a, inf_e = np.isinf(a), np.isinf(e)
    bad_inf = (inf_a | inf_e) & ~(nan_a | nan_e) & (a != e)
    if bad_inf.any():
        problems.append(("infinity mismatch", bad_inf))
    finite = np.isfinite(a) & np.isfinite(e)
    with np.errstate(all="ignore"):
        allowed = np.broadcast_to(np.asarray(atol, dtype=np.float64), e.shape) + rtol * np.abs(e)
        bad_value = finite & ~(np.abs(a - e) <= allowed)
    if bad_value.any():
        problems.append(("values differ beyond tolerance (rtol=%.3g, atol=%s)" % (rtol, _describe(atol)), bad_value))
    if not problems:
        return
    lines = ["%s%s result does not match the reference (%d elements)" % (_prefix(msg), dtype_name(dtype), e.size)]
    for what, mask in problems:
        where = np.argwhere(mask) if mask.ndim else np.zeros((1, 0), dtype=np.int64)
        lines.append("  %s: %d elements" % (what, int(mask.sum())))
        for index in where[:6]:
            i = tuple(int(k) for k in index)
            lines.append("    at %s: got %r, expected %r (allowed diff %.3g)" % (
                i, float(a[i]), float(e[i]), float(allowed[i]) if np.ndim(allowed) else float(allowed)))
    raise AssertionError("\n".join(lines))


def _prefix(msg):
    return msg + ": " if msg else ""


def _describe(x):
    x = np.asarray(x)
    return "%.3g" % float(x) if x.ndim == 0 else "per element, up to %.3g" % float(np.nanmax(x)) if x.size else "[]"


# ----------------------------------------------------------------------------------------------------
# running one case


def _torch_cuda():
    """torch with CUDA, to compare device results with; OPRT_TEST_TORCH=0 turns it off (sanitizer runs)."""
    if os.environ.get("OPRT_TEST_TORCH") == "0":
        return None
    try:
        import torch
    except Exception:
        return None
    return torch if torch.cuda.is_available() else None


def _to_torch(torch, array):
    a = np.asarray(array)
    if dtype_name(a.dtype) == "bfloat16":
        return torch.from_numpy(a.astype(np.float32)).cuda().to(torch.bfloat16)
    return torch.from_numpy(a.copy(order="C")).cuda()


def _output_of(out, inputs, dev_inputs, expected, dtype, backend):
    """(object to pass as out=, host array it was made from or None)."""
    if out is None or out == "new":
        return None, None
    if isinstance(out, (int, np.integer)) and not isinstance(out, bool):
        return dev_inputs[int(out)], None
    host = make_output(expected.shape, dtype, out)
    return to_backend(host, backend), host


def check_case(op_fn, reference_fn, inputs, dtype, backend: str, *, attrs=None, out=None, torch_fn=None,
               reduce_len: int = 1, magnitude=None, rtol=None, atol=None, exact: bool = False, msg: str = ""):
    """Runs op_fn(*inputs, out=..., **attrs) on `backend` and checks it against the reference.

    inputs: numpy arrays of `dtype` in any layout (moved with to_backend, keeping the layout).
    reference_fn(*float64 arrays, **attrs) -> float64 result; the expected result is that cast to dtype.
    out: None (the op allocates), "contiguous" / "transposed" / "sliced" (a given out= in that layout,
         pre-filled with SENTINEL: the op must return it, and must not write the gaps of its buffer),
         or an int k (in place: out is input k itself).
    torch_fn: same signature as reference_fn on torch tensors; on nvidia with torch importable the
         result is also compared with torch's on the same device (at twice the tolerance).
    Tolerance: see assert_close (reduce_len / magnitude / rtol / atol / exact).
    Returns the result as a host numpy array.
    """
    attrs = dict(attrs or {})
    dtype = dtype_name(dtype)
    inputs = [np.asarray(x) for x in inputs]
    for x in inputs:
        if dtype_name(x.dtype) != dtype:
            raise ValueError("input of dtype %s in a %s case" % (x.dtype, dtype))
    with np.errstate(all="ignore"):
        expected64 = np.asarray(reference_fn(*[_f64(x) for x in inputs], **attrs), dtype=np.float64)
        expected = expected64.astype(np_dtype(dtype))
    dev_inputs = [to_backend(x, backend) for x in inputs]
    out_obj, _ = _output_of(out, inputs, dev_inputs, expected, dtype, backend)
    span_before = _span(out_obj) if out_obj is not None else None
    untouched = [(i, _span(d)) for i, d in enumerate(dev_inputs) if not (out_obj is not None and d is out_obj)]
    with oprt.backend(backend):
        if out_obj is None:
            result = op_fn(*dev_inputs, **attrs)
        else:
            result = op_fn(*dev_inputs, out=out_obj, **attrs)
        if is_device(backend):
            oprt.synchronize()
    label = msg or "%s on %s" % (getattr(op_fn, "__name__", "op"), backend)
    if out_obj is not None:
        if result is not out_obj:
            raise AssertionError("%s: the op did not return the out= object it was given" % label)
        span_after = _span(out_obj)
        gaps = ~_element_mask(out_obj)
        if not np.array_equal(_bits(span_after[gaps]), _bits(span_before[gaps])):
            raise AssertionError("%s: the op wrote outside its output's elements (into the gaps of a strided out=)"
                                 % label)
    for i, before in untouched:
        if not np.array_equal(_bits(_span(dev_inputs[i])), _bits(before)):
            raise AssertionError("%s: the op modified input %d" % (label, i))
    actual = to_numpy(result)
    if dtype_name(actual.dtype) != dtype:
        raise AssertionError("%s: result dtype %s, expected %s" % (label, actual.dtype, dtype))
    assert_close(actual, expected, dtype, rtol=rtol, atol=atol, reduce_len=reduce_len, magnitude=magnitude,
                 exact=exact, msg=label)
    if torch_fn is not None and backend == "nvidia":
        torch = _torch_cuda()
        if torch is not None:
            t_result = torch_fn(*[_to_torch(torch, x) for x in inputs], **attrs)
            torch.cuda.synchronize()
            r, a = tolerance(dtype, reduce_len, magnitude)
            r, a = (2 * r if rtol is None else 2 * rtol), (2 * a if atol is None else 2 * np.asarray(atol))
            assert_close(actual, to_numpy(t_result), dtype, rtol=r, atol=a, exact=exact, msg=label + " vs torch")
    return actual


def check_error(op_fn, inputs, backend: str, error, *, out=None, attrs=None, convert: bool = True):
    """op_fn(*inputs, out=out, **attrs) on `backend` must raise exactly `error` (not a subclass) and
    leave `out` and the inputs bit-for-bit unchanged. inputs / out are host numpy arrays, moved to the
    backend when `convert`; pre-fill out (make_output does) so that a stray write shows.
    Returns the exception."""
    attrs = dict(attrs or {})
    dev = [to_backend(x, backend) if convert and isinstance(x, np.ndarray) else x for x in inputs]
    dev_out = out
    if out is not None and convert and isinstance(out, np.ndarray):
        # An out that IS one of the inputs (or a view of it) must stay that same memory on the device.
        dev_out = next((d for x, d in zip(inputs, dev) if x is out), None)
        if dev_out is None:
            dev_out = to_backend(out, backend)
    def watchable(d):  # (arrays with negative strides cannot reach the library: nothing to watch)
        return isinstance(d, oprt.Tensor) or (isinstance(d, np.ndarray) and min(d.strides, default=0) >= 0)

    watched = [d for d in dev if watchable(d)]
    if watchable(dev_out) and all(dev_out is not d for d in watched):
        watched.append(dev_out)
    before = [_span(d) for d in watched]
    with oprt.backend(backend):
        try:
            if dev_out is None:
                op_fn(*dev, **attrs)
            else:
                op_fn(*dev, out=dev_out, **attrs)
        except oprt.OprtError as e:
            caught = e
        else:
            raise AssertionError("%s did not raise %s" % (getattr(op_fn, "__name__", "op"), error.__name__))
    if type(caught) is not error:
        raise AssertionError("expected %s, got %s: %s" % (error.__name__, type(caught).__name__, caught))
    for d, b in zip(watched, before):
        if not np.array_equal(_bits(_span(d)), _bits(b)):
            raise AssertionError("%s left memory modified after raising %s" % (getattr(op_fn, "__name__", "op"),
                                                                               error.__name__))
    return caught


# ----------------------------------------------------------------------------------------------------
# cases


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
        reason = _skip_reason(b)
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


# ----------------------------------------------------------------------------------------------------
# benchmarks


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


# ----------------------------------------------------------------------------------------------------
# entry point of a test file


def main(path: str, args=()) -> int:
    """Runs pytest on one test file and returns its exit code; under `bazel test` it writes the JUnit
    XML Bazel asks for, so every parametrization is counted, and `--test_filter=EXPR` selects tests as
    pytest's `-k EXPR` does (names, substrings, `and` / `or` / `not`). Usage at the end of test_<op>.py:
        if __name__ == "__main__":
            raise SystemExit(testing.main(__file__))
    """
    import pytest

    argv = [str(path), "-q", "-p", "no:cacheprovider", "-rs" if os.environ.get("OPRT_TEST_VERBOSE") else "-rN"]
    xml = os.environ.get("XML_OUTPUT_FILE")
    if xml:
        argv.append("--junitxml=" + xml)
    only = os.environ.get("TESTBRIDGE_TEST_ONLY")  # bazel test --test_filter=EXPR: pytest's -k EXPR
    if only:
        argv += ["-k", only]
    argv += list(args) + sys.argv[1:]
    code = int(pytest.main(argv))
    if only and code == int(pytest.ExitCode.NO_TESTS_COLLECTED):
        return 0  # a filter that selects nothing here (bazel test //... --test_filter=...): nothing failed
    return code
