// Softmax tier 1b, the rows up to kRegisterCols that the tile tier (tile_rows.cuh) does not take: f64,
// and rows not in whole, aligned 16-byte packs (moved one element at a time). A group of up to one warp
// per row, the row held in registers (kPacks packs per lane, instantiated per pack count): one read and
// one write per element. A group holds kRows rows at once (rows_per_group in kernel.cuh), so short rows
// keep several loads in flight per lane.
// softmax_row_in_registers is also the body of the tile tier and of the block-register tier
// (block_register_rows.cuh).
#ifndef OPS_SOFTMAX_NVIDIA_WARP_ROWS_CUH_
#define OPS_SOFTMAX_NVIDIA_WARP_ROWS_CUH_

#include <cstdint>

#include "ops/common/cuda_dialect/cache_policy.cuh"
#include "ops/common/cuda_dialect/dtype.cuh"
#include "ops/common/cuda_dialect/reduce.cuh"
#include "row_math.cuh"
#include "tuning.cuh"

namespace oprt::gpu::softmax_detail {

// kRows values, one per row, reduced over a group in one reduction: a shuffle of the struct moves
// every row's value at the same offset, so the kRows shuffles of a step are in flight together.
template <class C, int kRows>
struct PerRow {
  C v[kRows];
};

// Op applied row by row to PerRow values.
template <class Op>
struct EachRow {
  Op op;
  template <class C, int kRows>
  __device__ __forceinline__ PerRow<C, kRows> operator()(const PerRow<C, kRows> &a,
                                                         const PerRow<C, kRows> &b) const {
    PerRow<C, kRows> result;
#pragma unroll
    for (int r = 0; r < kRows; ++r) result.v[r] = op(a.v[r], b.v[r]);
    return result;
  }
};

// values[r] = the group's reduction of values[r], for every row r at once (a plain reduction for one row).
template <int kRows, class C, class Op, class GroupReduce>
__device__ __forceinline__ void reduce_rows(C (&values)[kRows], Op op, GroupReduce reduce) {
  if constexpr (kRows == 1) {
    values[0] = reduce(values[0], op);
  } else {
    PerRow<C, kRows> all;
#pragma unroll
    for (int r = 0; r < kRows; ++r) all.v[r] = values[r];
    all = reduce(all, EachRow<Op>{op});
#pragma unroll
    for (int r = 0; r < kRows; ++r) values[r] = all.v[r];
  }
}

// Softmax of kRows rows of `packs` packs each, held in registers by `lanes` cooperating threads: row r
// starts at in + r * row_stride (packs), and this thread (`lane`) holds its packs lane, lane + lanes, ...
// (kPacks of P values), so the group's loads are contiguous. Every load is issued before any value is
// used (the max reads them only once all are loaded), so the loads of all kRows rows are in flight
// together; the rows' max and sum are then reduced together (bench/notes/softmax-tuning.md, "Short
// rows"). Packs past the row end read as -inf, adding exp(-inf - max) = 0 to the sum (an all -inf row
// is NaN anyway), and are not written. Only the first
// `valid_rows` rows exist; the others (past the last row, kept for the group's shuffles) compute along
// and store nothing. `reduce(value, op)` combines a value over the group. Load reads x (cache_policy.cuh;
// the tile tier's choice, tuning.cuh).
template <int kRows, int kPacks, class Load = PlainLoad, class T, int P, class GroupReduce>
__device__ __forceinline__ void softmax_rows_in_registers_of_group(const Pack<T, P> *in, Pack<T, P> *out,
                                                                   int64_t row_stride, int valid_rows,
                                                                   int64_t packs, int lane, int lanes, bool log,
                                                                   GroupReduce reduce) {
  // EXERCISE(step 1): hold the kRows rows in registers, reduce each row's max (MaxSkippingNaN) and sum of exp(v - max) over the group (reduce_rows), store_pack y
  using C = ComputeType<T>;
  const Load load{};
  C v[kRows][kPacks][P];
  C max[kRows];
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    max[r] = negative_infinity<C>();
#pragma unroll
    for (int j = 0; j < kPacks; ++j) {
      const int64_t i = static_cast<int64_t>(j) * lanes + lane;
      if (r < valid_rows && i < packs) {
        unpack(load(in + r * row_stride + i), v[r][j]);
      } else {
#pragma unroll
        for (int k = 0; k < P; ++k) v[r][j][k] = negative_infinity<C>();
      }
    }
  }
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
#pragma unroll
    for (int j = 0; j < kPacks; ++j) {
#pragma unroll
      for (int k = 0; k < P; ++k) max[r] = MaxSkippingNaN{}(max[r], v[r][j][k]);
    }
  }
  reduce_rows(max, MaxSkippingNaN{}, reduce);
  C sum[kRows];
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    sum[r] = 0;
#pragma unroll
    for (int j = 0; j < kPacks; ++j) {
#pragma unroll
      for (int k = 0; k < P; ++k) {
        // Keep exp(x - max) for softmax; log_softmax only needs x (the normalizer subtracts max).
        const C e = exponential(v[r][j][k] - max[r]);
        if (!log) v[r][j][k] = e;
        sum[r] += e;
      }
    }
  }
  reduce_rows(sum, SumOp{}, reduce);
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    if (r < valid_rows) {
      const Normalizer<C> normalize(max[r], sum[r], log);
#pragma unroll
      for (int j = 0; j < kPacks; ++j) {
        const int64_t i = static_cast<int64_t>(j) * lanes + lane;
        if (i < packs) {
#pragma unroll
          for (int k = 0; k < P; ++k) v[r][j][k] = log ? normalize(v[r][j][k]) : v[r][j][k] * normalize.factor;
          store_pack(out + r * row_stride + i, pack<T>(v[r][j]));
        }
      }
    }
  }
  // EXERCISE END
}

// One row (the tile and block-register tiers' body): `valid` false for a row kept only for the shuffles.
template <int kPacks, class Load = PlainLoad, class T, int P, class GroupReduce>
__device__ __forceinline__ void softmax_row_in_registers(const Pack<T, P> *in, Pack<T, P> *out, int64_t packs,
                                                         int lane, int lanes, bool valid, bool log,
                                                         GroupReduce reduce) {
  softmax_rows_in_registers_of_group<1, kPacks, Load>(in, out, 0, valid ? 1 : 0, packs, lane, lanes, log, reduce);
}

// Rows up to kRegisterCols: a group of `width` lanes (up to a warp) per row, kRows rows per group at
// once. A warp takes kRows * (kWarpSize / width) consecutive rows per step, group g rows
// first + g + r * (kWarpSize / width), so each of its loads reads consecutive rows. Groups past the last
// row compute along, for the shuffles.
template <class T, int P, int kPacks, int kRows>
__global__ void __launch_bounds__(kThreads)
    softmax_rows_in_registers(const T *x, T *y, int64_t rows, int64_t cols, int width, bool log) {
  using Vec = Pack<T, P>;
  const RowGroups<kThreads> groups(width);
  const int64_t groups_per_warp = kWarpSize / width;
  const auto reduce_over_group = [width](auto value, auto op) { return warp_reduce(value, op, width); };
  for (int64_t first = groups.first_row * kRows; first < rows; first += groups.step * kRows) {
    const int64_t row = first + groups.group;
    int valid_rows = 0;
#pragma unroll
    for (int r = 0; r < kRows; ++r) valid_rows += row + r * groups_per_warp < rows;
    const int64_t offset = valid_rows > 0 ? row * cols : 0;
    softmax_rows_in_registers_of_group<kRows, kPacks>(reinterpret_cast<const Vec *>(x + offset),
                                                      reinterpret_cast<Vec *>(y + offset), groups_per_warp * cols / P,
                                                      valid_rows, cols / P, groups.lane, width, log,
                                                      reduce_over_group);
  }
}

}  // namespace oprt::gpu::softmax_detail

#endif  // OPS_SOFTMAX_NVIDIA_WARP_ROWS_CUH_
