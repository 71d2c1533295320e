"""softmax and log_softmax in TileLang, over the last axis of a dense (M, N) matrix, in float32 (float64
for float64) with torch's special values (an all -inf row, a NaN or a +inf gives NaN).

The launcher moves the softmax axis last. x is viewed as (M, NV, VEC) (VEC elements = 16 bytes per vector
when N allows, else VEC = 1), so each thread loads whole vectors.

Online statistics (the stats macro): a row is walked in tiles of THREADS vectors (one 16-byte load per
thread per tile) into a (1, THREADS * VEC) register fragment; per tile a block reduction gives the tile's
max, the running max m is raised to it, the running sum s of exp(x - m) is rescaled by exp(m_old - m_new)
and the tile's exp(x - m_new) added. One read of x gives (m, s), however long the row: no shared-memory
row buffer, no length limit. A second read writes y = exp(x - m) / s (log: x - m - log s).

Two ways to cover a row:
  softmax_rows   one block per row (grid M): stats over the row, then the write pass. Many rows.
  split          few long rows (16 x 262144): S blocks per row (grid (S, M)), each owning a chunk of the
                 row: softmax_split_stats writes each chunk's (m, s) to small float32 buffers, then
                 softmax_split_apply combines a row's S pairs (max of the m, sum of s * exp(m - max)) in
                 every block and writes its chunk. x is read twice, as in softmax_rows, but all SMs work.
M, NV and S are dynamic: one compiled kernel per (dtype, VEC, log) and form.
"""

import tilelang.language as T

THREADS = 256
MAX_SPLIT = 128  # most blocks per row in the split form


def _acc(dtype):
    return "float64" if dtype == "float64" else "float32"


def _programs(dtype: str, vec: int, log: bool):
    acc = _acc(dtype)
    tile = THREADS * vec  # elements per tile
    neg_inf = -T.infinity(acc)
    zero = T.cast(0, acc)

    @T.macro
    def stats(x, row, first, count, nv, m, s):
        """(m, s) of the vectors first .. first + count - 1 of x[row] (count a multiple of THREADS)."""
        xt = T.alloc_fragment((1, tile), acc)
        t_max = T.alloc_fragment((1,), acc)
        t_sum = T.alloc_fragment((1,), acc)
        T.fill(m, neg_inf)
        T.fill(s, zero)
        for t in T.serial(count // THREADS):
            for i, j in T.Parallel(1, tile):
                cv = first + t * THREADS + j // vec
                xt[i, j] = T.if_then_else(cv < nv, T.cast(x[row, cv, j % vec], acc), neg_inf)
            T.reduce_max(xt, t_max, dim=1)
            for i in T.Parallel(1):
                t_max[i] = T.max(t_max[i], m[i])  # the new running max
            for i, j in T.Parallel(1, tile):  # exp(x - max); 0 while every value so far is -inf
                xt[i, j] = T.if_then_else(t_max[i] == neg_inf, zero, T.exp(xt[i, j] - t_max[i]))
            T.reduce_sum(xt, t_sum, dim=1)
            for i in T.Parallel(1):
                s[i] = T.if_then_else(m[i] == neg_inf, zero, s[i] * T.exp(m[i] - t_max[i])) + t_sum[i]
                m[i] = t_max[i]

    @T.macro
    def write(x, y, row, first, count, nv, m, s):
        """y = softmax (log_softmax) of the vectors first .. first + count - 1 of x[row], given (m, s)."""
        for t in T.serial(count // THREADS):
            for i, j in T.Parallel(1, tile):
                cv = first + t * THREADS + j // vec
                if cv < nv:
                    a = T.cast(x[row, cv, j % vec], acc)
                    if log:
                        y[row, cv, j % vec] = T.cast(a - m[i] - T.log(s[i]), dtype)
                    else:
                        y[row, cv, j % vec] = T.cast(T.exp(a - m[i]) / s[i], dtype)

    return acc, stats, write


def softmax_rows(dtype: str, vec: int, log: bool):
    acc, stats, write = _programs(dtype, vec, log)
    m_rows, nv = T.dynamic("m nv")

    @T.prim_func
    def softmax_rows(x: T.Tensor((m_rows, nv, vec), dtype), y: T.Tensor((m_rows, nv, vec), dtype)):
        with T.Kernel(m_rows, threads=THREADS) as row:
            m = T.alloc_fragment((1,), acc)  # running max
            s = T.alloc_fragment((1,), acc)  # running sum of exp(x - m)
            count = T.ceildiv(nv, THREADS) * THREADS
            stats(x, row, 0, count, nv, m, s)
            write(x, y, row, 0, count, nv, m, s)

    return softmax_rows


def softmax_split_stats(dtype: str, vec: int):
    acc, stats, _ = _programs(dtype, vec, False)
    m_rows, nv, split = T.dynamic("m nv s")

    @T.prim_func
    def softmax_split_stats(x: T.Tensor((m_rows, nv, vec), dtype), pmax: T.Tensor((m_rows, split), acc),
                            psum: T.Tensor((m_rows, split), acc)):
        with T.Kernel(split, m_rows, threads=THREADS) as (bs, row):
            m = T.alloc_fragment((1,), acc)
            s = T.alloc_fragment((1,), acc)
            chunk = T.ceildiv(nv, split * THREADS) * THREADS  # vectors per block, whole tiles
            stats(x, row, bs * chunk, chunk, nv, m, s)
            for i in T.Parallel(1):
                pmax[row, bs] = m[i]
                psum[row, bs] = s[i]

    return softmax_split_stats


def softmax_split_apply(dtype: str, vec: int, log: bool):
    acc, _, write = _programs(dtype, vec, log)
    m_rows, nv, split = T.dynamic("m nv s")
    neg_inf = -T.infinity(acc)
    zero = T.cast(0, acc)

    @T.prim_func
    def softmax_split_apply(x: T.Tensor((m_rows, nv, vec), dtype), pmax: T.Tensor((m_rows, split), acc),
                            psum: T.Tensor((m_rows, split), acc), y: T.Tensor((m_rows, nv, vec), dtype)):
        with T.Kernel(split, m_rows, threads=THREADS) as (bs, row):
            pm = T.alloc_fragment((1, MAX_SPLIT), acc)
            ps = T.alloc_fragment((1, MAX_SPLIT), acc)
            m = T.alloc_fragment((1,), acc)
            s = T.alloc_fragment((1,), acc)
            for i, k in T.Parallel(1, MAX_SPLIT):  # the row's S partial (max, sum) pairs
                pm[i, k] = T.if_then_else(k < split, pmax[row, k], neg_inf)
            T.reduce_max(pm, m, dim=1)
            for i, k in T.Parallel(1, MAX_SPLIT):  # each partial sum rescaled to the row's max
                ps[i, k] = T.if_then_else(k < split, psum[row, k], zero)
                ps[i, k] = T.if_then_else(pm[i, k] == neg_inf, zero, ps[i, k] * T.exp(pm[i, k] - m[i]))
            T.reduce_sum(ps, s, dim=1)
            chunk = T.ceildiv(nv, split * THREADS) * THREADS
            write(x, y, row, bs * chunk, chunk, nv, m, s)

    return softmax_split_apply
