// Softmax over a non-last axis: x is [outer, dim, inner] with inner > 1, element (o, k, i) at
// (o * dim + k) * inner + i. No transpose: a block takes a tile of columns (o, i..i + tile) and
// its threads form a 2-D grid, `width` lanes along inner (each lane V adjacent columns, one pack
// when inner allows; a row of the tile is kColumnSegmentBytes, so loads stay coalesced) times
// height = kThreads / width rows of threads splitting dim. Each thread folds its rows into online
// (max, sum of exp) stats per column, kUnroll packs in flight; the block combines them per column
// (combine_over_block), and a second pass re-reads x and writes y.
// With few tiles (a short, wide x such as 4096x4096 over axis 0) dim is also cut into parts across
// blocks: softmax_column_part_stats writes each part's stats to the workspace and
// softmax_column_part_output combines a column's parts and writes its part of y (as split_rows.cuh).
// On sm_90, shapes of 16-byte packs whose tile fits a cluster's shared memory take cluster_columns.cuh
// (x read once) instead.
#ifndef OPS_SOFTMAX_NVIDIA_COLUMNS_CUH_
#define OPS_SOFTMAX_NVIDIA_COLUMNS_CUH_

#include <algorithm>
#include <cstdint>

#include "ops/common/cuda_dialect/dtype.cuh"
#include "ops/common/cuda_dialect/reduce.cuh"
#include "row_math.cuh"
#include "tuning.cuh"

namespace oprt::gpu::softmax_detail {

// A thread's place in its block's tile: lane tx along inner (columns tx * V .. tx * V + V - 1 of
// the tile), row ty of height along dim.
struct ColumnThread {
  int tx, ty, height;
  __device__ __forceinline__ explicit ColumnThread(int width)
      : tx(static_cast<int>(threadIdx.x) % width),
        ty(static_cast<int>(threadIdx.x) / width),
        height(kThreads / width) {}

  // Its packs of rows first, first + height, ... (kUnroll of them, `stride` packs apart), those below `end`:
  // every load issued before any is used.
  template <class T, int V>
  __device__ __forceinline__ void load_rows(const Pack<T, V> *in, int64_t stride, int64_t first, int64_t end,
                                            Pack<T, V> (&packs)[kUnroll]) const {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int64_t k = first + static_cast<int64_t>(u) * height;
      if (k < end) packs[u] = in[k * stride];
    }
  }
};

// Folds rows [begin, end) of this thread's packs (rows begin + ty, + height, ...; `stride` packs
// apart) into stats[v], one per column of the pack. Rows past `end` read as -inf (add nothing).
template <class T, int V>
__device__ __forceinline__ void fold_column_rows(const Pack<T, V> *in, int64_t stride, int64_t begin, int64_t end,
                                                 const ColumnThread &t, RowStats<ComputeType<T>> (&stats)[V]) {
  using C = ComputeType<T>;
  const int64_t step = static_cast<int64_t>(t.height) * kUnroll;
  for (int64_t first = begin + t.ty; first < end; first += step) {
    Pack<T, V> packs[kUnroll];
    t.load_rows(in, stride, first, end, packs);
    C values[V][kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      C unpacked[V];
      if (first + static_cast<int64_t>(u) * t.height < end) {
        unpack(packs[u], unpacked);
      } else {
#pragma unroll
        for (int v = 0; v < V; ++v) unpacked[v] = negative_infinity<C>();
      }
#pragma unroll
      for (int v = 0; v < V; ++v) values[v][u] = unpacked[v];
    }
#pragma unroll
    for (int v = 0; v < V; ++v) accumulate(stats[v], values[v]);
  }
}

// Combines stats[v] over the block's threads of the same columns (same tx); every thread gets its
// columns' totals. Within a warp by shuffles (lanes agreeing in lane % width), then across warps in
// warp order through shared memory: the max of the warps' maxima first, then one rescale per warp.
// All threads of the block must call it; the leading barrier lets a kernel call it once per task.
// kMaxWidth bounds width (it sizes the slots: 16 KiB for half types at a whole warp).
template <class C, int V, int kMaxWidth = kWarpSize>
__device__ __forceinline__ void combine_over_block(RowStats<C> (&stats)[V], int width, const ColumnThread &t) {
  constexpr int kWarps = kThreads / kWarpSize;
  __shared__ RowStats<C> slots[kWarps][kMaxWidth * V];
  const CombineStats<C> combine;
  const int warp = static_cast<int>(threadIdx.x) / kWarpSize, lane = static_cast<int>(threadIdx.x) % kWarpSize;
#pragma unroll
  for (int v = 0; v < V; ++v) stats[v] = warp_reduce_strided(stats[v], combine, width);
  if constexpr (kWarps > 1) {
    __syncthreads();  // the previous task's readers are done with the slots
    if (lane < width) {
#pragma unroll
      for (int v = 0; v < V; ++v) slots[warp][lane * V + v] = stats[v];
    }
    __syncthreads();
#pragma unroll
    for (int v = 0; v < V; ++v) {
      C max = slots[0][t.tx * V + v].max;
#pragma unroll
      for (int w = 1; w < kWarps; ++w) max = MaxOp{}(max, slots[w][t.tx * V + v].max);
      C sum = 0;
#pragma unroll
      for (int w = 0; w < kWarps; ++w) sum += rescaled_sum(slots[w][t.tx * V + v], max);
      stats[v] = {max, sum};
    }
  }
}

// Writes y for rows [begin, end) of this thread's packs, given its columns' totals: as Normalizer,
// with the factor (1 / sum or log(sum)) computed once per column. Each pack is loaded before it is
// stored by the same thread, so y may be x.
template <class T, int V>
__device__ __forceinline__ void write_column_rows(const Pack<T, V> *in, Pack<T, V> *out, int64_t stride,
                                                  int64_t begin, int64_t end, const ColumnThread &t,
                                                  const RowStats<ComputeType<T>> (&stats)[V], bool log) {
  using C = ComputeType<T>;
  C max[V], factor[V];
#pragma unroll
  for (int v = 0; v < V; ++v) {
    const Normalizer<C> normalize(stats[v].max, stats[v].sum, log);
    max[v] = normalize.max;
    factor[v] = normalize.factor;
  }
  const int64_t step = static_cast<int64_t>(t.height) * kUnroll;
  for (int64_t first = begin + t.ty; first < end; first += step) {
    Pack<T, V> packs[kUnroll];
    t.load_rows(in, stride, first, end, packs);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int64_t k = first + static_cast<int64_t>(u) * t.height;
      if (k < end) {
        C values[V];
        unpack(packs[u], values);
#pragma unroll
        for (int v = 0; v < V; ++v) {
          const C shifted = values[v] - max[v];
          values[v] = log ? shifted - factor[v] : exponential(shifted) * factor[v];
        }
        store_pack(out + k * stride, pack<T>(values));
      }
    }
  }
}

// The tile of task `task` (of outer * tiles): the offset of this thread's first pack in x/y (in
// elements) and whether its columns exist. Index: the type of the division by tiles (unsigned where the
// launch knows the tasks fit 32 bits: a 64-bit division is a few dozen instructions before the first load).
struct ColumnTask {
  int64_t o, column, offset;
  bool valid;
};

template <int V, class Index = int64_t>
__device__ __forceinline__ ColumnTask column_task(Index task, Index tiles, int64_t dim, int64_t inner, int width,
                                                  const ColumnThread &t) {
  ColumnTask c;
  c.o = task / tiles;
  c.column = static_cast<int64_t>(task % tiles * width + t.tx) * V;
  c.valid = c.column < inner;
  c.offset = c.valid ? c.o * dim * inner + c.column : 0;
  return c;
}

// One pass per tile over all of dim: stats, combine, write (tiles = ceil(inner / (width * V))).
template <class T, int V>
__global__ void __launch_bounds__(kThreads, kColumnMinBlocks)
    softmax_columns(const T *x, T *y, int64_t outer, int64_t dim, int64_t inner, int width, bool log) {
  using C = ComputeType<T>;
  using Vec = Pack<T, V>;
  const ColumnThread t(width);
  const int64_t tile = static_cast<int64_t>(width) * V, tiles = (inner + tile - 1) / tile, stride = inner / V;
  for (int64_t task = blockIdx.x; task < outer * tiles; task += gridDim.x) {
    const ColumnTask c = column_task<V>(task, tiles, dim, inner, width, t);
    RowStats<C> stats[V];
#pragma unroll
    for (int v = 0; v < V; ++v) stats[v] = empty_stats<C>();
    const Vec *in = reinterpret_cast<const Vec *>(x + c.offset);
    if (c.valid) fold_column_rows(in, stride, 0, dim, t, stats);
    combine_over_block(stats, width, t);
    if (c.valid) write_column_rows(in, reinterpret_cast<Vec *>(y + c.offset), stride, 0, dim, t, stats, log);
  }
}

// Split dim: stats[(o * splits + part) * inner + i] = stats of x[o, part * chunk : (part + 1) * chunk, i].
template <class T, int V>
__global__ void __launch_bounds__(kThreads, kColumnMinBlocks)
    softmax_column_part_stats(const T *x, RowStats<ComputeType<T>> *part_stats, int64_t outer, int64_t dim,
                              int64_t inner, int width, int64_t splits, int64_t chunk) {
  using C = ComputeType<T>;
  using Vec = Pack<T, V>;
  const ColumnThread t(width);
  const int64_t tile = static_cast<int64_t>(width) * V, tiles = (inner + tile - 1) / tile, stride = inner / V;
  for (int64_t task = blockIdx.x; task < outer * tiles * splits; task += gridDim.x) {
    const int64_t part = task % splits;
    const ColumnTask c = column_task<V>(task / splits, tiles, dim, inner, width, t);
    const int64_t begin = part * chunk, end = std::min(dim, begin + chunk);
    RowStats<C> stats[V];
#pragma unroll
    for (int v = 0; v < V; ++v) stats[v] = empty_stats<C>();
    if (c.valid) fold_column_rows(reinterpret_cast<const Vec *>(x + c.offset), stride, begin, end, t, stats);
    combine_over_block(stats, width, t);
    if (c.valid && t.ty == 0) {
      RowStats<C> *out = part_stats + (c.o * splits + part) * inner + c.column;
#pragma unroll
      for (int v = 0; v < V; ++v) out[v] = stats[v];
    }
  }
}

// Split dim: combines a column's part stats (thread row ty takes parts ty, ty + height, ...), then
// writes y for rows part * chunk .. (part + 1) * chunk. Every part's block combines the same
// stats the same way, so all parts of a column use the same bits.
template <class T, int V>
__global__ void __launch_bounds__(kThreads, kColumnMinBlocks)
    softmax_column_part_output(const T *x, T *y, const RowStats<ComputeType<T>> *part_stats, int64_t outer,
                               int64_t dim, int64_t inner, int width, int64_t splits, int64_t chunk, bool log) {
  using C = ComputeType<T>;
  using Vec = Pack<T, V>;
  const CombineStats<C> combine;
  const ColumnThread t(width);
  const int64_t tile = static_cast<int64_t>(width) * V, tiles = (inner + tile - 1) / tile, stride = inner / V;
  for (int64_t task = blockIdx.x; task < outer * tiles * splits; task += gridDim.x) {
    const int64_t part = task % splits;
    const ColumnTask c = column_task<V>(task / splits, tiles, dim, inner, width, t);
    RowStats<C> stats[V];
#pragma unroll
    for (int v = 0; v < V; ++v) stats[v] = empty_stats<C>();
    if (c.valid) {
      for (int64_t p = t.ty; p < splits; p += t.height) {
        const RowStats<C> *in = part_stats + (c.o * splits + p) * inner + c.column;
#pragma unroll
        for (int v = 0; v < V; ++v) stats[v] = combine(stats[v], in[v]);
      }
    }
    combine_over_block(stats, width, t);
    if (c.valid) {
      const int64_t begin = part * chunk, end = std::min(dim, begin + chunk);
      write_column_rows(reinterpret_cast<const Vec *>(x + c.offset), reinterpret_cast<Vec *>(y + c.offset), stride,
                        begin, end, t, stats, log);
    }
  }
}

}  // namespace oprt::gpu::softmax_detail

#endif  // OPS_SOFTMAX_NVIDIA_COLUMNS_CUH_
