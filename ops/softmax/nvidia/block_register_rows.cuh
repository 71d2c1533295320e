// Softmax tier 2, rows of kBlockRegisterMinCols columns up to kBlockRegisterMaxBytes (f32 and half
// types; past kBlockRegisterFewRowsBytes only rows of kBlockRegisterLongMinCols columns or more, where
// the rows fill the SMs): a block per row, the row still in registers, kBlockRowValues values per thread
// (bench/notes/softmax-tuning.md, "Rows in a block's registers"). On NVIDIA, rows of kAsyncCopyMinBytes and
// more that fill the SMs go to block_shared_rows.cuh instead, copied into shared memory by cp.async.
#ifndef OPS_SOFTMAX_NVIDIA_BLOCK_REGISTER_ROWS_CUH_
#define OPS_SOFTMAX_NVIDIA_BLOCK_REGISTER_ROWS_CUH_

#include <cstdint>

#include "ops/common/cuda_dialect/dtype.cuh"
#include "ops/common/cuda_dialect/reduce.cuh"
#include "tuning.cuh"
#include "warp_rows.cuh"

namespace oprt::gpu::softmax_detail {

// Packs per thread: kBlockRowValues values in packs of P.
template <int P>
constexpr int kBlockRowPacks = kBlockRowValues / P;

// Blocks per SM the kernel is compiled for: all of the SM's thread slots (32 registers a thread on
// Hopper), so that as many rows as fit are in flight.
template <int kBlockThreads>
constexpr int kBlockRegisterMinBlocks = kMaxThreadsPerSM / kBlockThreads;

// A block per row, thread t holding packs t, t + kBlockThreads, ... of it; blocks loop over rows past the grid.
// log_softmax is a compile-time choice (kLog), as in the tile tier: each kernel holds only its own math.
template <class T, int P, int kBlockThreads, bool kLog>
__global__ void __launch_bounds__(kBlockThreads, kBlockRegisterMinBlocks<kBlockThreads>)
    softmax_rows_in_block_registers(const T *x, T *y, int64_t rows, int64_t cols) {
  using Vec = Pack<T, P>;
  const auto reduce_over_block = [](auto value, auto op) { return block_reduce<kBlockThreads>(value, op); };
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    softmax_row_in_registers<kBlockRowPacks<P>>(reinterpret_cast<const Vec *>(x + row * cols),
                                                reinterpret_cast<Vec *>(y + row * cols), cols / P, threadIdx.x,
                                                kBlockThreads, true, kLog, reduce_over_block);
  }
}

}  // namespace oprt::gpu::softmax_detail

#endif  // OPS_SOFTMAX_NVIDIA_BLOCK_REGISTER_ROWS_CUH_
