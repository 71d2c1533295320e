"""Launches ops/reduce_sum/tilelang/kernel.py on validated torch CUDA tensors.

Any axes: the kept axes first, the reduced ones last, flattened to x2 (M, N). That is a view of x when x's
layout allows it (contiguous x reduced over trailing axes, every axis, ...); otherwise torch copies it to a
dense (M, N) buffer (x.permute(...).reshape(M, N).contiguous(): e.g. a column sum). The sums land in out
viewed as (M,) when out is contiguous, else in a dense buffer copied into out= afterwards.

The split: few rows (M below 4 x the SM count) get S blocks per row, S chosen so that about 4 x SMs blocks
run, then a second launch adds the S float32 partial sums of each row. Empty sums (N = 0) are 0: written by
torch (out.zero_()), no kernel.
"""

import math

from operator_runtime import _tilelang as tl

from . import kernel

THREADS = kernel.THREADS

OPS = ("reduce_sum",)  # the C operators it runs (_tilelang.launchers)


def launch(name, out, inputs, attrs):
    (x,) = inputs
    axes_requested, _keepdims = attrs._key
    nd = x.dim()
    axes = sorted({a % nd for a in axes_requested}) if nd else []
    kept = [d for d in range(nd) if d not in axes]
    m = math.prod(x.shape[d] for d in kept)
    n = math.prod(x.shape[d] for d in axes)
    if m == 0:
        return
    if n == 0:
        out.zero_()
        return
    x2 = x.permute(kept + axes).reshape(m, n) if nd else x.reshape(1, 1)
    if not x2.is_contiguous():
        x2 = x2.contiguous()
    buffer, after = tl.output_buffer(out)
    dst = buffer.view(m, 1)
    vec = tl.vec_of(x.dtype)
    if n % vec or not tl.aligned(x2):
        vec = 1
    nv = n // vec
    target = 4 * tl.sm_count()
    s = 1
    if m < target:
        s = max(1, min(-(-target // m), -(-nv // (4 * THREADS)), 4096))  # at least 4 tiles per block
    dtype = tl.dtype_name(x.dtype)
    acc = tl.acc_name(x.dtype)
    x3 = x2.view(m, nv, vec)
    if s == 1:
        tl.kernel(("reduce_sum", dtype, dtype, vec), lambda: kernel.row_sum_kernel(dtype, dtype, vec))(x3, dst)
    else:
        import torch

        partial = torch.empty((m, s), dtype=getattr(torch, acc), device=x.device)
        tl.kernel(("reduce_sum", dtype, acc, vec), lambda: kernel.row_sum_kernel(dtype, acc, vec))(x3, partial)
        tl.kernel(("reduce_sum", acc, dtype, 1), lambda: kernel.row_sum_kernel(acc, dtype, 1))(
            partial.view(m, s, 1), dst)
    tl.finish(dst, after)


def variants():
    """(key, builder) of every kernel this launcher can compile (for _tilelang.warm)."""
    for dtype in ("float32", "float16", "bfloat16", "float64"):
        acc = "float64" if dtype == "float64" else "float32"
        for vec in sorted({tl.VECTOR_BYTES // tl.ITEMSIZE[dtype], 1}):
            for out in sorted({dtype, acc}):
                yield ("reduce_sum", dtype, out, vec), (lambda d=dtype, o=out, v=vec: kernel.row_sum_kernel(d, o, v))
        if acc != dtype:
            yield ("reduce_sum", acc, dtype, 1), (lambda d=dtype, a=acc: kernel.row_sum_kernel(a, d, 1))
