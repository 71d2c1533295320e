// Softmax tier 4, too few rows for the shared-memory tier, or rows longer than one block's shared
// memory: a cluster of kClusterBlocks blocks per row, each caching its part of the row; the parts' max
// and sum of exponentials are combined through distributed shared memory, so x is read once in one
// kernel. NVIDIA only (MACA has no clusters).
#ifndef OPS_SOFTMAX_NVIDIA_CLUSTER_ROWS_CUH_
#define OPS_SOFTMAX_NVIDIA_CLUSTER_ROWS_CUH_

#include <algorithm>
#include <cstdint>

#include "block_shared_rows.cuh"
#include "ops/common/cuda_dialect/dtype.cuh"
#include "ops/common/cuda_dialect/reduce.cuh"
#include "row_math.cuh"
#include "tuning.cuh"

#if !defined(__MACACC__)
#include <cooperative_groups.h>
#endif

namespace oprt::gpu::softmax_detail {

#if !defined(__MACACC__)
// Block `rank` of a row's cluster caches x[row, rank * chunk : (rank + 1) * chunk] in shared memory
// and computes that part's max and sum of exponentials; every block then reads all the parts' stats
// from the cluster's shared memory in rank order (so every block combines the same bits) and writes
// its part of y. x is read from memory once, in one kernel.
template <class T, int P, int kBlockThreads>
__global__ void __launch_bounds__(kBlockThreads)
    softmax_rows_in_cluster(const T *x, T *y, int64_t cols, int64_t chunk, bool log) {
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
}
#endif

}  // namespace oprt::gpu::softmax_detail

#endif  // OPS_SOFTMAX_NVIDIA_CLUSTER_ROWS_CUH_
