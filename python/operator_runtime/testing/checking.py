"""Checking: compare a result with its reference (assert_close), run an op and check it against a numpy
float64 reference and torch (check_case), and check that an op refuses its arguments (check_error)."""

from __future__ import annotations

import os

import numpy as np

import operator_runtime as oprt

from .backends import is_device, to_backend, to_numpy
from .dtypes import dtype_name, np_dtype, tolerance
from .layout import _element_mask, _span, make_output


def _f64(a) -> np.ndarray:
    return np.asarray(a).astype(np.float64)


def _bits(a: np.ndarray) -> np.ndarray:
    """The raw bytes of a (contiguous) array as unsigned integers, to compare bit for bit (NaN == NaN)."""
    a = np.ascontiguousarray(a)
    kind = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}.get(a.itemsize)
    return a.view(kind) if kind is not None else a.reshape(-1).view(np.uint8)


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
