// Loads that say how long their data should stay in the caches, for kernels that stream through an
// input once (reductions, softmax). Each is a small functor a kernel constructs once and calls per load,
// `const Load load{}; Vec v = load(address);`, so a kernel can take the policy as a template parameter:
//   PlainLoad       an ordinary load.
//   EvictFirstLoad  on NVIDIA sm_80 and newer, ld.global.L1::evict_first.L2::cache_hint with an L2
//                   evict-first access policy (createpolicy.fractional.L2::evict_first, fraction 1.0):
//                   what Triton emits for Inductor's eviction_policy='evict_first'. The loaded lines are
//                   the first the caches give up, so a stream read once does not push out other lines.
//                   Elsewhere (MetaX, the CPU SIMT emulator, older NVIDIA architectures) an ordinary load.
// Which is faster depends on the kernel and the input's size: see the op's tuning notes (reduce_sum:
// bench/notes/reduce-sum-tuning.md, "Evict-first loads").
// Like CUDA's __ldcs, the hinted load is an asm statement the compiler may move across stores and
// barriers: use it only for data that no thread writes while the kernel runs.
#ifndef OPS_COMMON_CUDA_DIALECT_CACHE_POLICY_CUH_
#define OPS_COMMON_CUDA_DIALECT_CACHE_POLICY_CUH_

#include <cstdint>
#include <cstring>

#include "ops/common/cuda_dialect/runtime_api.h"

namespace oprt::gpu {

struct PlainLoad {
  template <class V>
  __device__ __forceinline__ V operator()(const V *address) const {
    return *address;
  }
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(__MACACC__)
#define OPRT_L2_CACHE_HINTS 1
#endif

struct EvictFirstLoad {
  uint64_t policy = 0;  // the L2 access policy the hinted loads carry (NVIDIA)

  __device__ __forceinline__ EvictFirstLoad() {
#if defined(OPRT_L2_CACHE_HINTS)
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
#endif
  }

  // Loads a value of 2, 4, 8 or 16 bytes (an element or a 128-bit pack), aligned to its size.
  template <class V>
  __device__ __forceinline__ V operator()(const V *address) const {
    static_assert(sizeof(V) == 2 || sizeof(V) == 4 || sizeof(V) == 8 || sizeof(V) == 16,
                  "loads of 2, 4, 8 or 16 bytes");
#if defined(OPRT_L2_CACHE_HINTS)
    V value;
    if constexpr (sizeof(V) == 16) {
      uint32_t bits[4];
      asm("ld.global.L1::evict_first.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
          : "=r"(bits[0]), "=r"(bits[1]), "=r"(bits[2]), "=r"(bits[3])
          : "l"(address), "l"(policy));
      memcpy(&value, bits, sizeof(value));
    } else if constexpr (sizeof(V) == 8) {
      uint64_t bits;
      asm("ld.global.L1::evict_first.L2::cache_hint.b64 %0, [%1], %2;" : "=l"(bits) : "l"(address), "l"(policy));
      memcpy(&value, &bits, sizeof(value));
    } else if constexpr (sizeof(V) == 4) {
      uint32_t bits;
      asm("ld.global.L1::evict_first.L2::cache_hint.b32 %0, [%1], %2;" : "=r"(bits) : "l"(address), "l"(policy));
      memcpy(&value, &bits, sizeof(value));
    } else {
      uint16_t bits;
      asm("ld.global.L1::evict_first.L2::cache_hint.b16 %0, [%1], %2;" : "=h"(bits) : "l"(address), "l"(policy));
      memcpy(&value, &bits, sizeof(value));
    }
    return value;
#else
    return *address;
#endif
  }
};

#undef OPRT_L2_CACHE_HINTS

}  // namespace oprt::gpu

#endif  // OPS_COMMON_CUDA_DIALECT_CACHE_POLICY_CUH_
