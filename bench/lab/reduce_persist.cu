// Lab reduce_persist: the first pass of a 64M whole sum in one wave of long-lived blocks (a few per SM, every one
// resident from the start), each summing its own contiguous, equal share of the tensor in steps of B x D packs with
// two steps in flight (the next step's loads issued before the current step's adds), against the library's block
// per 32 KB slice (15.5 waves: its last wave half full). What it tests: whether the slices' tail and block turnover
// are what keep the 64M half sums at 90-91% of the copy peak while 256M sums reach 98%.
#include "ops/reduce_sum/nvidia/kernel.cuh"

namespace rs = oprt::gpu::reduce_sum_detail;
using oprt::gpu::block_reduce_to_first;
using oprt::gpu::convert;
using oprt::gpu::EvictFirstLoad;
using oprt::gpu::SumOp;

namespace persist {

template <int B, int D, class Vec, class Load>
__device__ __forceinline__ void load_step(const Load &load, const Vec *packs, int64_t step, Vec (&v)[D]) {
  const Vec *at = packs + step * (int64_t{B} * D) + threadIdx.x;
#pragma unroll
  for (int d = 0; d < D; ++d) v[d] = load(at + d * B);
}

template <int D, class Vec>
__device__ __forceinline__ float add_step(float sum, const Vec (&v)[D]) {
#pragma unroll
  for (int d = 0; d < D; ++d) sum += rs::pack_sum<float>(v[d]);
  return sum;
}

// partials[blockIdx.x] = the sum of this block's steps (a step: B x D packs) plus its turn of the packs past the
// last whole step. Its steps are [steps * b / G, steps * (b + 1) / G) (kInterleaved false: each block streams
// its own region) or b, b + G, b + 2G, ... (true: the grid reads one window of G steps at a time, as the slices
// do). Two register buffers alternate, so the adds of one step never wait on the loads of the next.
template <int B, int D, bool kInterleaved, class T>
__device__ __forceinline__ void first_pass(const T *x, float *partials, int64_t packs) {
  using Vec = oprt::gpu::Pack<T, 16 / sizeof(T)>;
  const EvictFirstLoad load{};
  const Vec *v = reinterpret_cast<const Vec *>(x);
  const int64_t steps = packs / (int64_t{B} * D), blocks = gridDim.x, b = blockIdx.x;
  // this block's steps are first + k * stride for k in [0, count)
  const int64_t first = kInterleaved ? b : steps * b / blocks, stride = kInterleaved ? blocks : 1;
  const int64_t count = kInterleaved ? (steps - b + blocks - 1) / blocks : steps * (b + 1) / blocks - first;
  float sum = 0.f;
  Vec even[D], odd[D];
  int64_t k = 0;
  if (k < count) {
    load_step<B, D>(load, v, first + stride * k++, even);
    for (; k + 1 < count; k += 2) {
      load_step<B, D>(load, v, first + stride * k, odd);
      sum = add_step<D>(sum, even);
      load_step<B, D>(load, v, first + stride * (k + 1), even);
      sum = add_step<D>(sum, odd);
    }
    if (k < count) {
      load_step<B, D>(load, v, first + stride * k, odd);
      sum = add_step<D>(sum, even);
      sum = add_step<D>(sum, odd);
    } else {
      sum = add_step<D>(sum, even);
    }
  }
  for (int64_t i = steps * (int64_t{B} * D) + b * B + threadIdx.x; i < packs; i += blocks * B)
    sum += rs::pack_sum<float>(load(v + i));
  sum = block_reduce_to_first<B>(sum, SumOp{}, 0.f);
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

// y[0] = the sum of `parts` (<= B * 8) float partials, each thread's up to 8 loaded before the first add.
template <int B, class T>
__device__ __forceinline__ void second_pass(const float *partials, T *y, int parts) {
  float v[8];
#pragma unroll
  for (int u = 0; u < 8; ++u) {
    const int i = threadIdx.x + u * B;
    v[u] = i < parts ? partials[i] : 0.f;
  }
  float sum = 0.f;
#pragma unroll
  for (int u = 0; u < 8; ++u) sum += v[u];
  sum = block_reduce_to_first<B>(sum, SumOp{}, 0.f);
  if (threadIdx.x == 0) *y = convert<T>(sum);
}

// Graded slices (section graded): the library's slices (1024 threads x 2 packs) for the first `big` blocks, then
// slices of kSmall packs (1024: a pack a thread; 512: half the threads load one) to the end. Blocks start about in
// index order, so the last to start are the small ones: a shorter tail for one wave more of partials.
template <int kSmall, class T>
__device__ __forceinline__ void graded_pass(const T *x, float *partials, int64_t big) {
  using Vec = oprt::gpu::Pack<T, 16 / sizeof(T)>;
  const EvictFirstLoad load{};
  const Vec *v = reinterpret_cast<const Vec *>(x);
  const int64_t b = blockIdx.x;
  float sum = 0.f;
  if (b < big) {
    const Vec *slice = v + b * 2048 + threadIdx.x;
    const Vec p0 = load(slice), p1 = load(slice + 1024);
    sum = rs::pack_sum<float>(p0) + rs::pack_sum<float>(p1);
  } else if (kSmall == 1024 || threadIdx.x < kSmall) {
    sum = rs::pack_sum<float>(load(v + big * 2048 + (b - big) * kSmall + threadIdx.x));
  }
  sum = block_reduce_to_first<1024>(sum, SumOp{}, 0.f);
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

}  // namespace persist

// first_<B>_<D>_<dtype> (own regions) and inter_<B>_<D>_<dtype> (interleaved steps): the first pass in blocks of B
// threads, D packs a thread per step (the grid is the caller's: SMs x blocks per SM). Blocks per SM that stay
// resident: 2048 / B at most (registers permitting).
#define FIRST(B, D, DT, T)                                                                                    \
  extern "C" __global__ void __launch_bounds__(B) first_##B##_##D##_##DT(const T *x, float *partials,         \
                                                                          int64_t packs) {                    \
    persist::first_pass<B, D, false>(x, partials, packs);                                                     \
  }                                                                                                           \
  extern "C" __global__ void __launch_bounds__(B) inter_##B##_##D##_##DT(const T *x, float *partials,         \
                                                                          int64_t packs) {                    \
    persist::first_pass<B, D, true>(x, partials, packs);                                                      \
  }
#define FIRSTS(DT, T) FIRST(1024, 2, DT, T) FIRST(1024, 4, DT, T) FIRST(512, 2, DT, T) FIRST(512, 4, DT, T) \
  FIRST(256, 4, DT, T) FIRST(256, 8, DT, T)
FIRSTS(f16, __half)
FIRSTS(bf16, __nv_bfloat16)
FIRSTS(f32, float)
#define SECOND(B, DT, T)                                                                                      \
  extern "C" __global__ void __launch_bounds__(B) second_##B##_##DT(const float *partials, T *y, int parts) {  \
    persist::second_pass<B>(partials, y, parts);                                                              \
  }
SECOND(128, f16, __half) SECOND(128, bf16, __nv_bfloat16) SECOND(128, f32, float)
// graded_<small packs>_<dtype>: graded_pass in 1024-thread blocks (the grid: big + the small slices).
#define GRADED(S, DT, T)                                                                                      \
  extern "C" __global__ void __launch_bounds__(1024) graded_##S##_##DT(const T *x, float *partials, int64_t big) { \
    persist::graded_pass<S>(x, partials, big);                                                                \
  }
GRADED(1024, f16, __half) GRADED(512, f16, __half) GRADED(1024, bf16, __nv_bfloat16) GRADED(512, bf16, __nv_bfloat16)
GRADED(1024, f32, float) GRADED(512, f32, float)
