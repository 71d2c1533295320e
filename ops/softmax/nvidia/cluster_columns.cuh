// Softmax over a non-last axis (x = [outer, dim, inner], inner > 1) with x read once, when a tile's
// dim rows fit the shared memory of a cluster of blocks: a tile of columns (columns.cuh's ColumnThread
// layout, `width` lanes of 16-byte packs along inner, a tile row at most kColumnSegmentBytes) is cut
// along dim over the blocks of a cluster. Each block copies its rows of the tile into shared memory
// with cp.async (all of a thread's copies in flight at once, in kClusterColumnCopyGroups groups so the
// max starts on the first), folds them into per-column (max, sum of exponentials) stats, combines them
// over its threads (combine_over_block) and then over the cluster's blocks through distributed shared
// memory in rank order (so every block gets the same bits), and writes its rows of y from shared memory
// with streaming stores. NVIDIA only (MACA has no clusters), and sm_90 or newer, as cluster_rows.cuh:
// code compiled for an older architecture has an empty, trapping body here, and the dispatcher never
// picks this tier where the loaded code is such (kernel.cuh: cluster_columns_available).
#ifndef OPS_SOFTMAX_NVIDIA_CLUSTER_COLUMNS_CUH_
#define OPS_SOFTMAX_NVIDIA_CLUSTER_COLUMNS_CUH_

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "columns.cuh"
#include "ops/common/cuda_dialect/dtype.cuh"
#include "ops/common/cuda_dialect/reduce.cuh"
#include "row_math.cuh"
#include "tuning.cuh"

#if !defined(__MACACC__)
#include <cooperative_groups.h>
#endif

namespace oprt::gpu::softmax_detail {

#if !defined(__MACACC__)
// Lanes along inner: 16-byte packs across one tile row of kColumnSegmentBytes (fewer for a narrow inner).
constexpr int kClusterColumnLanes = kColumnSegmentBytes / kVectorBytes;

// Static shared memory of softmax_columns_in_cluster (combine_over_block's slots, the block's stats and
// the column totals), which its launch adds to the dynamic tile.
template <class T>
constexpr size_t kClusterColumnStaticBytes =
    (kThreads / kWarpSize + 2) * kClusterColumnLanes * kPackSize<T> * sizeof(RowStats<ComputeType<T>>);

// cp.async of a 16-byte pack from global into shared memory, cached in L2 only (x is read once).
__device__ __forceinline__ void copy_pack_async(void *shared, const void *global) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;\n" ::"r"(address), "l"(global) : "memory");
}

// Closes a group of this thread's cp.async copies.
__device__ __forceinline__ void commit_async_copies() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

// Waits until at most `pending` (a constant after unrolling, < kClusterColumnCopyGroups) of this
// thread's copy groups are still in flight.
__device__ __forceinline__ void wait_async_copies(int pending) {
  static_assert(kClusterColumnCopyGroups == 4, "one case per group");
  switch (pending) {
    case 3: asm volatile("cp.async.wait_group 3;\n" ::: "memory"); break;
    case 2: asm volatile("cp.async.wait_group 2;\n" ::: "memory"); break;
    case 1: asm volatile("cp.async.wait_group 1;\n" ::: "memory"); break;
    default: asm volatile("cp.async.wait_group 0;\n" ::: "memory"); break;
  }
}

// The stats of a part from its NaN-skipping max (MaxSkippingNaN: one instruction where MaxOp takes
// four) and its sum of exp(x - max), taken as exp(x - 0) where the max is -inf (so an all -inf part
// sums to 0). A NaN or +inf in the part made the sum NaN (exp(NaN), exp(inf - inf)); the max is made
// NaN too, so that CombineStats carries it on as MaxOp's max would (a part of NaN and -inf only would
// otherwise pass for an empty one).
template <class C>
__device__ __forceinline__ RowStats<C> part_stats(C max, C sum) {
  return {sum != sum ? sum : max, sum};
}

// Block `rank` of a tile's cluster takes rows [rank * rows_per_thread * height, + rows_per_thread *
// height) of it: thread (tx, ty) rows first = that + ty, first + height, ... (rows_per_thread of them,
// at most kClusterColumnRowsPerThread, those below dim), cached at packs threadIdx.x, + kThreads, ...
// of the dynamic shared memory. The cluster's blocks are consecutive: tile blockIdx.x / cluster size.
// y may be x: a block writes only rows it has cached, after the cluster barrier that follows every
// block's reads.
template <class T>
__global__ void __launch_bounds__(kThreads, kColumnMinBlocks)
    softmax_columns_in_cluster(const T *x, T *y, int64_t dim, int64_t inner, int width, int rows_per_thread,
                               bool log) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // no clusters before sm_90; the dispatcher does not launch this kernel there
#else
  namespace cg = cooperative_groups;
  using C = ComputeType<T>;
  constexpr int V = kPackSize<T>;
  constexpr int kRows = kClusterColumnRowsPerThread;
  constexpr int kGroupRows = kRows / kClusterColumnCopyGroups;
  using Vec = Pack<T, V>;
  extern __shared__ __align__(kVectorBytes) unsigned char shared_bytes[];
  __shared__ RowStats<C> block_stats[kClusterColumnLanes * V];
  __shared__ RowStats<C> totals[kClusterColumnLanes * V];
  Vec *cache = reinterpret_cast<Vec *>(shared_bytes) + threadIdx.x;  // this thread's row j at cache[j * kThreads]
  const cg::cluster_group cluster = cg::this_cluster();
  const unsigned blocks = cluster.num_blocks(), rank = cluster.block_rank();
  const ColumnThread t(width);
  const int64_t tile = static_cast<int64_t>(width) * V;
  const ColumnTask c = column_task<V>(blockIdx.x / blocks, (inner + tile - 1) / tile, dim, inner, width, t);
  const int64_t first = static_cast<int64_t>(rank) * rows_per_thread * t.height + t.ty;
  const int rows = c.valid && first < dim
                       ? static_cast<int>(std::min<int64_t>(rows_per_thread, (dim - first + t.height - 1) / t.height))
                       : 0;
  const int64_t row_step = t.height * (inner / V);  // packs from one of this thread's rows to the next
  const Vec *in = reinterpret_cast<const Vec *>(x + c.offset + first * inner);

#pragma unroll
  for (int j = 0; j < kRows; ++j) {
    if (j < rows) copy_pack_async(cache + j * kThreads, in + j * row_step);
    if (j % kGroupRows == kGroupRows - 1) commit_async_copies();
  }
  // Each column's max, group by group as the copies land, then its sum of exp(x - shift) (part_stats).
  C max[V];
#pragma unroll
  for (int v = 0; v < V; ++v) max[v] = negative_infinity<C>();
#pragma unroll
  for (int j = 0; j < kRows; ++j) {
    if (j % kGroupRows == 0) wait_async_copies(kClusterColumnCopyGroups - 1 - j / kGroupRows);
    if (j < rows) {
      C values[V];
      unpack(cache[j * kThreads], values);
#pragma unroll
      for (int v = 0; v < V; ++v) max[v] = MaxSkippingNaN{}(max[v], values[v]);
    }
  }
  C shift[V], sum[V];
#pragma unroll
  for (int v = 0; v < V; ++v) {
    shift[v] = max[v] == negative_infinity<C>() ? C(0) : max[v];
    sum[v] = 0;
  }
#pragma unroll
  for (int j = 0; j < kRows; ++j) {
    if (j < rows) {
      C values[V];
      unpack(cache[j * kThreads], values);
#pragma unroll
      for (int v = 0; v < V; ++v) sum[v] += exponential(values[v] - shift[v]);
    }
  }
  RowStats<C> stats[V];
#pragma unroll
  for (int v = 0; v < V; ++v) stats[v] = part_stats(max[v], sum[v]);
  combine_over_block<C, V, kClusterColumnLanes>(stats, width, t);
  if (t.ty == 0) {
#pragma unroll
    for (int v = 0; v < V; ++v) block_stats[t.tx * V + v] = stats[v];
  }
  cluster.sync();  // every block's stats are written
  if (threadIdx.x < tile) {
    const CombineStats<C> combine;
    RowStats<C> total = empty_stats<C>();
    for (unsigned r = 0; r < blocks; ++r) {
      total = combine(total, *cluster.map_shared_rank(&block_stats[threadIdx.x], r));
    }
    totals[threadIdx.x] = total;
  }
  cluster.barrier_arrive();  // done reading the other blocks' stats...
  __syncthreads();           // the totals are written

  C column_max[V], factor[V];  // Normalizer's, per column
#pragma unroll
  for (int v = 0; v < V; ++v) {
    const RowStats<C> total = totals[t.tx * V + v];
    const Normalizer<C> normalize(total.max, total.sum, log);
    column_max[v] = normalize.max;
    factor[v] = normalize.factor;
  }
  Vec *out = reinterpret_cast<Vec *>(y + c.offset + first * inner);
#pragma unroll
  for (int j = 0; j < kRows; ++j) {
    if (j < rows) {
      C values[V];
      unpack(cache[j * kThreads], values);
#pragma unroll
      for (int v = 0; v < V; ++v) {
        const C shifted = values[v] - column_max[v];
        values[v] = log ? shifted - factor[v] : exponential(shifted) * factor[v];
      }
      store_pack_streaming(out + j * row_step, pack<T>(values));
    }
  }
  cluster.barrier_wait();  // ...and keeps this block's stats readable until every block has read them
#endif
}
#endif

}  // namespace oprt::gpu::softmax_detail

#endif  // OPS_SOFTMAX_NVIDIA_CLUSTER_COLUMNS_CUH_
