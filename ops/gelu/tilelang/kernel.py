"""gelu in TileLang, both forms as ops/gelu/gelu.h writes them (without the 1 + erf / 1 + tanh cancellation):
  exact  0.5 * x * erfc(-x / sqrt(2))
  tanh   x / (1 + exp(-2u)),  u = sqrt(2 / pi) * (x + 0.044715 * x^3)
computed in float32 (float64 for float64) and rounded once.

Tiling as relu's (ops/elementwise/relu/tilelang/kernel.py): a block of THREADS threads owns THREADS * UNROLL
16-byte vectors of the (nv, VEC) view of the dense buffer; load them into a register fragment, compute there,
store. nv is dynamic: one compiled kernel per (dtype, VEC, form).
"""

import tilelang.language as T

THREADS = 256
UNROLL = 4
SQRT_HALF = 0.7071067811865476
SQRT_2_OVER_PI = 0.7978845608028654


def gelu_kernel(dtype: str, vec: int, tanh_form: bool):
    acc = "float64" if dtype == "float64" else "float32"
    erfc = "erfc" if acc == "float64" else "erfcf"
    nv = T.dynamic("nv")
    rows = THREADS * UNROLL  # vectors per block

    def gelu_of(a):
        if tanh_form:
            u = T.cast(SQRT_2_OVER_PI, acc) * (a + T.cast(0.044715, acc) * a * a * a)
            return a / (T.cast(1, acc) + T.exp(T.cast(-2, acc) * u))
        # TileLang has erf but no erfc: CUDA's own erfcf / erfc, by name
        return T.cast(0.5, acc) * a * T.call_extern(acc, erfc, a * T.cast(-SQRT_HALF, acc))

    @T.prim_func
    def gelu(x: T.Tensor((nv, vec), dtype), y: T.Tensor((nv, vec), dtype)):
        with T.Kernel(T.ceildiv(nv, rows), threads=THREADS) as bx:
            xl = T.alloc_fragment((rows, vec), dtype)
            for r0, v in T.Parallel(rows, vec):  # load: one 16-byte load per vector, masked at the end
                if bx * rows + r0 < nv:
                    xl[r0, v] = x[bx * rows + r0, v]
            for r0, v in T.Parallel(rows, vec):  # compute on the fragment, out of the memory loops
                xl[r0, v] = T.cast(gelu_of(T.cast(xl[r0, v], acc)), dtype)
            for r0, v in T.Parallel(rows, vec):  # store
                if bx * rows + r0 < nv:
                    y[bx * rows + r0, v] = xl[r0, v]

    return gelu
