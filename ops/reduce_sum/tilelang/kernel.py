"""reduce_sum in TileLang: row sums of a dense (M, N) matrix, accumulated in float32 (float64 for float64).

The launcher brings any reduction to this form: the reduced axes moved last, so x is (M rows kept) x (N
elements summed). Its (M, NV, VEC) view (VEC elements = 16 bytes) lets each thread load whole vectors.

Tiling: the grid is (S, M): S blocks share a row (a split reduction, so that few long rows still fill the
GPU), each summing a chunk of the row's vectors: chunk = ceil(NV / (S * THREADS)) * THREADS vectors, walked in
tiles of THREADS vectors (one 16-byte load per thread per tile), added into a per-thread register
fragment (1, THREADS * VEC) of the accumulation type. At the end one block-wide reduction (warp shuffles +
shared memory, TileLang's reduce_sum) gives the chunk's sum, written to partial[row, s]. With S = 1 that is
the row's sum, written in the output dtype; with S > 1 the launcher runs the same kernel again over
partial (M, S) (accumulation type in, output dtype out, VEC = 1) to add the S partial sums.
M, NV and S are dynamic: one compiled kernel per (input dtype, output dtype, VEC).
"""

import tilelang.language as T

THREADS = 256


def row_sum_kernel(in_dtype: str, out_dtype: str, vec: int):
    acc = "float64" if in_dtype == "float64" or out_dtype == "float64" else "float32"
    m, nv, s = T.dynamic("m nv s")
    tile = THREADS * vec  # elements per tile

    @T.prim_func
    def row_sum(x: T.Tensor((m, nv, vec), in_dtype), partial: T.Tensor((m, s), out_dtype)):
        with T.Kernel(s, m, threads=THREADS) as (bs, row):
            part = T.alloc_fragment((1, tile), acc)  # each thread's running sums (VEC of them)
            total = T.alloc_fragment((1,), acc)
            chunk = T.ceildiv(nv, s * THREADS) * THREADS  # vectors per block, whole tiles
            T.clear(part)
            for t in T.serial(chunk // THREADS):
                for i, j in T.Parallel(1, tile):
                    cv = bs * chunk + t * THREADS + j // vec  # this element's vector in the row
                    part[i, j] += T.if_then_else(cv < nv, T.cast(x[row, cv, j % vec], acc), T.cast(0, acc))
            T.reduce_sum(part, total, dim=1)
            for i in T.Parallel(1):
                partial[row, bs] = T.cast(total[i], out_dtype)

    return row_sum
