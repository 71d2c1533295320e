// Lab reduce_slices: a block sums one slice of B * U * E values, every thread loading its U vectors of E values
// (vector u at thread + u * B, so each load of the block covers B * E contiguous values) before the first add, the
// slice's length a compile-time constant (no loop, no bounds test): the shape of torch.compile's row-sum kernel
// on 8192 x 8192 half (512 threads, 4 loads of 8 bytes, 21 registers; h200-session17/run2-*), which sums those rows
// 1-2% faster than the library's streamed kernel (256 threads, 4 loads of 16 bytes, 58 registers, a row loop).
// The same slices serve the row sums (Out = T, a row a slice) and the first pass of a whole sum (Out = float
// partials). Two block reductions: the library's block_reduce (every thread adds the warps' results) and Triton's
// (warp 0 adds them with shuffles; one thread keeps the sum).
#include "ops/reduce_sum/nvidia/kernel.cuh"

namespace rs = oprt::gpu::reduce_sum_detail;
using oprt::gpu::block_reduce;
using oprt::gpu::convert;
using oprt::gpu::EvictFirstLoad;
using oprt::gpu::SumOp;
using oprt::gpu::block_reduce_to_first;

// The library's kernels: the streamed rows (a row sum, or a whole sum's pieces) and the second pass of a whole sum.
#define WHOLE_SUM_KERNELS(T)                                                                                     \
  template __global__ void rs::sum_row_at_once<float, T, 1024, 1, oprt::gpu::PlainLoad>(const float *, T *, int); \
  template __global__ void rs::sum_row_at_once<float, T, 1024, 2, oprt::gpu::PlainLoad>(const float *, T *, int); \
  template __global__ void rs::sum_row_at_once<float, T, 1024, 4, oprt::gpu::PlainLoad>(const float *, T *, int); \
  template __global__ void rs::sum_rows_streamed_by_block<T, float, EvictFirstLoad>(const T *, float *, int64_t,  \
                                                                                    int64_t, int64_t);
#define HALF_ROWS(T)                                                                                             \
  template __global__ void rs::sum_rows_streamed_by_block<T, T, EvictFirstLoad>(const T *, T *, int64_t, int64_t, \
                                                                                int64_t);
WHOLE_SUM_KERNELS(__half)
WHOLE_SUM_KERNELS(__nv_bfloat16)
WHOLE_SUM_KERNELS(float)
HALF_ROWS(__half)
HALF_ROWS(__nv_bfloat16)

namespace lab17 {

// This thread's part of its block's slice (blockIdx.x): its U vectors of E values, all loaded before the first add.
template <int B, int U, int E, class T>
__device__ __forceinline__ float thread_slice_sum(const T *x) {
  using Vec = oprt::gpu::Pack<T, E>;
  const EvictFirstLoad load{};
  const Vec *slice = reinterpret_cast<const Vec *>(x) + static_cast<int64_t>(blockIdx.x) * (B * U);
  Vec v[U];
#pragma unroll
  for (int u = 0; u < U; ++u) v[u] = load(slice + threadIdx.x + u * B);
  float sum = 0.f;
#pragma unroll
  for (int u = 0; u < U; ++u) sum += rs::pack_sum<float>(v[u]);
  return sum;
}

template <int B, int U, int E, bool kWarp0, class T, class Out>
__device__ __forceinline__ void slice_sum(const T *x, Out *sums) {
  float sum = thread_slice_sum<B, U, E>(x);
  if constexpr (kWarp0) {
    sum = block_reduce_to_first<B>(sum, SumOp{}, 0.f);
  } else {
    sum = block_reduce<B>(sum, SumOp{});
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = convert<Out>(sum);
}

// One kernel for a whole sum: each block sums its slice into partials[blockIdx.x]; the block that takes the last
// ticket adds all partials (in a fixed order, so the result does not depend on which block came last), writes y
// and resets the ticket for the next call. What a block pays for it: a fence and an atomic before it exits.
template <int B, int U, int E, class T>
__device__ __forceinline__ void slice_sum_ticket(const T *x, float *partials, unsigned *ticket, T *y) {
  const float sum = block_reduce_to_first<B>(thread_slice_sum<B, U, E>(x), SumOp{}, 0.f);
  __shared__ bool last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = sum;
    __threadfence();
    last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  // Partials from other SMs: read through L2 (.cg), never a stale L1 line.
  const int parts = static_cast<int>(gridDim.x);
  float total = 0.f;
  for (int i = threadIdx.x * 4; i < parts; i += B * 4) {
    const float4 p = __ldcg(reinterpret_cast<const float4 *>(partials + i));
    total += (p.x + p.y) + (p.z + p.w);
  }
  total = block_reduce_to_first<B>(total, SumOp{}, 0.f);
  if (threadIdx.x == 0) {
    *y = convert<T>(total);
    *ticket = 0;
  }
}

// The second pass over exactly B * U * 4 float partials: every thread's U float4s loaded at once, warp 0 combining
// the warps, in blocks smaller than the library's 1024 threads (torch.compile's takes 128 threads for 512 partials).
template <int B, int U, class T>
__device__ __forceinline__ void partials_sum(const float *partials, T *y) {
  const float4 *packs = reinterpret_cast<const float4 *>(partials);
  float4 v[U];
#pragma unroll
  for (int u = 0; u < U; ++u) v[u] = packs[threadIdx.x + u * B];
  float sum = 0.f;
#pragma unroll
  for (int u = 0; u < U; ++u) sum += (v[u].x + v[u].y) + (v[u].z + v[u].w);
  sum = block_reduce_to_first<B>(sum, SumOp{}, 0.f);
  if (threadIdx.x == 0) *y = convert<T>(sum);
}

}  // namespace lab17

// slice_<B>_<U>_<E>_<r: block_reduce | w: warp 0>_<rows | part>_<dtype>
#define SLICE17(B, U, E, R, W0, DT, T)                                                                        \
  extern "C" __global__ void __launch_bounds__(B) slice_##B##_##U##_##E##_##R##_rows_##DT(const T *x, T *y) { \
    lab17::slice_sum<B, U, E, W0>(x, y);                                                                      \
  }                                                                                                           \
  extern "C" __global__ void __launch_bounds__(B) slice_##B##_##U##_##E##_##R##_part_##DT(const T *x, float *y) { \
    lab17::slice_sum<B, U, E, W0>(x, y);                                                                      \
  }
#define BOTH17(B, U, E, DT, T) SLICE17(B, U, E, r, false, DT, T) SLICE17(B, U, E, w, true, DT, T)

// Half types, 8192-value (16 KB) slices: torch.compile's 512 x 4 x 4, the library's 256 x 4 x 8, and others.
#define HALF17(DT, T)                                                                                          \
  BOTH17(512, 4, 4, DT, T) BOTH17(256, 4, 8, DT, T) BOTH17(512, 2, 8, DT, T) BOTH17(1024, 2, 4, DT, T)          \
  BOTH17(256, 8, 4, DT, T) BOTH17(128, 8, 8, DT, T) BOTH17(1024, 4, 2, DT, T)
HALF17(f16, __half)
HALF17(bf16, __nv_bfloat16)
// Larger half slices for the whole sums' first pass only (fewer partials for the second pass): 16384 values
// (4096 partials of 64M) and 32768 (2048 partials).
#define HALF17_WIDE(DT, T) BOTH17(512, 4, 8, DT, T) BOTH17(1024, 2, 8, DT, T) BOTH17(1024, 4, 8, DT, T)
HALF17_WIDE(f16, __half)
HALF17_WIDE(bf16, __nv_bfloat16)
// f32: 4096-value (16 KB) slices (torch.compile's 4096 x 4096 kernel is 512 x 2 x 4) and 8192-value (32 KB) ones
// (its 8192 x 8192 kernel: 512 x 4 x 4).
BOTH17(512, 2, 4, f32, float) BOTH17(256, 4, 4, f32, float) BOTH17(1024, 1, 4, f32, float)
BOTH17(512, 4, 2, f32, float) BOTH17(1024, 2, 2, f32, float) BOTH17(128, 8, 4, f32, float)
BOTH17(512, 4, 4, f32, float) BOTH17(1024, 2, 4, f32, float) BOTH17(256, 8, 4, f32, float)
BOTH17(1024, 4, 2, f32, float)
// Whole sums in one kernel (slice_sum_ticket): the library's slice and the wider ones.
#define TICKET17(B, U, E, DT, T)                                                                              \
  extern "C" __global__ void __launch_bounds__(B)                                                             \
      ticket_##B##_##U##_##E##_##DT(const T *x, float *partials, unsigned *ticket, T *y) {                    \
    lab17::slice_sum_ticket<B, U, E>(x, partials, ticket, y);                                                 \
  }
TICKET17(256, 4, 8, f16, __half) TICKET17(512, 4, 8, f16, __half) TICKET17(1024, 4, 8, f16, __half)
TICKET17(256, 4, 8, bf16, __nv_bfloat16) TICKET17(1024, 4, 8, bf16, __nv_bfloat16)
TICKET17(256, 4, 4, f32, float) TICKET17(1024, 4, 4, f32, float)
// Second passes: partials_<B>_<U>_<dtype> adds B * U * 4 partials (2048, 4096 or 8192).
#define PARTIALS17(B, U, DT, T)                                                                               \
  extern "C" __global__ void __launch_bounds__(B) partials_##B##_##U##_##DT(const float *partials, T *y) {     \
    lab17::partials_sum<B, U>(partials, y);                                                                   \
  }
#define PARTIALS17_ALL(DT, T)                                                                                 \
  PARTIALS17(128, 4, DT, T) PARTIALS17(256, 2, DT, T) PARTIALS17(128, 8, DT, T) PARTIALS17(256, 4, DT, T)     \
  PARTIALS17(512, 2, DT, T) PARTIALS17(256, 8, DT, T) PARTIALS17(512, 4, DT, T)
PARTIALS17_ALL(f16, __half)
PARTIALS17_ALL(bf16, __nv_bfloat16)
PARTIALS17_ALL(f32, float)
// f32 16384-value slices for the whole sums only (4096 partials of 64M).
BOTH17(1024, 4, 4, f32, float)
