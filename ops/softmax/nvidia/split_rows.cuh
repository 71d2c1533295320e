// Softmax tier 6, the fallback (rows too many for the grid tier's resident blocks and too long for
// the cluster tier; on MetaX, which has neither, all rows the tiers before leave): each row is cut
// into parts, a block per part. A first kernel computes each part's max and sum of exponentials in
// one pass (online: the sum is rescaled whenever the max grows) into the workspace; a second
// combines the row's parts and writes its part of y, re-reading x (mostly from L2).
#ifndef OPS_SOFTMAX_NVIDIA_SPLIT_ROWS_CUH_
#define OPS_SOFTMAX_NVIDIA_SPLIT_ROWS_CUH_

#include <algorithm>
#include <cstdint>

#include "ops/common/cuda_dialect/dtype.cuh"
#include "ops/common/cuda_dialect/reduce.cuh"
#include "row_math.cuh"
#include "tuning.cuh"

namespace oprt::gpu::softmax_detail {

// stats[row * splits + part] = max and sum of exponentials of x[row, part * chunk : (part + 1) * chunk].
template <class T, int P>
__global__ void __launch_bounds__(kThreads)
    softmax_part_stats(const T *x, RowStats<ComputeType<T>> *stats, int64_t rows, int64_t cols, int64_t splits,
                       int64_t chunk) {
  using C = ComputeType<T>;
  using Vec = Pack<T, P>;
  // EXERCISE(step 3): per (row, part): accumulate the part's packs into RowStats, block_reduce with CombineStats, thread 0 stores
  for (int64_t task = blockIdx.x; task < rows * splits; task += gridDim.x) {
    const int64_t row = task / splits, begin = task % splits * chunk;
    const int64_t packs = std::max<int64_t>(0, std::min(chunk, cols - begin)) / P;
    const Vec *in = reinterpret_cast<const Vec *>(x + row * cols + begin);
    RowStats<C> part = empty_stats<C>();
    for_each_pack<kUnroll>(in, threadIdx.x, packs, kThreads, [&](int64_t, const Vec v) {
      C values[P];
      unpack(v, values);
      accumulate(part, values);
    });
    part = block_reduce<kThreads>(part, CombineStats<C>{});
    if (threadIdx.x == 0) stats[task] = part;
  }
  // EXERCISE END
}

// y for one part of a row, after combining all of the row's part stats (each warp combines them
// the same way: lane l folds parts l, l + warp, ... in order, then a butterfly).
template <class T, int P>
__global__ void __launch_bounds__(kThreads)
    softmax_part_output(const T *x, T *y, const RowStats<ComputeType<T>> *stats, int64_t rows, int64_t cols,
                        int64_t splits, int64_t chunk, bool log) {
  using C = ComputeType<T>;
  using Vec = Pack<T, P>;
  const CombineStats<C> combine;
  // EXERCISE(step 4): per (row, part): combine the row's part stats (lanes, then warp_reduce) and normalize this part into y
  for (int64_t task = blockIdx.x; task < rows * splits; task += gridDim.x) {
    const int64_t row = task / splits, begin = task % splits * chunk;
    RowStats<C> total = empty_stats<C>();
    for (int64_t part = threadIdx.x % kWarpSize; part < splits; part += kWarpSize) {
      total = combine(total, stats[row * splits + part]);
    }
    total = warp_reduce(total, combine);
    const Normalizer<C> normalize(total.max, total.sum, log);
    const int64_t packs = std::max<int64_t>(0, std::min(chunk, cols - begin)) / P;
    const Vec *in = reinterpret_cast<const Vec *>(x + row * cols + begin);
    Vec *out = reinterpret_cast<Vec *>(y + row * cols + begin);
    for_each_pack<kUnroll>(in, threadIdx.x, packs, kThreads, [&](int64_t i, const Vec v) {
      C values[P];
      unpack(v, values);
#pragma unroll
      for (int k = 0; k < P; ++k) values[k] = normalize(values[k]);
      out[i] = pack<T>(values);
    });
  }
  // EXERCISE END
}

}  // namespace oprt::gpu::softmax_detail

#endif  // OPS_SOFTMAX_NVIDIA_SPLIT_ROWS_CUH_
