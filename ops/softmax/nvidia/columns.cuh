// Softmax over a non-last axis: x is [outer, dim, inner] with inner > 1. Threads run along inner, so
// loads stay coalesced, and split the axis over the block's rows of threads with the same online
// max/sum as the row tiers; no transpose.
#ifndef OPS_SOFTMAX_NVIDIA_COLUMNS_CUH_
#define OPS_SOFTMAX_NVIDIA_COLUMNS_CUH_

#include <cstdint>

#include "ops/common/cuda_dialect/dtype.cuh"
#include "ops/common/cuda_dialect/reduce.cuh"
#include "row_math.cuh"
#include "tuning.cuh"

namespace oprt::gpu::softmax_detail {

// A block is `width` threads along inner (a power of two <= warp) times kThreads / width threads
// splitting dim. Each thread folds its share of a column into online stats; the stats of a
// column's threads are combined within each warp (lanes agreeing in lane % width), then across
// the warps in warp order, and every thread writes its share of y.
template <class T>
__global__ void __launch_bounds__(kThreads)
    softmax_columns(const T *x, T *y, int64_t outer, int64_t dim, int64_t inner, int width, bool log) {
  using C = ComputeType<T>;
  constexpr int kWarps = kThreads / kWarpSize;
  __shared__ RowStats<C> warp_stats[kWarps][kWarpSize];
  const CombineStats<C> combine;
  const int tx = threadIdx.x % width, ty = threadIdx.x / width, height = kThreads / width;
  const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  const int64_t tiles = (inner + width - 1) / width;
  for (int64_t task = blockIdx.x; task < outer * tiles; task += gridDim.x) {
    const int64_t column = task % tiles * width + tx;
    const bool valid = column < inner;
    const int64_t base = task / tiles * dim * inner + column;
    RowStats<C> stats = empty_stats<C>();
    if (valid) {
      for (int64_t first = ty; first < dim; first += static_cast<int64_t>(height) * kUnroll) {
        C v[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const int64_t k = first + static_cast<int64_t>(u) * height;
          v[u] = k < dim ? convert<C>(x[base + k * inner]) : negative_infinity<C>();
        }
        accumulate(stats, v);
      }
    }
    stats = warp_reduce_strided(stats, combine, width);
    __syncthreads();  // the previous task's readers are done with warp_stats
    if (lane < width) warp_stats[warp][lane] = stats;
    __syncthreads();
    stats = warp_stats[0][tx];
#pragma unroll
    for (int w = 1; w < kWarps; ++w) stats = combine(stats, warp_stats[w][tx]);
    if (!valid) continue;
    const Normalizer<C> normalize(stats.max, stats.sum, log);
    for (int64_t k = ty; k < dim; k += height) {
      y[base + k * inner] = convert<T>(normalize(convert<C>(x[base + k * inner])));
    }
  }
}

}  // namespace oprt::gpu::softmax_detail

#endif  // OPS_SOFTMAX_NVIDIA_COLUMNS_CUH_
