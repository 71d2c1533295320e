"""Launches ops/copy/tilelang/kernel.py on validated torch CUDA tensors (operator_runtime._tilelang calls it).

Layouts: x and out with the same strides and dense (contiguous, or the same permutation of it: a
transposed x into a transposed out) run over their storage directly. Anything else (a strided x, a
broadcast x, a strided out) goes through dense buffers: torch makes x dense (x.expand(shape).contiguous()),
the kernel copies it into a dense result, which is copied into out=.
"""

from operator_runtime import _tilelang as tl

from . import kernel

OPS = ("copy",)  # the C operators it runs (_tilelang.launchers)


def launch(name, out, inputs, attrs):
    (x,) = inputs
    n = out.numel()
    if n == 0:
        return
    src, dst, after = tl.unary_buffers(out, x)
    run_flat(src, dst)
    tl.finish(dst, after)


def run_flat(src, dst):
    """dst[:] = src[:] for two 1-D dense tensors of one dtype."""
    n = dst.numel()
    vec = tl.vector_width(n, src, dst)
    dtype = tl.dtype_name(dst.dtype)
    k = tl.kernel(("copy", dtype, vec), lambda: kernel.copy_kernel(dtype, vec))
    k(src.view(n // vec, vec), dst.view(n // vec, vec))


def variants():
    """(key, builder) of every kernel this launcher can compile (for _tilelang.warm)."""
    for dtype, vec in tl.dtype_vector_widths():
        yield ("copy", dtype, vec), (lambda d=dtype, v=vec: kernel.copy_kernel(d, v))
