"""Launches ops/vector_add/tilelang/kernel.py on validated torch CUDA tensors.

Layouts, first that applies:
  1. out, a and b of the same shape and the same dense strides (contiguous, or one permutation of it; in
     place included): the kernel runs over their storage, "full" / "full";
  2. out contiguous and each operand either contiguous of out's shape ("full"), a dense copy of out's
     trailing dims broadcast over the leading ones ("tail": a bias row, also a 0-stride broadcast view of
     one), or a single element ("scalar"): the kernel broadcasts, no copy;
  3. otherwise torch makes the operands dense of out's shape (a.expand(shape).contiguous()) and, when out
     is strided, the kernel writes a dense buffer that is then copied into out=.
"""

import math

from operator_runtime import _tilelang as tl

from . import kernel

OPS = ("vector_add",)  # the C operators it runs (_tilelang.launchers)


def _mode(t, shape):
    """(mode, tensor to pass) of an operand for a contiguous output of `shape`, or None (make it dense)."""
    if t.numel() == 1:
        return "scalar", t.as_strided((1,), (1,))
    if tuple(t.shape) == tuple(shape) and t.is_contiguous():
        return "full", t.reshape(-1)
    # Broadcast over leading dims: strides 0 (or extent 1) there, contiguous strides for dims k.. of shape.
    t = t.expand(tuple(shape))
    strides = t.stride()
    for k in range(1, len(shape)):
        tail = shape[k:]
        if all(s == 0 or n == 1 for s, n in zip(strides[:k], shape[:k])):
            expect, step = [], 1
            for n in reversed(tail):
                expect.append(step)
                step *= n
            if all(s == e or n == 1 for s, e, n in zip(strides[k:], reversed(expect), tail)):
                return "tail", t.as_strided((math.prod(tail),), (1,))
    return None


def launch(name, out, inputs, attrs):
    a, b = inputs
    shape = tuple(out.shape)
    n = out.numel()
    if n == 0:
        return
    after = None
    modes = None
    if tl.same_dense_storage([out, a, b]):
        dst, modes = tl.flat(out), [("full", tl.flat(a)), ("full", tl.flat(b))]
    elif out.is_contiguous():
        modes = [_mode(a, shape), _mode(b, shape)]
        if None in modes:
            modes = None
        dst = out.view(-1)
    if modes is None:
        buffer, after = tl.output_buffer(out)
        dst = buffer.view(-1)
        modes = [("full", tl.dense(a, shape).reshape(-1)), ("full", tl.dense(b, shape).reshape(-1))]
    vec = tl.vec_of(dst.dtype)
    if n % vec or not tl.aligned(dst, *[t for _, t in modes]) or any(
            m == "tail" and t.numel() % vec for m, t in modes):
        vec = 1
    args = []
    for m, t in modes:
        args.append(t.view(1, 1) if m == "scalar" else t.view(t.numel() // vec, vec))
    dtype = tl.dtype_name(dst.dtype)
    key = ("vector_add", dtype, vec, modes[0][0], modes[1][0])
    k = tl.kernel(key, lambda: kernel.vector_add_kernel(dtype, vec, modes[0][0], modes[1][0]))
    k(*args, dst.view(n // vec, vec))
    tl.finish(dst, after)


def variants():
    """(key, builder) of every kernel this launcher can compile (for _tilelang.warm)."""
    modes = [("full", "full"), ("full", "tail"), ("tail", "full"), ("full", "scalar"), ("scalar", "full"),
             ("scalar", "scalar")]
    for dtype, vec in tl.dtype_vector_widths():
        for ma, mb in modes:
            yield (("vector_add", dtype, vec, ma, mb),
                   (lambda d=dtype, v=vec, a=ma, b=mb: kernel.vector_add_kernel(d, v, a, b)))
