// Lab reduce_rows16k: the library's own kernels on rows of 16 KB (f32 4096 x 4096, half 8192 x 8192), the rows
// torch.compile ties on the H200 (0.99-1.01x) against today's 512 x 2 slices at 4 blocks per SM
// (kRowAtOnceThreads x kRowAtOnceLoads; bench/notes/reduce-sum-tuning.md, "Rows of one slice, and of half a slice").
// The 8 KB rows gained 5% on both cards from a change of block shape and blocks per SM ("Rows of a quarter slice");
// this asks the same of 16 KB. Run by reduce_rows16k.py; every kernel is an instantiation of
// ops/reduce_sum/nvidia/kernel.cuh, no copy:
//   sum_rows_by_block<T, T, B, false, Load>       the block-per-row kernel, B threads a row
//   sum_slices<T, Load, B, L, M, T>               a row a slice of B threads x L 16-byte loads, all in flight at
//                                                 once, M resident blocks asked per SM (launch_rows_as_slices)
#include "ops/reduce_sum/nvidia/kernel.cuh"

namespace rs = oprt::gpu::reduce_sum_detail;
using oprt::gpu::EvictFirstLoad;

#define ROW_BLOCK(T, B) \
  template __global__ void rs::sum_rows_by_block<T, T, B, false, EvictFirstLoad>(const T *, T *, int64_t, int64_t, int64_t);
#define SLICE(T, B, N, M) \
  template __global__ void rs::sum_slices<T, EvictFirstLoad, B, N, M, T>(const T *, T *, int64_t);

// Rows of 1024 packs: B x N = 1024 (128 x 8 at 16 blocks per SM spills 112-236 bytes: left out).
#define ROWS_16K(T)                                                                                              \
  ROW_BLOCK(T, 128) ROW_BLOCK(T, 256) SLICE(T, 1024, 1, 2) SLICE(T, 1024, 1, 1) SLICE(T, 512, 2, 4) SLICE(T, 512, 2, 3) \
  SLICE(T, 512, 2, 2) SLICE(T, 256, 4, 8) SLICE(T, 256, 4, 4) SLICE(T, 128, 8, 8)
ROWS_16K(__half)
ROWS_16K(__nv_bfloat16)
ROWS_16K(float)
