// Softmax tier 4, rows too few to fill the SMs (1 x 1048576; 16 x 262144 in f32): each row is cut into parts,
// a block per part holding it in registers, and every block of the grid is resident at once (a
// cooperative launch, which the dispatcher sizes from the occupancy API). Each block writes its part's
// max and sum of exponentials to the workspace; after a grid-wide sync it combines its row's parts and
// writes its part of y. So x is read once and y written once, in one kernel. NVIDIA only (MACA keeps
// the split tier); any architecture with cooperative launch.
// RegisterPart, a block's part of a row in registers, also serves the cluster tier.
#ifndef OPS_SOFTMAX_NVIDIA_GRID_ROWS_CUH_
#define OPS_SOFTMAX_NVIDIA_GRID_ROWS_CUH_

#include <algorithm>
#include <cstdint>

#include "ops/common/cuda_dialect/dtype.cuh"
#include "ops/common/cuda_dialect/reduce.cuh"
#include "row_math.cuh"
#include "tuning.cuh"

#if !defined(__MACACC__)
#include <cooperative_groups.h>
#endif

namespace oprt::gpu::softmax_detail {

// Packs of P values per thread in the grid and cluster tiers: kPartValues values in f32 (4 bytes each),
// half as many in f64 (the same registers).
template <class T, int P>
constexpr int kPartPacks = kPartValues * 4 / static_cast<int>(sizeof(ComputeType<T>)) / P;

// Values in the part of a row that a block of kBlockThreads holds (the same for every P).
template <class T, int kBlockThreads>
constexpr int64_t kPartLength = static_cast<int64_t>(kBlockThreads) * kPartPacks<T, 1>;

// A block's part of a row in registers: thread t holds packs t, t + kBlockThreads, ... (kPacks of
// them) of the part's `packs` (at most kBlockThreads * kPacks, so 32-bit indices), exponentiated once
// (row_math.cuh, exponentiate). Positions past the part's end hold -inf, which adds exp(-inf) = 0 to
// the sum, and are not stored. kBase2: stats in base 2 (row_math.cuh, kBase2Stats); Combine merges them.
template <int kBlockThreads, int kPacks, class T, int P, bool kBase2 = false>
struct RegisterPart {
  using C = ComputeType<T>;
  using Combine = CombineStats<C, kBase2>;
  C values[kPacks][P];
  RowStats<C> stats;  // of this thread's values

  static __device__ __forceinline__ int index(int j) { return j * kBlockThreads + static_cast<int>(threadIdx.x); }

  // Loads the part from `in`, every load issued before any math, and exponentiates it (log_softmax
  // keeps x). Every pack is loaded, those past the part's end from `row` (the row's first pack, which
  // exists) and then set to -inf: predicated loads made the compiler interleave some types' unpacking with
  // the loads, so that a load waited for an earlier one to land before it was issued (lab softmax_long,
  // session 6), and a second, unmasked path for whole parts in the same kernel cost the registers of both
  // (session 8). kWhole: the caller knows the part is whole (packs == kBlockThreads * kPacks), a kernel of
  // its own with no masks at all.
  template <bool kWhole = false>
  __device__ __forceinline__ void load(const Pack<T, P> *in, const Pack<T, P> *row, int packs, bool log) {
    Pack<T, P> loaded[kPacks];
#pragma unroll
    for (int j = 0; j < kPacks; ++j) loaded[j] = load_pack_once(kWhole || index(j) < packs ? in + index(j) : row);
#pragma unroll
    for (int j = 0; j < kPacks; ++j) {
      unpack(loaded[j], values[j]);
      if (!kWhole && index(j) >= packs) {
#pragma unroll
        for (int k = 0; k < P; ++k) values[j][k] = negative_infinity<C>();
      }
    }
    stats = exponentiate<kBase2>(values, log);
  }

  // Writes the part's y to `out` once the row's stats are known.
  template <bool kWhole = false>
  __device__ __forceinline__ void store(Pack<T, P> *out, int packs, const RowStats<C> &row, bool log) {
    const PartNormalizer<C, kBase2> normalize(stats, row, log);
#pragma unroll
    for (int j = 0; j < kPacks; ++j) {
#pragma unroll
      for (int k = 0; k < P; ++k) values[j][k] = normalize(values[j][k]);
    }
#pragma unroll
    for (int j = 0; j < kPacks; ++j) {
      if (kWhole || index(j) < packs) store_pack_once(out + index(j), pack<T>(values[j]));
    }
  }
};

#if !defined(__MACACC__)
// Block b holds part b % parts of row b / parts (parts of kPartLength values, the last one shorter);
// part_stats (the workspace) takes one RowStats per block. Launched cooperatively, rows * parts blocks.
// kLog: log_softmax, a template parameter so that each value's normalization is one instruction, not both
// forms and a select.
template <class T, int P, bool kLog = false>
__global__ void __launch_bounds__(kGridThreads, kGridMinBlocks)
    softmax_rows_across_grid(const T *x, T *y, RowStats<ComputeType<T>> *part_stats, int64_t cols, int64_t parts) {
  using C = ComputeType<T>;
  using Vec = Pack<T, P>;
  constexpr int64_t kLength = kPartLength<T, kGridThreads>;
  const int64_t row = blockIdx.x / parts, begin = blockIdx.x % parts * kLength;
  const int packs = static_cast<int>(std::min(kLength, cols - begin) / P);
  using Part = RegisterPart<kGridThreads, kPartPacks<T, P>, T, P, kBase2Stats<T, kLog>>;
  Part part;
  part.load(reinterpret_cast<const Vec *>(x + row * cols + begin), reinterpret_cast<const Vec *>(x + row * cols), packs,
            kLog);
  const typename Part::Combine combine;
  const RowStats<C> block_stats = block_reduce<kGridThreads>(part.stats, combine);
  if (threadIdx.x == 0) part_stats[blockIdx.x] = block_stats;
  cooperative_groups::this_grid().sync();  // every part's stats are written
  // Every warp combines the row's parts the same way: lane l folds parts l, l + warp, ... in order, then
  // a butterfly.
  RowStats<C> total = empty_stats<C>();
  for (int64_t p = threadIdx.x % kWarpSize; p < parts; p += kWarpSize) {
    total = combine(total, part_stats[row * parts + p]);
  }
  part.store(reinterpret_cast<Vec *>(y + row * cols + begin), packs, warp_reduce(total, combine), kLog);
}
#endif

}  // namespace oprt::gpu::softmax_detail

#endif  // OPS_SOFTMAX_NVIDIA_GRID_ROWS_CUH_
