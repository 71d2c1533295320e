// Lab elementwise_inflight: loads in flight and block sizes for the elementwise framework's contiguous kernel.
// gelu (the exact form, the library's GeluFunctor) over 256M values is compute-bound in half types (the library's
// one-pack-per-thread kernel at 89% of the copy peak) and 1% behind torch.compile in f32: a thread of the library's
// kernel loads one 16-byte pack, then computes its 4-8 values with no load of its own in flight. Its candidates keep
// loads in flight during the math:
//   the library's contiguous_kernel for gelu, instantiated here (runs 1 and 3: 256 threads, one pack a thread, the
//   kernel before this lab; since: the shape this lab chose, elementwise.cuh's ContiguousShape)
//   once_<B>_<K>_<t>:      B threads, K packs a thread (pack k at thread + k * B of the block's K * B), all K
//                          loads issued before the first gelu (pipe with K ahead)
//   pipe_<B>_<K>_<D>_<t>:  the same chunk, D loads ahead of the math (pack k + D is loaded before pack k's gelu)
//   grid_<B>_<D>_<t>:      a persistent grid (one wave, launched by the script), each thread striding by the grid
//                          with D packs loaded ahead
// No __restrict__: the stores to y keep the loads of x in program order, so "pipe" is what runs.
// The bandwidth-bound rows we tie at the copy peak (vector_add, relu, copy) against torch eager's and Triton's
// pointwise kernels, which run 128-thread blocks of 16 bytes a thread (input) where the library runs 256:
//   one_<op>_<B>_<t>:      the library's kernel body (one pack a thread, the grid covering the range) in B threads
#include "ops/common/cuda_dialect/elementwise.cuh"
#include "ops/elementwise/relu/relu.h"
#include "ops/gelu/gelu.h"
#include "ops/vector_add/vector_add.h"

namespace ew = oprt::gpu::elementwise_detail;
using Gelu = oprt::GeluFunctor<false>;

template __global__ void ew::contiguous_kernel<__half, Gelu, 8>(int64_t, Gelu, __half *, const __half *, const __half *);
template __global__ void ew::contiguous_kernel<__nv_bfloat16, Gelu, 8>(int64_t, Gelu, __nv_bfloat16 *,
                                                                       const __nv_bfloat16 *, const __nv_bfloat16 *);
template __global__ void ew::contiguous_kernel<float, Gelu, 4>(int64_t, Gelu, float *, const float *, const float *);

namespace labgelu {

template <class T>
using Vec = oprt::gpu::Pack<T, oprt::gpu::kPackSize<T>>;

template <class T>
__device__ __forceinline__ Vec<T> gelu_pack(const Vec<T> &v) {
  Vec<T> r;
#pragma unroll
  for (int j = 0; j < oprt::gpu::kPackSize<T>; ++j) r.v[j] = ew::apply(Gelu{}, v.v[j], v.v[j]);
  return r;
}

// The library's contiguous_kernel body with B threads instead of elementwise_detail::kThreads.
template <class T, class Functor, int B>
__device__ __forceinline__ void one_pack(int64_t n, const Functor &functor, T *out, const T *a, const T *b) {
  constexpr int P = oprt::gpu::kPackSize<T>;
  using V = oprt::gpu::Pack<T, P>;
  constexpr bool kBinary = Functor::kArity == 2;
  const int64_t packs = n / P;
#pragma unroll 1
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * B + threadIdx.x; i < packs;
       i += static_cast<int64_t>(gridDim.x) * B) {
    const V va = reinterpret_cast<const V *>(a)[i];
    V vb = va;
    if constexpr (kBinary) vb = reinterpret_cast<const V *>(b)[i];
    V result;
#pragma unroll
    for (int j = 0; j < P; ++j) result.v[j] = ew::apply(functor, va.v[j], vb.v[j]);
    reinterpret_cast<V *>(out)[i] = result;
  }
}

// K packs a thread of any functor, all loads issued before the first result (n a multiple of K * B packs' values).
template <class T, class Functor, int B, int K>
__device__ __forceinline__ void packs_at_once(int64_t n, const Functor &functor, T *out, const T *a, const T *b) {
  constexpr int P = oprt::gpu::kPackSize<T>;
  using V = oprt::gpu::Pack<T, P>;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * B * K + threadIdx.x;
  V va[K], vb[K];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    va[k] = reinterpret_cast<const V *>(a)[first + k * B];
    vb[k] = Functor::kArity == 2 ? reinterpret_cast<const V *>(b)[first + k * B] : va[k];
  }
#pragma unroll
  for (int k = 0; k < K; ++k) {
    V result;
#pragma unroll
    for (int j = 0; j < P; ++j) result.v[j] = ew::apply(functor, va[k].v[j], vb[k].v[j]);
    reinterpret_cast<V *>(out)[first + k * B] = result;
  }
}

template <class T, int B, int K, int D>
__device__ __forceinline__ void pipelined(int64_t packs, T *y, const T *x) {
  const Vec<T> *xv = reinterpret_cast<const Vec<T> *>(x);
  Vec<T> *yv = reinterpret_cast<Vec<T> *>(y);
  const int64_t first = static_cast<int64_t>(blockIdx.x) * B * K + threadIdx.x;
  Vec<T> v[K];
#pragma unroll
  for (int k = 0; k < D; ++k)
    if (first + k * B < packs) v[k] = xv[first + k * B];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    if (k + D < K && first + (k + D) * B < packs) v[k + D] = xv[first + (k + D) * B];
    if (first + k * B < packs) yv[first + k * B] = gelu_pack<T>(v[k]);
  }
}

template <class T, int B, int D>
__device__ __forceinline__ void grid_strided(int64_t packs, T *y, const T *x) {
  const Vec<T> *xv = reinterpret_cast<const Vec<T> *>(x);
  Vec<T> *yv = reinterpret_cast<Vec<T> *>(y);
  const int64_t stride = static_cast<int64_t>(gridDim.x) * B;
  int64_t i = static_cast<int64_t>(blockIdx.x) * B + threadIdx.x;
  Vec<T> ring[D];
#pragma unroll
  for (int d = 0; d < D; ++d)
    if (i + d * stride < packs) ring[d] = xv[i + d * stride];
#pragma unroll 1
  for (; i < packs; i += D * stride) {
#pragma unroll
    for (int d = 0; d < D; ++d) {
      const int64_t at = i + d * stride;
      const Vec<T> current = ring[d];
      if (at + D * stride < packs) ring[d] = xv[at + D * stride];
      if (at < packs) yv[at] = gelu_pack<T>(current);
    }
  }
}

}  // namespace labgelu

#define ONCE(T, t, B, K)                                                                               \
  extern "C" __global__ void __launch_bounds__(B) once_##B##_##K##_##t(int64_t packs, T *y, const T *x) { \
    labgelu::pipelined<T, B, K, K>(packs, y, x);  /* every load ahead */                                                            \
  }
#define PIPE(T, t, B, K, D)                                                                                      \
  extern "C" __global__ void __launch_bounds__(B) pipe_##B##_##K##_##D##_##t(int64_t packs, T *y, const T *x) { \
    labgelu::pipelined<T, B, K, D>(packs, y, x);                                                                 \
  }
#define GRID(T, t, B, D)                                                                               \
  extern "C" __global__ void __launch_bounds__(B) grid_##B##_##D##_##t(int64_t packs, T *y, const T *x) { \
    labgelu::grid_strided<T, B, D>(packs, y, x);                                                       \
  }
#define VARIANTS(T, t)                                                                           \
  ONCE(T, t, 256, 2) ONCE(T, t, 256, 4) PIPE(T, t, 256, 4, 1) PIPE(T, t, 256, 8, 1) \
  PIPE(T, t, 256, 8, 2) PIPE(T, t, 128, 8, 2) GRID(T, t, 256, 1) GRID(T, t, 256, 2) GRID(T, t, 512, 1)
VARIANTS(__half, f16)
VARIANTS(__nv_bfloat16, bf16)
VARIANTS(float, f32)

// n is a multiple of the pack in every call the script makes, so no tail loop.
#define ONE(op, Functor, T, t, B)                                                                                   \
  extern "C" __global__ void __launch_bounds__(B) one_##op##_##B##_##t(int64_t n, T *y, const T *a, const T *b) { \
    labgelu::one_pack<T, Functor, B>(n, Functor{}, y, a, b);                                                     \
  }
#define ONE_BOTH(op, Functor, T, t) ONE(op, Functor, T, t, 128) ONE(op, Functor, T, t, 256)
ONE_BOTH(gelu, Gelu, __half, f16) ONE_BOTH(gelu, Gelu, __nv_bfloat16, bf16) ONE_BOTH(gelu, Gelu, float, f32)
ONE_BOTH(add, oprt::AddFunctor, __half, f16) ONE_BOTH(add, oprt::AddFunctor, __nv_bfloat16, bf16)
ONE_BOTH(add, oprt::AddFunctor, float, f32)
ONE_BOTH(relu, oprt::LeakyReluFunctor, __half, f16) ONE_BOTH(relu, oprt::LeakyReluFunctor, __nv_bfloat16, bf16)
ONE_BOTH(relu, oprt::LeakyReluFunctor, float, f32)
ONE_BOTH(copy, oprt::CopyFunctor, uint16_t, u16) ONE_BOTH(copy, oprt::CopyFunctor, uint32_t, u32)

// Session 19's second round: K packs a thread at once for every op (one_<op>_<B>_<t> is K = 1).
#define KAT(op, Functor, T, t, B, K)                                                                        \
  extern "C" __global__ void __launch_bounds__(B) k_##op##_##B##_##K##_##t(int64_t n, T *y, const T *a,      \
                                                                            const T *b) {                    \
    labgelu::packs_at_once<T, Functor, B, K>(n, Functor{}, y, a, b);                                         \
  }
#define KAT_HALF(op, Functor)                                                                                  \
  KAT(op, Functor, __half, f16, 128, 2) KAT(op, Functor, __half, f16, 256, 2) KAT(op, Functor, __half, f16, 128, 4) \
  KAT(op, Functor, __nv_bfloat16, bf16, 128, 2) KAT(op, Functor, __nv_bfloat16, bf16, 256, 2)                     \
  KAT(op, Functor, __nv_bfloat16, bf16, 128, 4)
KAT_HALF(gelu, Gelu) KAT_HALF(add, oprt::AddFunctor) KAT_HALF(relu, oprt::LeakyReluFunctor)
KAT(copy, oprt::CopyFunctor, uint16_t, u16, 128, 2) KAT(copy, oprt::CopyFunctor, uint16_t, u16, 256, 2)
KAT(gelu, Gelu, float, f32, 64, 1) KAT(gelu, Gelu, float, f32, 128, 1) KAT(gelu, Gelu, float, f32, 128, 2)
KAT(add, oprt::AddFunctor, float, f32, 128, 1) KAT(add, oprt::AddFunctor, float, f32, 64, 1)
KAT(add, oprt::AddFunctor, float, f32, 128, 2) KAT(copy, oprt::CopyFunctor, uint32_t, u32, 128, 2)
KAT(relu, oprt::LeakyReluFunctor, float, f32, 128, 1) KAT(relu, oprt::LeakyReluFunctor, float, f32, 128, 2)

// Session 20 (--index32): torch eager's index arithmetic for the rows it leads by 0.2-0.3% (the half adds): a
// 32-bit index and no loop, the grid covering every pack (torch's vectorized_elementwise_kernel takes an int n).
namespace labgelu {
template <class T, class Functor, int B>
__device__ __forceinline__ void one_pack_index32(unsigned packs, const Functor &functor, T *out, const T *a,
                                                 const T *b) {
  constexpr int P = oprt::gpu::kPackSize<T>;
  using V = oprt::gpu::Pack<T, P>;
  const unsigned i = blockIdx.x * B + threadIdx.x;
  if (i >= packs) return;
  const V va = reinterpret_cast<const V *>(a)[i];
  V vb = va;
  if constexpr (Functor::kArity == 2) vb = reinterpret_cast<const V *>(b)[i];
  V result;
#pragma unroll
  for (int j = 0; j < P; ++j) result.v[j] = ew::apply(functor, va.v[j], vb.v[j]);
  reinterpret_cast<V *>(out)[i] = result;
}
}  // namespace labgelu

#define I32(op, Functor, T, t, B)                                                                              \
  extern "C" __global__ void __launch_bounds__(B) i32_##op##_##B##_##t(unsigned packs, T *y, const T *a,       \
                                                                         const T *b) {                         \
    labgelu::one_pack_index32<T, Functor, B>(packs, Functor{}, y, a, b);                                       \
  }
#define I32_BOTH(op, Functor, T, t) I32(op, Functor, T, t, 128) I32(op, Functor, T, t, 256)
I32_BOTH(add, oprt::AddFunctor, __half, f16) I32_BOTH(add, oprt::AddFunctor, __nv_bfloat16, bf16)
I32_BOTH(relu, oprt::LeakyReluFunctor, __nv_bfloat16, bf16) I32_BOTH(copy, oprt::CopyFunctor, uint16_t, u16)
