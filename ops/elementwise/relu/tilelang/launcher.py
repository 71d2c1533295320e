"""Launches ops/elementwise/relu/tilelang/kernel.py on validated torch CUDA tensors.

Layouts as copy's launcher: x and out of the same dense strides (in place included) run over their storage;
otherwise x is made dense by torch, the kernel writes a dense result, copied into a strided out= after.
"""

from operator_runtime import _tilelang as tl

from . import kernel

OPS = ("relu",)  # the C operators it runs (_tilelang.launchers)


def launch(name, out, inputs, attrs):
    (x,) = inputs
    slope = float(attrs[0])
    n = out.numel()
    if n == 0:
        return
    src, dst, after = tl.unary_buffers(out, x)
    vec = tl.vector_width(n, src, dst)
    dtype = tl.dtype_name(dst.dtype)
    leaky = slope != 0.0
    k = tl.kernel(("relu", dtype, vec, leaky), lambda: kernel.relu_kernel(dtype, vec, leaky))
    args = (src.view(n // vec, vec), dst.view(n // vec, vec)) + ((slope,) if leaky else ())
    k(*args)
    tl.finish(dst, after)


def variants():
    """(key, builder) of every kernel this launcher can compile (for _tilelang.warm)."""
    for dtype, vec in tl.dtype_vector_widths():
        for leaky in (False, True):
            yield ("relu", dtype, vec, leaky), (lambda d=dtype, v=vec, k=leaky: kernel.relu_kernel(d, v, k))
