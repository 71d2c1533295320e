// Softmax tier 5, rows too long or too many for the grid tier's resident blocks, up to kClusterBlocks
// parts of kPartLength<T, kClusterThreads> (128 x 131072): a cluster of kClusterBlocks blocks per row,
// each holding its part of the row in registers (RegisterPart, grid_rows.cuh); the warps' max and sum
// of exponentials are exchanged once through distributed shared memory, so x is read once and y
// written once, in one kernel. NVIDIA only (MACA has no clusters), and Hopper (sm_90) or newer: code
// compiled for an older architecture (an sm_80 or sm_89 cubin, compute_80 PTX) has an empty, trapping
// body here, and the dispatcher never picks this tier where the loaded code is such (kernel.cuh:
// cluster_tier_available).
#ifndef OPS_SOFTMAX_NVIDIA_CLUSTER_ROWS_CUH_
#define OPS_SOFTMAX_NVIDIA_CLUSTER_ROWS_CUH_

#include <algorithm>
#include <cstdint>

#include "block_shared_rows.cuh"
#include "grid_rows.cuh"
#include "ops/common/cuda_dialect/dtype.cuh"
#include "ops/common/cuda_dialect/reduce.cuh"
#include "row_math.cuh"
#include "tuning.cuh"

#if !defined(__MACACC__)
#include <cooperative_groups.h>
#endif

namespace oprt::gpu::softmax_detail {

#if !defined(__MACACC__)
// Block `rank` of a row's cluster holds x[row, rank * chunk : (rank + 1) * chunk] in registers and
// publishes each warp's stats in its shared memory; after one cluster barrier every warp of every
// block combines all the cluster's warp stats in the same order (so all get the same bits) and
// writes its part of y.
// kLog: log_softmax (a template parameter, as in grid_rows.cuh).
template <class T, int P, bool kLog = false>
__global__ void __launch_bounds__(kClusterThreads, kClusterMinBlocks)
    softmax_rows_in_cluster(const T *x, T *y, int64_t cols, int64_t chunk) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // no clusters before sm_90; the dispatcher does not launch this kernel there
#else
  namespace cg = cooperative_groups;
  using C = ComputeType<T>;
  using Vec = Pack<T, P>;
  constexpr unsigned kWarps = kClusterThreads / kWarpSize;
  __shared__ RowStats<C> warp_stats[kWarps];
  const cg::cluster_group cluster = cg::this_cluster();
  const unsigned parts = cluster.num_blocks(), rank = cluster.block_rank();
  const int64_t row = blockIdx.x / parts, begin = rank * chunk;
  const int packs = static_cast<int>(std::max<int64_t>(0, std::min(chunk, cols - begin)) / P);
  RegisterPart<kClusterThreads, kPartPacks<T, P>, T, P> part;
  part.load(reinterpret_cast<const Vec *>(x + row * cols + begin), packs, kLog);
  const CombineStats<C> combine;
  const RowStats<C> warp = warp_reduce(part.stats, combine);
  if (threadIdx.x % kWarpSize == 0) warp_stats[threadIdx.x / kWarpSize] = warp;
  cluster.sync();  // every warp's stats are written
  // Lane l folds slots l, l + warp, ... of the cluster's parts * kWarps (in rank order), then a butterfly.
  RowStats<C> total = empty_stats<C>();
  for (unsigned slot = threadIdx.x % kWarpSize; slot < parts * kWarps; slot += kWarpSize) {
    total = combine(total, *cluster.map_shared_rank(&warp_stats[slot % kWarps], slot / kWarps));
  }
  total = warp_reduce(total, combine);
  cluster.barrier_arrive();  // done reading the other blocks' stats...
  part.store(reinterpret_cast<Vec *>(y + row * cols + begin), packs, total, kLog);
  cluster.barrier_wait();  // ...and keeps its own readable until every block has read them
#endif
}

// The half-type variant: block `rank` caches its part of the row in shared memory (block_shared_rows.cuh's
// helpers), then the same exchange of stats. On the H200 it ran 128 x 131072 f16 in 29.3 us where the
// register kernel above took 34.5 (notes: "Few long rows"); f32 runs faster in registers.
template <class T, int P, int kBlockThreads>
__global__ void __launch_bounds__(kBlockThreads)
    softmax_rows_in_cluster_shared(const T *x, T *y, int64_t cols, int64_t chunk, bool log) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // no clusters before sm_90; the dispatcher does not launch this kernel there
#else
  namespace cg = cooperative_groups;
  using C = ComputeType<T>;
  using Vec = Pack<T, P>;
  extern __shared__ __align__(kVectorBytes) unsigned char shared_bytes[];
  __shared__ RowStats<C> part_stats;
  Vec *cache = reinterpret_cast<Vec *>(shared_bytes);
  const cg::cluster_group cluster = cg::this_cluster();
  const unsigned parts = cluster.num_blocks(), rank = cluster.block_rank();
  const int64_t row = blockIdx.x / parts, begin = rank * chunk;
  const int64_t packs = std::max<int64_t>(0, std::min(chunk, cols - begin)) / P;
  // MaxOp, not MaxSkippingNaN: a part's stats are combined with the others' (row_math.cuh).
  const C max = block_reduce<kBlockThreads>(
      cache_and_max<kBlockThreads>(reinterpret_cast<const Vec *>(x + row * cols + begin), cache, packs, MaxOp{}),
      MaxOp{});
  const C sum = block_reduce<kBlockThreads>(cached_exp_sum<kBlockThreads>(cache, packs, max), SumOp{});
  if (threadIdx.x == 0) part_stats = {max, sum};
  cluster.sync();  // every part's stats are written
  const CombineStats<C> combine;
  RowStats<C> total = empty_stats<C>();
  for (unsigned r = 0; r < parts; ++r) total = combine(total, *cluster.map_shared_rank(&part_stats, r));
  cluster.barrier_arrive();  // done reading the other blocks' stats...
  write_normalized<kBlockThreads>(cache, reinterpret_cast<Vec *>(y + row * cols + begin), packs,
                                  Normalizer<C>(total.max, total.sum, log));
  cluster.barrier_wait();  // ...and keeps its own readable until every block has read them
#endif
}
#endif

}  // namespace oprt::gpu::softmax_detail

#endif  // OPS_SOFTMAX_NVIDIA_CLUSTER_ROWS_CUH_
