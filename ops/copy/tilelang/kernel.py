"""copy in TileLang: y = x over a dense range of elements, viewed as nv vectors of VEC elements.

Tiling: a thread block of THREADS threads owns a tile of THREADS * UNROLL vectors (rows of the (nv, VEC)
view); each thread moves UNROLL vectors of VEC elements, one 16-byte load and store each (VEC = 16 bytes /
element size; TileLang turns the inner VEC loop into one uint4 access). The grid is ceil(nv / tile) blocks.
nv is a dynamic dimension: one compiled kernel serves every length of a dtype. The last tile is masked per
vector (`if r < nv`), which keeps the accesses vectorized.

The launcher views an n-element buffer as (n / VEC, VEC) when n is a multiple of VEC and the pointers are
16-byte aligned, else as (n, 1) (the same program compiled with VEC = 1: scalar accesses). Strided or
broadcast inputs never reach this kernel: the launcher hands it dense buffers (launcher.py says how).
"""

import tilelang.language as T

THREADS = 256
UNROLL = 4


def copy_kernel(dtype: str, vec: int):
    nv = T.dynamic("nv")
    rows = THREADS * UNROLL  # vectors per block

    @T.prim_func
    def copy(x: T.Tensor((nv, vec), dtype), y: T.Tensor((nv, vec), dtype)):
        with T.Kernel(T.ceildiv(nv, rows), threads=THREADS) as bx:
            for r0, v in T.Parallel(rows, vec):  # r0: the vector within the tile, v: the element in it
                r = bx * rows + r0
                if r < nv:
                    y[r, v] = x[r, v]

    return copy
