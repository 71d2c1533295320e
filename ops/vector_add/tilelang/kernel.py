"""vector_add in TileLang: c = a + b, computed in float32 (float64 for float64) and rounded once.

Tiling as relu's kernel: a block of THREADS threads owns THREADS * UNROLL vectors of the (nv, VEC) view of the
dense output (VEC elements = 16 bytes); operands are loaded into register fragments with 16-byte loads
(masked per vector), added there, and stored with 16-byte stores. nv is dynamic.

Broadcasting without a copy: each operand has a mode, part of the compiled kernel's key:
  "full"    an operand of the output's shape, dense: element r, v of the (nv, VEC) view;
  "tail"    an operand equal to the output's trailing dims (a bias row: (N,) + (M, N)), dense, viewed as
            (nbv, VEC): vector r reads its vector r % nbv;
  "scalar"  one element, (1, 1): every element reads it.
Other broadcasts are made dense by the launcher first.
"""

import tilelang.language as T

THREADS = 256
UNROLL = 4


def _shape(mode, nv, nbv, vec):
    return {"full": (nv, vec), "tail": (nbv, vec), "scalar": (1, 1)}[mode]


def vector_add_kernel(dtype: str, vec: int, mode_a: str, mode_b: str):
    acc = "float64" if dtype == "float64" else "float32"
    nv, nav, nbv = T.dynamic("nv nav nbv")  # output vectors; vectors of a / b in "tail" mode
    rows = THREADS * UNROLL  # vectors per block

    @T.macro
    def load(src, dst, mode, n_tail, bx):
        for r0, v in T.Parallel(rows, vec):
            r = bx * rows + r0
            if r < nv:
                if mode == "full":
                    dst[r0, v] = src[r, v]
                elif mode == "tail":
                    dst[r0, v] = src[r % n_tail, v]
                else:
                    dst[r0, v] = src[0, 0]

    @T.prim_func
    def vector_add(a: T.Tensor(_shape(mode_a, nv, nav, vec), dtype), b: T.Tensor(_shape(mode_b, nv, nbv, vec), dtype),
                   c: T.Tensor((nv, vec), dtype)):
        with T.Kernel(T.ceildiv(nv, rows), threads=THREADS) as bx:
            al = T.alloc_fragment((rows, vec), dtype)
            bl = T.alloc_fragment((rows, vec), dtype)
            load(a, al, mode_a, nav, bx)
            load(b, bl, mode_b, nbv, bx)
            for r0, v in T.Parallel(rows, vec):
                al[r0, v] = T.cast(T.cast(al[r0, v], acc) + T.cast(bl[r0, v], acc), dtype)
            for r0, v in T.Parallel(rows, vec):
                r = bx * rows + r0
                if r < nv:
                    c[r, v] = al[r0, v]

    return vector_add
