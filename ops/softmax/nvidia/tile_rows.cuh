// Softmax tier 1, f32 and half rows in whole 16-byte packs up to kRegisterCols: a block takes one tile
// of rows, a group of kLanes lanes per row, each lane kPacks packs of its row in registers (the warp
// tier's body, softmax_row_in_registers), and the grid covers the tiles exactly. The shape
// comes from the row length and the dtype (tile_shape in kernel.cuh; bench/notes/softmax-tuning.md,
// "Short rows"). Every part of it is a compile-time constant, log_softmax included, and the kernel has
// no loop: with those, its registers are as few as the shape allows (__launch_bounds__ caps them).
#ifndef OPS_SOFTMAX_NVIDIA_TILE_ROWS_CUH_
#define OPS_SOFTMAX_NVIDIA_TILE_ROWS_CUH_

#include <cstdint>

#include "ops/common/cuda_dialect/dtype.cuh"
#include "ops/common/cuda_dialect/reduce.cuh"
#include "tuning.cuh"
#include "warp_rows.cuh"

namespace oprt::gpu::softmax_detail {

// Block b takes tile b (blockIdx.x, then blockIdx.y past the grid's x limit): rows
// b * kGroups .. (b + 1) * kGroups - 1, row b * kGroups + g held by group g, so the block's loads read
// consecutive rows. Groups past the last row compute along, for the shuffles. kWhole: every tile is full
// and every row is kLanes * kPacks packs (the launcher checks), so no load or store is masked: the row
// count and length are then compile-time facts, and the masked packs' -inf moves and predicates go. A
// device function, so that bench/lab can time this very code. Load reads x: evict-first for small f32 inputs
// (launch_rows_in_tiles, kTileEvictFirstMaxBytes).
template <class T, int P, int kLanes, int kPacks, int kBlockThreads, bool kLog, bool kWhole = false,
          class Load = PlainLoad>
__device__ __forceinline__ void softmax_rows_of_tile(const T *x, T *y, int64_t rows, int64_t cols) {
  static_assert(kLanes <= kWarpSize && kBlockThreads % kWarpSize == 0, "a row's lanes lie in one warp");
  using Vec = Pack<T, P>;
  constexpr int kGroups = kBlockThreads / kLanes;
  const int64_t tile = static_cast<int64_t>(blockIdx.y) * gridDim.x + blockIdx.x;
  if (tile * kGroups >= rows) return;  // the last grid row's spare blocks
  const int64_t row = tile * kGroups + threadIdx.x / kLanes;
  const bool valid = kWhole || row < rows;
  const int64_t packs = kWhole ? kLanes * kPacks : cols / P;
  const int64_t offset = valid ? row * packs * P : 0;
  const auto reduce_over_group = [](auto value, auto op) { return warp_reduce(value, op, kLanes); };
  softmax_row_in_registers<kPacks, Load>(reinterpret_cast<const Vec *>(x + offset),
                                         reinterpret_cast<Vec *>(y + offset), packs, threadIdx.x % kLanes, kLanes,
                                         valid, kLog, reduce_over_group);
}

template <class T, int P, int kLanes, int kPacks, int kBlockThreads, int kMinBlocks, bool kLog, bool kWhole,
          class Load>
__global__ void __launch_bounds__(kBlockThreads, kMinBlocks)
    softmax_rows_in_tiles(const T *x, T *y, int64_t rows, int64_t cols) {
  softmax_rows_of_tile<T, P, kLanes, kPacks, kBlockThreads, kLog, kWhole, Load>(x, y, rows, cols);
}

}  // namespace oprt::gpu::softmax_detail

#endif  // OPS_SOFTMAX_NVIDIA_TILE_ROWS_CUH_
