// Lab: the elementwise framework's contiguous kernel (one 16-byte pack per thread, grid covering the range)
// with cache policies on the loads and stores, for copy and an f16 add. Kernels:
//   copy_l<L>_s<S>_p<P>: L load policy, S store policy, P packs per thread (adjacent blocks of the range).
//   add_f16_l<L>_s<S>:   y = a + b in f16 (computed in f32), one pack per thread.
// L: 0 plain, 1 ld.global.nc.L1::no_allocate, 2 L2 evict_first cache hint (Triton's), 3 ld.global.cs.
// S: 0 plain, 1 st.global.cs, 2 L2 evict_first cache hint.
#include <cuda_fp16.h>
#include <cstdint>

template <int L>
__device__ __forceinline__ uint4 load(const uint4 *p, uint64_t policy) {
  uint4 r;
  if constexpr (L == 0) {
    r = *p;
  } else if constexpr (L == 1) {
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
  } else if constexpr (L == 2) {
    asm volatile("ld.global.L1::evict_first.L2::cache_hint.v4.u32 {%0,%1,%2,%3}, [%4], %5;"
                 : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p), "l"(policy));
  } else {
    asm volatile("ld.global.cs.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
  }
  return r;
}

template <int S>
__device__ __forceinline__ void store(uint4 *p, uint4 v, uint64_t policy) {
  if constexpr (S == 0) {
    *p = v;
  } else if constexpr (S == 1) {
    asm volatile("st.global.cs.v4.u32 [%0], {%1,%2,%3,%4};" :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
  } else {
    asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1,%2,%3,%4}, %5;" :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w), "l"(policy) : "memory");
  }
}

__device__ __forceinline__ uint64_t evict_first_policy() {
  uint64_t policy;
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}

template <int L, int S, int P>
__device__ __forceinline__ void copy_body(const uint4 *x, uint4 *y, int64_t packs) {
  const uint64_t policy = (L == 2 || S == 2) ? evict_first_policy() : 0;
  const int64_t first = (static_cast<int64_t>(blockIdx.x) * 256 * P) + threadIdx.x;
  uint4 v[P];
#pragma unroll
  for (int k = 0; k < P; ++k) if (first + k * 256 < packs) v[k] = load<L>(x + first + k * 256, policy);
#pragma unroll
  for (int k = 0; k < P; ++k) if (first + k * 256 < packs) store<S>(y + first + k * 256, v[k], policy);
}

#define COPY(L, S, P) \
  extern "C" __global__ void __launch_bounds__(256) copy_l##L##_s##S##_p##P(const uint4 *x, uint4 *y, int64_t packs) { \
    copy_body<L, S, P>(x, y, packs); }
COPY(0, 0, 1) COPY(1, 0, 1) COPY(2, 0, 1) COPY(3, 0, 1)
COPY(0, 1, 1) COPY(2, 1, 1) COPY(1, 1, 1) COPY(2, 2, 1)
COPY(0, 0, 2) COPY(2, 1, 2) COPY(0, 0, 4) COPY(2, 1, 4)

template <int L, int S>
__device__ __forceinline__ void add_body(const uint4 *a, const uint4 *b, uint4 *y, int64_t packs) {
  const uint64_t policy = (L == 2 || S == 2) ? evict_first_policy() : 0;
  const int64_t i = static_cast<int64_t>(blockIdx.x) * 256 + threadIdx.x;
  if (i >= packs) return;
  uint4 va = load<L>(a + i, policy), vb = load<L>(b + i, policy), vy;
  const __half2 *ha = reinterpret_cast<const __half2 *>(&va), *hb = reinterpret_cast<const __half2 *>(&vb);
  __half2 *hy = reinterpret_cast<__half2 *>(&vy);
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const float2 fa = __half22float2(ha[k]), fb = __half22float2(hb[k]);
    hy[k] = __floats2half2_rn(fa.x + fb.x, fa.y + fb.y);
  }
  store<S>(y + i, vy, policy);
}

#define ADD(L, S) \
  extern "C" __global__ void __launch_bounds__(256) add_f16_l##L##_s##S(const uint4 *a, const uint4 *b, uint4 *y, int64_t packs) { \
    add_body<L, S>(a, b, y, packs); }
ADD(0, 0) ADD(2, 0) ADD(0, 1) ADD(2, 1) ADD(1, 1)
