// Lab flush_state: kernels that leave lines of a given L2 priority behind, run right before run_ops's L2 flush
// (bench/lab/flush_state.py). Each thread reads 16-byte packs of x with an L2 access policy and folds them into one
// word, stored only if it equals a value no input makes (so the loads are not dead code and nothing is written).
//   read_evict_last:   createpolicy.fractional.L2::evict_last (what Triton emits for eviction_policy='evict_last',
//                      which Inductor puts on loads its looped reductions read again)
//   read_evict_normal: a plain load (the control: the flush should replace these lines)
#include <cstdint>

template <bool kEvictLast>
__device__ __forceinline__ void read_all(const uint4 *x, uint32_t *sink, int64_t packs) {
  uint64_t policy = 0;
  if constexpr (kEvictLast) asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  uint32_t folded = 0;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < packs; i += int64_t{gridDim.x} * blockDim.x) {
    uint4 v;
    if constexpr (kEvictLast) {
      asm volatile("ld.global.L2::cache_hint.v4.u32 {%0,%1,%2,%3}, [%4], %5;"
                   : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(x + i), "l"(policy));
    } else {
      v = x[i];
    }
    folded ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (folded == 0x9e3779b9u && threadIdx.x == 1023) *sink = folded;  // threads have ids < 1024: never taken
}

extern "C" __global__ void read_evict_last(const uint4 *x, uint32_t *sink, int64_t packs) { read_all<true>(x, sink, packs); }
extern "C" __global__ void read_evict_normal(const uint4 *x, uint32_t *sink, int64_t packs) { read_all<false>(x, sink, packs); }
