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
    if tl.same_dense_storage([out, x]):
        src, dst, after = tl.flat(x), tl.flat(out), None
    else:
        src = tl.dense(x, out.shape).reshape(-1)
        buffer, after = tl.output_buffer(out)
        dst = buffer.view(-1)
    run_flat(src, dst)
    tl.finish(dst, after)


def run_flat(src, dst):
    """dst[:] = src[:] for two 1-D dense tensors of one dtype."""
    n = dst.numel()
    vec = tl.vec_of(dst.dtype)
    if n % vec or not tl.aligned(src, dst):
        vec = 1
    dtype = tl.dtype_name(dst.dtype)
    k = tl.kernel(("copy", dtype, vec), lambda: kernel.copy_kernel(dtype, vec))
    k(src.view(n // vec, vec), dst.view(n // vec, vec))


def variants():
    """(key, builder) of every kernel this launcher can compile (for _tilelang.warm)."""
    for dtype in ("float32", "float16", "bfloat16", "float64"):
        for vec in sorted({tl.VECTOR_BYTES // tl.ITEMSIZE[dtype], 1}):
            yield ("copy", dtype, vec), (lambda d=dtype, v=vec: kernel.copy_kernel(d, v))
