// The SIMT emulator's <cuda_bf16.h> (test-only): software __nv_bfloat16 with CUDA's conversion names.
#ifndef OPRT_SIMT_CUDA_BF16_H_
#define OPRT_SIMT_CUDA_BF16_H_
#include "oprt_simt_types.h"

struct alignas(2) __nv_bfloat16 {
  uint16_t __x;
};
struct alignas(4) __nv_bfloat162 {
  __nv_bfloat16 x, y;
};
inline float __bfloat162float(__nv_bfloat16 b) { return oprt_simt::bf16_bits_to_float(b.__x); }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16{oprt_simt::float_to_bf16_bits(f)}; }
inline __nv_bfloat16 __float2bfloat16(float f) { return __float2bfloat16_rn(f); }
inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return {__float2bfloat16_rn(a), __float2bfloat16_rn(b)}; }
#endif  // OPRT_SIMT_CUDA_BF16_H_
