"""Launches ops/gelu/tilelang/kernel.py on validated torch CUDA tensors.

Layouts as relu's launcher: x and out of the same dense strides (in place included) run over their storage;
otherwise x is made dense by torch, the kernel writes a dense result, copied into a strided out= after.
"""

from operator_runtime import _tilelang as tl

from . import kernel

OPS = ("gelu",)  # the C operators it runs (_tilelang.launchers)


def launch(name, out, inputs, attrs):
    (x,) = inputs
    tanh_form = int(attrs[0]) == 1  # OPRT_GELU_TANH
    n = out.numel()
    if n == 0:
        return
    src, dst, after = tl.unary_buffers(out, x)
    vec = tl.vector_width(n, src, dst)
    dtype = tl.dtype_name(dst.dtype)
    k = tl.kernel(("gelu", dtype, vec, tanh_form), lambda: kernel.gelu_kernel(dtype, vec, tanh_form))
    k(src.view(n // vec, vec), dst.view(n // vec, vec))
    tl.finish(dst, after)


def variants():
    """(key, builder) of every kernel this launcher can compile (for _tilelang.warm)."""
    for dtype, vec in tl.dtype_vector_widths():
        for tanh_form in (False, True):
            yield ("gelu", dtype, vec, tanh_form), (lambda d=dtype, v=vec, t=tanh_form: kernel.gelu_kernel(d, v, t))
