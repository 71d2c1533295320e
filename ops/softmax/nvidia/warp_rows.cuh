// Softmax tier 1, rows up to kRegisterCols: a group of up to one warp per row, the row held in
// registers (kPacks packs per lane, instantiated per pack count): one read and one write per element.
// softmax_row_in_registers is also the body of the block-register tier (block_register_rows.cuh).
#ifndef OPS_SOFTMAX_NVIDIA_WARP_ROWS_CUH_
#define OPS_SOFTMAX_NVIDIA_WARP_ROWS_CUH_

#include <cstdint>

#include "ops/common/cuda_dialect/dtype.cuh"
#include "ops/common/cuda_dialect/reduce.cuh"
#include "row_math.cuh"
#include "tuning.cuh"

namespace oprt::gpu::softmax_detail {

// Softmax of one row of `packs` packs held in registers by `lanes` cooperating threads: this thread
// (`lane`) holds packs lane, lane + lanes, ... (kPacks of P values), so the group's loads are
// contiguous. Packs past the row end read as -inf, adding exp(-inf - max) = 0 to the sum (an all -inf
// row is NaN anyway), and are not written. `reduce(value, op)` combines a value over the group; an
// invalid row (a group past the last row, kept for the group's shuffles) computes along, stores nothing.
template <int kPacks, class T, int P, class GroupReduce>
__device__ __forceinline__ void softmax_row_in_registers(const Pack<T, P> *in, Pack<T, P> *out, int64_t packs,
                                                         int lane, int lanes, bool valid, bool log,
                                                         GroupReduce reduce) {
  // EXERCISE(step 1): hold the row in registers, reduce its max (MaxSkippingNaN) and sum of exp(v - max) over the group, store_pack y
  using C = ComputeType<T>;
  C v[kPacks][P];
  C max = negative_infinity<C>();
#pragma unroll
  for (int j = 0; j < kPacks; ++j) {
    const int64_t i = static_cast<int64_t>(j) * lanes + lane;
    if (valid && i < packs) {
      unpack(in[i], v[j]);
#pragma unroll
      for (int k = 0; k < P; ++k) max = MaxSkippingNaN{}(max, v[j][k]);
    } else {
#pragma unroll
      for (int k = 0; k < P; ++k) v[j][k] = negative_infinity<C>();
    }
  }
  max = reduce(max, MaxSkippingNaN{});
  C sum = 0;
#pragma unroll
  for (int j = 0; j < kPacks; ++j) {
#pragma unroll
    for (int k = 0; k < P; ++k) {
      // Keep exp(x - max) for softmax; log_softmax only needs x (the normalizer subtracts max).
      const C e = exponential(v[j][k] - max);
      if (!log) v[j][k] = e;
      sum += e;
    }
  }
  sum = reduce(sum, SumOp{});
  if (!valid) return;
  const Normalizer<C> normalize(max, sum, log);
#pragma unroll
  for (int j = 0; j < kPacks; ++j) {
    const int64_t i = static_cast<int64_t>(j) * lanes + lane;
    if (i < packs) {
#pragma unroll
      for (int k = 0; k < P; ++k) v[j][k] = log ? normalize(v[j][k]) : v[j][k] * normalize.factor;
      store_pack(out + i, pack<T>(v[j]));
    }
  }
  // EXERCISE END
}

// Rows up to kRegisterCols: a group of `width` lanes (up to a warp) per row. Groups past the last
// row compute along, for the shuffles.
template <class T, int P, int kPacks>
__global__ void __launch_bounds__(kThreads)
    softmax_rows_in_registers(const T *x, T *y, int64_t rows, int64_t cols, int width, bool log) {
  using Vec = Pack<T, P>;
  const RowGroups<kThreads> groups(width);
  const auto reduce_over_group = [width](auto value, auto op) { return warp_reduce(value, op, width); };
  for (int64_t first = groups.first_row; first < rows; first += groups.step) {
    const int64_t row = first + groups.group;
    const bool valid = row < rows;
    const int64_t offset = valid ? row * cols : 0;
    softmax_row_in_registers<kPacks>(reinterpret_cast<const Vec *>(x + offset), reinterpret_cast<Vec *>(y + offset),
                                     cols / P, groups.lane, width, valid, log, reduce_over_group);
  }
}

}  // namespace oprt::gpu::softmax_detail

#endif  // OPS_SOFTMAX_NVIDIA_WARP_ROWS_CUH_
