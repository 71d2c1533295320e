"""Launches ops/softmax/tilelang/kernel.py (softmax and log_softmax) on validated torch CUDA tensors.

Any axis: the axis is moved last and the rest flattened, x2 = x.movedim(axis, -1).reshape(M, N): a view when
the softmax axis is already the last, dense one; otherwise torch copies x to a dense (M, N) buffer. The
result is written into out's own memory when out.movedim(axis, -1) is contiguous, else into a dense buffer
that is then copied into out= (in place works either way: a row is read before it is written).

Form: softmax_rows (a block per row) unless the rows are few and long (M < 2 x SMs and at least 8 tiles per
row), then the split form with S blocks per row (about 4 x SMs blocks in all, at most MAX_SPLIT per row).
"""

from operator_runtime import _tilelang as tl

from . import kernel

THREADS = kernel.THREADS

OPS = ("softmax", "log_softmax")  # the C operators it runs (_tilelang.launchers)


def launch(name, out, inputs, attrs):
    (x,) = inputs
    log = name == "log_softmax"
    if x.numel() == 0:
        return
    if x.dim() == 0:
        x, out, axis = x.reshape(1), out.reshape(1), 0  # a 0-d tensor is a slice of one element
    else:
        axis = attrs[0] % x.dim()
    xm, om = x.movedim(axis, -1), out.movedim(axis, -1)
    n = xm.shape[-1]
    m = x.numel() // n
    x2 = xm.reshape(m, n)
    if not x2.is_contiguous():
        x2 = x2.contiguous()
    after = None
    if om.is_contiguous():
        y2 = om.view(m, n)
    else:
        import torch

        y2 = torch.empty((m, n), dtype=out.dtype, device=out.device)
        after = om
    vec = tl.vector_width(n, x2, y2)
    nv = n // vec
    x3, y3 = x2.view(m, nv, vec), y2.view(m, nv, vec)
    dtype = tl.dtype_name(x.dtype)
    tiles = -(-nv // THREADS)
    split = 1
    if m < 2 * tl.sm_count() and tiles >= 8:
        split = max(1, min(-(-4 * tl.sm_count() // m), tiles // 2, kernel.MAX_SPLIT))
    if split == 1:
        tl.kernel(("softmax_rows", dtype, vec, log), lambda: kernel.softmax_rows(dtype, vec, log))(x3, y3)
    else:
        import torch

        acc = getattr(torch, tl.acc_name(x.dtype))
        pmax = torch.empty((m, split), dtype=acc, device=x.device)
        psum = torch.empty((m, split), dtype=acc, device=x.device)
        tl.kernel(("softmax_split_stats", dtype, vec), lambda: kernel.softmax_split_stats(dtype, vec))(x3, pmax, psum)
        tl.kernel(("softmax_split_apply", dtype, vec, log), lambda: kernel.softmax_split_apply(dtype, vec, log))(
            x3, pmax, psum, y3)
    if after is not None:
        after.copy_(y2.view(after.shape))


def variants():
    """(key, builder) of every kernel this launcher can compile (for _tilelang.warm)."""
    for dtype, vec in tl.dtype_vector_widths():
        yield ("softmax_split_stats", dtype, vec), (lambda d=dtype, v=vec: kernel.softmax_split_stats(d, v))
        for log in (False, True):
            yield ("softmax_rows", dtype, vec, log), (lambda d=dtype, v=vec, g=log: kernel.softmax_rows(d, v, g))
            yield (("softmax_split_apply", dtype, vec, log),
                   (lambda d=dtype, v=vec, g=log: kernel.softmax_split_apply(d, v, g)))
