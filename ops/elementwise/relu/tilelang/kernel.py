"""relu / leaky relu in TileLang: y = x if x > 0 or x is NaN, else negative_slope * x (0 when the slope is 0,
so relu(-inf) is 0 as in torch), computed in float32 (float64 for float64) and rounded once.

Tiling: a block of THREADS threads owns a tile of THREADS * UNROLL vectors of the (nv, VEC) view of the
dense buffer (VEC elements = 16 bytes). Three passes over the tile, all on registers in between:
  1. load: global -> a register fragment, one 16-byte load per vector (masked per vector: `r < nv`);
  2. compute on the fragment (the data-dependent select stays out of the memory loop, which keeps it
     vectorized: TileLang does not vectorize a load feeding a select);
  3. store: fragment -> global, 16-byte stores.
nv is dynamic: one compiled kernel per (dtype, VEC, slope kind). The slope is a kernel argument, so a new
slope compiles nothing; slope 0 has its own kernel (plain relu).
"""

import tilelang.language as T

THREADS = 256
UNROLL = 4


def relu_kernel(dtype: str, vec: int, leaky: bool):
    acc = "float64" if dtype == "float64" else "float32"
    nv = T.dynamic("nv")
    rows = THREADS * UNROLL  # vectors per block

    @T.macro
    def load(x, xl, bx):
        for r0, v in T.Parallel(rows, vec):
            if bx * rows + r0 < nv:
                xl[r0, v] = x[bx * rows + r0, v]

    @T.macro
    def store(xl, y, bx):
        for r0, v in T.Parallel(rows, vec):
            if bx * rows + r0 < nv:
                y[bx * rows + r0, v] = xl[r0, v]

    if leaky:

        @T.prim_func
        def leaky_relu(x: T.Tensor((nv, vec), dtype), y: T.Tensor((nv, vec), dtype), slope: T.float64):
            with T.Kernel(T.ceildiv(nv, rows), threads=THREADS) as bx:
                xl = T.alloc_fragment((rows, vec), dtype)
                load(x, xl, bx)
                for r0, v in T.Parallel(rows, vec):
                    a = T.cast(xl[r0, v], acc)
                    # a <= 0 is false for NaN: NaN passes through
                    xl[r0, v] = T.cast(T.if_then_else(a <= T.cast(0, acc), a * T.cast(slope, acc), a), dtype)
                store(xl, y, bx)

        return leaky_relu

    @T.prim_func
    def relu(x: T.Tensor((nv, vec), dtype), y: T.Tensor((nv, vec), dtype)):
        with T.Kernel(T.ceildiv(nv, rows), threads=THREADS) as bx:
            xl = T.alloc_fragment((rows, vec), dtype)
            load(x, xl, bx)
            for r0, v in T.Parallel(rows, vec):
                a = T.cast(xl[r0, v], acc)
                xl[r0, v] = T.cast(T.if_then_else(a <= T.cast(0, acc), T.cast(0, acc), a), dtype)
            store(xl, y, bx)

    return relu
