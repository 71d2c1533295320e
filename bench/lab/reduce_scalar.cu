// Lab reduce_scalar: the sum of a whole tensor (64M and 256M elements) to one value. The library splits it
// into a wave of 256-thread blocks (sum_rows_by_block<T, float, 256, true>) whose partial sums a second
// kernel adds; here the same per-thread loop (the library's thread_partial_sum, with an int index) runs in
// other block sizes, unrolls, occupancies and layouts, and three ways to finish in one kernel:
//   pass_*   : partials[block] = the block's sum; fin_* (one block) adds them: two kernels, as the library.
//   coop_*   : the same pass, then a grid barrier (cooperative launch: every block resident) and block 0 adds
//              the partials in block order.
//   ticket_* : the same pass, then the last block to take a ticket (an atomic counter that it resets to 0
//              for the next launch) adds the partials in block order.
// Layouts: "il" interleaved (the grid's threads take the packs in turn, so the blocks sweep the tensor in
// address order together, as the library), "ch" chunked (each block a contiguous slice).
// bench/lab/reduce_scalar.py launches them and finds the library's own two kernels by mangled name.
// Session 16 (--session16, the end of this file): slices of other shapes (B threads of U packs each, loaded at
// once, no loop) for the first pass and for the row sums of 8192 x 8192 / 4096 x 4096, and a second pass that
// loads every partial at once.
#include <cooperative_groups.h>

#include "ops/reduce_sum/nvidia/kernel.cuh"

namespace rs = oprt::gpu::reduce_sum_detail;
using oprt::gpu::block_reduce;
using oprt::gpu::convert;
using oprt::gpu::EvictFirstLoad;
using oprt::gpu::PlainLoad;
using oprt::gpu::SumOp;

// The library's two kernels, as sum_rows launches them for one row.
#define LIBRARY_KERNELS(T)                                                                                     \
  template __global__ void rs::sum_rows_by_block<T, float, 256, true, EvictFirstLoad>(const T *, float *,     \
                                                                                      int64_t, int64_t, int64_t); \
  template __global__ void rs::sum_rows_by_group<float, T, 4, 1, int, 0, PlainLoad>(const float *, T *, int64_t, \
                                                                                    int64_t, int);
LIBRARY_KERNELS(__half)
LIBRARY_KERNELS(__nv_bfloat16)
LIBRARY_KERNELS(float)

// Session 14 (--session14): the library's whole-sum tier of session 10 (sum_whole_row_by_grid, a wave of 1024-thread
// blocks) against pieces of the streamed row kernel (sum_rows_streamed_by_block with float partials: the kernel that
// sums 8192 x 8192 at 98% of the copy peak), each then finished by the second pass the library launches for that
// many partials (sum_rows_by_group for a wave's, sum_rows_by_block of 64 to 256 threads for the pieces').
#define WHOLE_KERNELS(T)                                                                                        \
  template __global__ void rs::sum_whole_row_by_grid<T, EvictFirstLoad>(const T *, float *, int);              \
  template __global__ void rs::sum_rows_streamed_by_block<T, float, EvictFirstLoad>(const T *, float *, int64_t, \
                                                                                    int64_t, int64_t);         \
  template __global__ void rs::sum_rows_by_block<float, T, 64, false, PlainLoad>(const float *, T *, int64_t,  \
                                                                                 int64_t, int64_t);            \
  template __global__ void rs::sum_rows_by_block<float, T, 128, false, PlainLoad>(const float *, T *, int64_t, \
                                                                                  int64_t, int64_t);           \
  template __global__ void rs::sum_rows_by_block<float, T, 256, false, PlainLoad>(const float *, T *, int64_t, \
                                                                                  int64_t, int64_t);
WHOLE_KERNELS(__half)
WHOLE_KERNELS(__nv_bfloat16)
WHOLE_KERNELS(float)

namespace lab {

// This block's share of x[0, n): interleaved over the whole grid, or the block's contiguous slice of
// whole packs (the last block also takes the remainder).
template <int B, int U, bool kChunked, class T>
__device__ __forceinline__ float block_share(const T *x, int n) {
  const EvictFirstLoad load{};
  if constexpr (kChunked) {
    constexpr int P = oprt::gpu::kPackSize<T>;
    const int slice = n / P / static_cast<int>(gridDim.x) * P;
    const int begin = static_cast<int>(blockIdx.x) * slice;
    const int length = blockIdx.x + 1 == gridDim.x ? n - begin : slice;
    return rs::thread_partial_sum<U, float, int>(x + begin, length, static_cast<int>(threadIdx.x), B, load);
  } else {
    return rs::thread_partial_sum<U, float, int>(x, n, static_cast<int>(blockIdx.x * B + threadIdx.x),
                                                 static_cast<int>(gridDim.x) * B, load);
  }
}

// Block 0's (or the last block's) finish: partials[0, parts) added in block order by B threads.
template <int B, class T>
__device__ __forceinline__ void add_partials(const float *partials, int parts, T *y) {
  float sum = 0.f;
  for (int i = threadIdx.x; i < parts; i += B) sum += __ldcg(partials + i);
  sum = block_reduce<B>(sum, SumOp{});
  if (threadIdx.x == 0) *y = convert<T>(sum);
}

template <int B, int U, bool kChunked, class T>
__device__ __forceinline__ void pass(const T *x, float *partials, int n) {
  const float sum = block_reduce<B>(block_share<B, U, kChunked>(x, n), SumOp{});
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

template <int B, int U, bool kChunked, class T>
__device__ __forceinline__ void coop(const T *x, float *partials, T *y, int n) {
  pass<B, U, kChunked>(x, partials, n);
  cooperative_groups::this_grid().sync();
  if (blockIdx.x == 0) add_partials<B>(partials, static_cast<int>(gridDim.x), y);
}

template <int B, int U, bool kChunked, class T>
__device__ __forceinline__ void ticket(const T *x, float *partials, unsigned *counter, T *y, int n) {
  __shared__ bool last;
  const float sum = block_reduce<B>(block_share<B, U, kChunked>(x, n), SumOp{});
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = sum;
    __threadfence();
    last = atomicAdd(counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  add_partials<B>(partials, static_cast<int>(gridDim.x), y);
  if (threadIdx.x == 0) *counter = 0u;
}

}  // namespace lab

#define VARIANT(LAYOUT, CHUNKED, B, U, M, DT, T)                                                               \
  extern "C" __global__ void __launch_bounds__(B, M)                                                            \
      pass_##LAYOUT##_b##B##_u##U##_m##M##_##DT(const T *x, float *partials, int n) {                           \
    lab::pass<B, U, CHUNKED>(x, partials, n);                                                                   \
  }                                                                                                             \
  extern "C" __global__ void __launch_bounds__(B, M)                                                            \
      coop_##LAYOUT##_b##B##_u##U##_m##M##_##DT(const T *x, float *partials, T *y, int n) {                     \
    lab::coop<B, U, CHUNKED>(x, partials, y, n);                                                                \
  }                                                                                                             \
  extern "C" __global__ void __launch_bounds__(B, M)                                                            \
      ticket_##LAYOUT##_b##B##_u##U##_m##M##_##DT(const T *x, float *partials, unsigned *counter, T *y, int n) { \
    lab::ticket<B, U, CHUNKED>(x, partials, counter, y, n);                                                     \
  }

#define DTYPE(DT, T)                                                                             \
  VARIANT(il, false, 256, 8, 1, DT, T)                                                           \
  VARIANT(il, false, 256, 8, 3, DT, T)                                                           \
  VARIANT(il, false, 256, 4, 4, DT, T)                                                           \
  VARIANT(il, false, 256, 4, 8, DT, T)                                                           \
  VARIANT(il, false, 256, 16, 1, DT, T)                                                          \
  VARIANT(il, false, 512, 8, 1, DT, T)                                                           \
  VARIANT(il, false, 512, 4, 2, DT, T)                                                           \
  VARIANT(il, false, 1024, 4, 1, DT, T)                                                          \
  VARIANT(il, false, 1024, 8, 1, DT, T)                                                          \
  VARIANT(ch, true, 256, 8, 1, DT, T)                                                            \
  VARIANT(ch, true, 512, 4, 2, DT, T)                                                            \
  VARIANT(ch, true, 1024, 4, 1, DT, T)                                                           \
  extern "C" __global__ void __launch_bounds__(256) fin_##DT(const float *partials, T *y, int parts) { \
    lab::add_partials<256>(partials, parts, y);                                                  \
  }

DTYPE(f16, __half)
DTYPE(bf16, __nv_bfloat16)
DTYPE(f32, float)

// Session 16: a block of B threads sums one slice of B * U packs, every thread's U packs loaded before the first
// add (the library's streamed kernel: B = 256, U = kStreamUnroll = 4, two chunks in flight in a row loop).
// Out: float partials of a whole sum, or T for row sums whose rows are exactly a slice.
namespace lab16 {

template <int B, int U, class T, class Out>
__device__ __forceinline__ void slice_sum(const T *x, Out *sums, int total_packs) {
  using Vec = oprt::gpu::Pack<T, oprt::gpu::kPackSize<T>>;
  const EvictFirstLoad load{};
  const Vec *packs = reinterpret_cast<const Vec *>(x);
  const int first = static_cast<int>(blockIdx.x) * B * U + static_cast<int>(threadIdx.x);
  Vec v[U];
#pragma unroll
  for (int u = 0; u < U; ++u) v[u] = first + u * B < total_packs ? load(packs + first + u * B) : Vec{};
  float sum = 0.f;
#pragma unroll
  for (int u = 0; u < U; ++u) sum += rs::pack_sum<float>(v[u]);
  sum = block_reduce<B>(sum, SumOp{});
  if (threadIdx.x == 0) sums[blockIdx.x] = convert<Out>(sum);
}

// The second pass in one block: each thread loads its U float4s of the partials at once (parts % 4 == 0).
template <int B, int U, class T>
__device__ __forceinline__ void partials_at_once(const float *partials, T *y, int parts) {
  const float4 *quads = reinterpret_cast<const float4 *>(partials);
  float4 v[U];
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const int i = static_cast<int>(threadIdx.x) + u * B;
    v[u] = 4 * i < parts ? __ldcg(quads + i) : make_float4(0.f, 0.f, 0.f, 0.f);
  }
  float sum = 0.f;
#pragma unroll
  for (int u = 0; u < U; ++u) sum += (v[u].x + v[u].y) + (v[u].z + v[u].w);
  sum = block_reduce<B>(sum, SumOp{});
  if (threadIdx.x == 0) *y = convert<T>(sum);
}

}  // namespace lab16

#define SLICE16(B, U, DT, T)                                                                               \
  extern "C" __global__ void __launch_bounds__(B) s16_pass_b##B##_u##U##_##DT(const T *x, float *sums, int n) { \
    lab16::slice_sum<B, U>(x, sums, n);                                                                    \
  }                                                                                                        \
  extern "C" __global__ void __launch_bounds__(B) s16_rows_b##B##_u##U##_##DT(const T *x, T *sums, int n) {     \
    lab16::slice_sum<B, U>(x, sums, n);                                                                    \
  }
#define FIN16(B, U, DT, T)                                                                                  \
  extern "C" __global__ void __launch_bounds__(B) s16_fin_b##B##_u##U##_##DT(const float *p, T *y, int parts) { \
    lab16::partials_at_once<B, U>(p, y, parts);                                                             \
  }
#define DTYPE16(DT, T)                                                                           \
  SLICE16(64, 8, DT, T) SLICE16(128, 4, DT, T) SLICE16(128, 8, DT, T) SLICE16(256, 2, DT, T)       \
  SLICE16(256, 4, DT, T) SLICE16(256, 8, DT, T) SLICE16(512, 1, DT, T) SLICE16(512, 2, DT, T)     \
  SLICE16(512, 4, DT, T) SLICE16(1024, 1, DT, T) SLICE16(1024, 2, DT, T)                          \
  FIN16(1024, 1, DT, T) FIN16(1024, 2, DT, T) FIN16(1024, 4, DT, T) FIN16(512, 4, DT, T)         \
  FIN16(512, 8, DT, T) FIN16(256, 8, DT, T) FIN16(256, 16, DT, T)

// The library's block-per-row kernel at 512 and 1024 threads (the second pass takes at most kThreads = 256).
#define WIDE_SECOND_PASS(T)                                                                                      \
  template __global__ void rs::sum_rows_by_block<float, T, 512, false, PlainLoad>(const float *, T *, int64_t,  \
                                                                                  int64_t, int64_t);            \
  template __global__ void rs::sum_rows_by_block<float, T, 1024, false, PlainLoad>(const float *, T *, int64_t, \
                                                                                   int64_t, int64_t);
WIDE_SECOND_PASS(__half)
WIDE_SECOND_PASS(__nv_bfloat16)
WIDE_SECOND_PASS(float)

DTYPE16(f16, __half)
DTYPE16(bf16, __nv_bfloat16)
DTYPE16(f32, float)

// Session 16c: clusters of C blocks, block `rank` summing slice blockIdx.x as s16_pass does and sending its sum to
// block 0's mailbox, which writes the cluster's partial (the slices' sums added in rank order): C times fewer
// partials for the second pass.
namespace lab16 {

template <int B, int U, int C, class T>
__device__ __forceinline__ void cluster_slice_sum(const T *x, float *partials, int total_packs) {
  using Vec = oprt::gpu::Pack<T, oprt::gpu::kPackSize<T>>;
  __shared__ oprt::gpu::ClusterMailbox<float, C> mailbox;
  mailbox.open();
  const unsigned rank = oprt::gpu::cluster_block_rank();
  const EvictFirstLoad load{};
  const Vec *packs = reinterpret_cast<const Vec *>(x);
  const int first = static_cast<int>(blockIdx.x) * B * U + static_cast<int>(threadIdx.x);
  Vec v[U];
#pragma unroll
  for (int u = 0; u < U; ++u) v[u] = first + u * B < total_packs ? load(packs + first + u * B) : Vec{};
  float sum = 0.f;
#pragma unroll
  for (int u = 0; u < U; ++u) sum += rs::pack_sum<float>(v[u]);
  sum = block_reduce<B>(sum, SumOp{});
  oprt::gpu::cluster_wait();  // block 0's mailbox is open
  if (threadIdx.x == 0) mailbox.send(sum, static_cast<int>(rank), 0);
  if (rank == 0 && threadIdx.x == 0) {
    const float *parts = mailbox.receive();
    float total = parts[0];
#pragma unroll
    for (int b = 1; b < C; ++b) total += parts[b];
    partials[oprt::gpu::cluster_index()] = total;
  }
}

}  // namespace lab16

#define CLUSTER16(B, U, C, DT, T)                                                                          \
  extern "C" __global__ void __cluster_dims__(C, 1, 1) __launch_bounds__(B)                                \
      s16_cluster_b##B##_u##U##_c##C##_##DT(const T *x, float *partials, int n) {                          \
    lab16::cluster_slice_sum<B, U, C>(x, partials, n);                                                     \
  }
#define DTYPE16C(DT, T) CLUSTER16(256, 4, 2, DT, T) CLUSTER16(256, 4, 4, DT, T) CLUSTER16(256, 4, 8, DT, T) \
  CLUSTER16(1024, 2, 2, DT, T) CLUSTER16(1024, 2, 4, DT, T)
DTYPE16C(f16, __half)
DTYPE16C(bf16, __nv_bfloat16)
DTYPE16C(f32, float)
