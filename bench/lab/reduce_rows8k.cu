// Lab reduce_rows8k: the library's own kernels on rows of 8 KB (half 4096 x 4096, f32 4096 x 2048), the rows an
// H100 has us 4-5% behind torch.compile where the H200 has us 8-10% ahead (bench/notes/reduce-sum-tuning.md,
// "Session 29: the H100"). Run by reduce_rows8k.py; every kernel here is an instantiation of
// ops/reduce_sum/nvidia/kernel.cuh, no copy:
//   sum_rows_by_block<T, T, B, false, Load>       the block-per-row kernel (today's path: B = 64, evict-first)
//   sum_slices<T, Load, B, L, M, T>               a row a slice of B threads x L 16-byte loads, all in flight at
//                                                 once, M resident blocks asked per SM (launch_rows_as_slices)
#include "ops/reduce_sum/nvidia/kernel.cuh"

namespace rs = oprt::gpu::reduce_sum_detail;
using oprt::gpu::EvictFirstLoad;
using oprt::gpu::PlainLoad;

#define ROW_BLOCK(T, B, L) \
  template __global__ void rs::sum_rows_by_block<T, T, B, false, L>(const T *, T *, int64_t, int64_t, int64_t);
#define SLICE(T, B, N, M, L) template __global__ void rs::sum_slices<T, L, B, N, M, T>(const T *, T *, int64_t);

// Half rows of 4096 (512 packs): B x N = 512.
#define HALF_8K(T, L)                                                                                          \
  ROW_BLOCK(T, 64, L) ROW_BLOCK(T, 128, L) SLICE(T, 512, 1, 4, L) SLICE(T, 256, 2, 8, L) SLICE(T, 256, 2, 4, L) \
  SLICE(T, 128, 4, 16, L) SLICE(T, 128, 4, 8, L) SLICE(T, 64, 8, 16, L) SLICE(T, 64, 8, 8, L)
HALF_8K(__half, EvictFirstLoad)
HALF_8K(__half, PlainLoad)
HALF_8K(__nv_bfloat16, EvictFirstLoad)
HALF_8K(__nv_bfloat16, PlainLoad)
// f32 rows of 2048 (512 packs): the same shapes.
HALF_8K(float, EvictFirstLoad)
HALF_8K(float, PlainLoad)
