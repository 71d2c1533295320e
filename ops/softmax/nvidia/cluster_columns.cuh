// Softmax over a non-last axis (x = [outer, dim, inner], inner > 1) with x read once, when a tile's
// dim rows fit the shared memory of a cluster of blocks: a tile of columns (columns.cuh's ColumnThread
// layout, `width` lanes of 16-byte packs along inner, a tile row at most kColumnSegmentBytes) is cut
// along dim over the blocks of a cluster. Each block copies its rows of the tile into shared memory
// with cp.async (all of a thread's copies in flight at once, in kClusterColumnCopyGroups groups so the
// max starts on the first), folds them into per-column (max, sum of exponentials) stats, combines them
// over its threads and then over the cluster's blocks through a mailbox (cluster_mailbox.cuh: st.async
// into every block's shared memory, folded in rank order so every block gets the same bits), and
// writes its rows of y from shared memory with streaming stores. NVIDIA only (MACA has no clusters), and sm_90 or newer, as cluster_rows.cuh:
// code compiled for an older architecture has an empty, trapping body here, and the dispatcher never
// picks this tier where the loaded code is such (kernel.cuh: cluster_columns_available).
#ifndef OPS_SOFTMAX_NVIDIA_CLUSTER_COLUMNS_CUH_
#define OPS_SOFTMAX_NVIDIA_CLUSTER_COLUMNS_CUH_

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "async_copy.cuh"
#include "columns.cuh"
#include "ops/common/cuda_dialect/cluster_mailbox.cuh"
#include "ops/common/cuda_dialect/dtype.cuh"
#include "ops/common/cuda_dialect/reduce.cuh"
#include "row_math.cuh"
#include "tuning.cuh"

namespace oprt::gpu::softmax_detail {

#if !defined(__MACACC__)
// Lanes along inner: 16-byte packs across one tile row of kColumnSegmentBytes (fewer for a narrow inner).
constexpr int kClusterColumnLanes = kColumnSegmentBytes / kVectorBytes;

// Columns of a tile of the widest shape (a tile row of kColumnSegmentBytes).
template <class T>
constexpr int kClusterColumnTile = kClusterColumnLanes * kPackSize<T>;

// Static shared memory of softmax_columns_in_cluster (the warps' stats, the columns' Normalizer and the
// mailbox), which its launch adds to the dynamic tile.
template <class T, int kBlocks>
constexpr size_t kClusterColumnStaticBytes =
    (kThreads / kWarpSize + kBlocks) * kClusterColumnTile<T> * sizeof(RowStats<ComputeType<T>>) +
    2 * kClusterColumnTile<T> * sizeof(ComputeType<T>) + sizeof(uint64_t);

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

// Block `rank` of a tile's cluster (kBlocks blocks, compiled in) takes rows [rank * rows_per_thread *
// height, + rows_per_thread * height) of it: thread (tx, ty) rows first = that + ty, first + height, ...
// (rows_per_thread of them, at most kClusterColumnRowsPerThread, those below dim), cached at packs
// threadIdx.x, + kThreads, ... of the dynamic shared memory. Tile `tile` (the cluster's index) is
// column tile tile % tiles of outer index tile / tiles. Each block's per-column stats go to slot
// rank * kClusterColumnTile + column of every block's mailbox (no cluster barrier after the first);
// each block then folds the kBlocks parts in rank order, so all get the same bits. y may be x: a block
// writes only rows it has cached. A device function, so that bench/lab can time this very code.
// kLog: log_softmax (a template parameter: a runtime flag made every value's normalization both forms
// and a select).
template <class T, int kBlocks, bool kLog>
__device__ __forceinline__ void softmax_tile_in_cluster(const T *x, T *y, int64_t dim, int64_t inner, unsigned tiles,
                                                        int width, int rows_per_thread) {
  using C = ComputeType<T>;
  constexpr int V = kPackSize<T>;
  constexpr int kRows = kClusterColumnRowsPerThread;
  constexpr int kGroupRows = kRows / kClusterColumnCopyGroups;
  constexpr int kTile = kClusterColumnTile<T>;
  constexpr int kWarps = kThreads / kWarpSize;
  using Vec = Pack<T, V>;
  extern __shared__ __align__(kVectorBytes) unsigned char shared_bytes[];
  __shared__ RowStats<C> warp_stats[kWarps][kTile];
  __shared__ C column_max[kTile], column_factor[kTile];  // Normalizer's, per column of the tile
  __shared__ ClusterMailbox<RowStats<C>, kBlocks * kTile> mailbox;
  if constexpr (kBlocks > 1) mailbox.open();
  Vec *cache = reinterpret_cast<Vec *>(shared_bytes) + threadIdx.x;  // this thread's row j at cache[j * kThreads]
  const unsigned rank = kBlocks > 1 ? cluster_block_rank() : 0;
  const unsigned tile = kBlocks > 1 ? cluster_index() : blockIdx.x;
  const ColumnThread t(width);
  const ColumnTask c = column_task<V, unsigned>(tile, tiles, dim, inner, width, t);
  const int64_t first = static_cast<int64_t>(rank) * rows_per_thread * t.height + t.ty;
  const int rows = c.valid && first < dim
                       ? static_cast<int>(std::min<int64_t>(rows_per_thread, (dim - first + t.height - 1) / t.height))
                       : 0;
  const int64_t row_step = t.height * (inner / V);  // packs from one of this thread's rows to the next
  const int64_t offset = rows > 0 ? c.o * dim * inner + c.column + first * inner : 0;
  const Vec *in = reinterpret_cast<const Vec *>(x + offset);

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
  // The block's stats per column: over the lanes of a warp with the same tx (shuffles), then over the
  // warps in warp order by the tile's first threads, one column each.
  const CombineStats<C> combine;
  RowStats<C> stats[V];
#pragma unroll
  for (int v = 0; v < V; ++v) stats[v] = warp_reduce_strided(part_stats(max[v], sum[v]), combine, width);
  const int warp = static_cast<int>(threadIdx.x) / kWarpSize, lane = static_cast<int>(threadIdx.x) % kWarpSize;
  if (lane < width) {
#pragma unroll
    for (int v = 0; v < V; ++v) warp_stats[warp][lane * V + v] = stats[v];
  }
  __syncthreads();
  // Then the cluster's: each of those threads sends its column's stats to every block, folds the
  // kBlocks parts it receives in rank order and keeps the column's Normalizer.
  RowStats<C> total = empty_stats<C>();
  if (static_cast<int>(threadIdx.x) < width * V) {
    total = warp_stats[0][threadIdx.x];
#pragma unroll
    for (int w = 1; w < kWarps; ++w) total = combine(total, warp_stats[w][threadIdx.x]);
  }
  if constexpr (kBlocks > 1) {
    cluster_wait();  // every block's mailbox is open
    if (threadIdx.x < kTile) {
#pragma unroll
      for (unsigned r = 0; r < kBlocks; ++r) mailbox.send(total, static_cast<int>(rank * kTile + threadIdx.x), r);
    }
    const RowStats<C> *parts = mailbox.receive();
    if (threadIdx.x < kTile) {
      total = parts[threadIdx.x];
#pragma unroll
      for (int r = 1; r < kBlocks; ++r) total = combine(total, parts[r * kTile + threadIdx.x]);
    }
  }
  if (threadIdx.x < kTile) {
    const Normalizer<C> normalize(total.max, total.sum, kLog);
    column_max[threadIdx.x] = normalize.max;
    column_factor[threadIdx.x] = normalize.factor;
  }
  __syncthreads();
  C shifts[V], factors[V];
#pragma unroll
  for (int v = 0; v < V; ++v) shifts[v] = column_max[t.tx * V + v], factors[v] = column_factor[t.tx * V + v];
  Vec *out = reinterpret_cast<Vec *>(y + offset);
#pragma unroll
  for (int j = 0; j < kRows; ++j) {
    if (j < rows) {
      C values[V];
      unpack(cache[j * kThreads], values);
#pragma unroll
      for (int v = 0; v < V; ++v) {
        const C shifted = values[v] - shifts[v];
        values[v] = kLog ? shifted - factors[v] : exponential(shifted) * factors[v];
      }
      store_pack_streaming(out + j * row_step, pack<T>(values));
    }
  }
}

// The tier's kernel: a cluster of kBlocks blocks per tile. Code for older architectures has a trapping
// body; the dispatcher launches it only where hopper_code_loaded says it may.
template <class T, int kBlocks, bool kLog>
__global__ void OPRT_CLUSTER_DIMS(kBlocks) __launch_bounds__(kThreads, kColumnMinBlocks)
    softmax_columns_in_cluster(const T *x, T *y, int64_t dim, int64_t inner, unsigned tiles, int width,
                               int rows_per_thread) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // no clusters before sm_90; the dispatcher does not launch this kernel there
#else
  softmax_tile_in_cluster<T, kBlocks, kLog>(x, y, dim, inner, tiles, width, rows_per_thread);
#endif
}
#endif

}  // namespace oprt::gpu::softmax_detail

#endif  // OPS_SOFTMAX_NVIDIA_CLUSTER_COLUMNS_CUH_
