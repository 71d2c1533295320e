// STAND-IN for the MACA SDK's <common/maca_bfloat16.h>. Test-only (see ../mcr/mc_runtime.h); also the
// SIMT emulator's (tools/metax_standin/simt), which compiles it as plain C++.
// MACA's bfloat16 is its own type, __maca_bfloat16 (also maca_bfloat16), with CUDA's function names
// (__bfloat162float, __float2bfloat16_rn, ...) and no implicit conversion from float. The stand-in is an
// opaque 16-bit struct: it is not __nv_bfloat16, so a MACA path that uses CUDA's bf16 type or its
// implicit conversions does not compile here. Conversions are bit arithmetic (round to nearest even).
#ifndef OPRT_METAX_STANDIN_MACA_BFLOAT16_H_
#define OPRT_METAX_STANDIN_MACA_BFLOAT16_H_

#if !defined(__MACACC__)
#error "the MACA stand-in headers are for nvcc playing mxcc (tools/metax_standin/mxcc) only"
#endif

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define OPRT_STANDIN_BF16_FN __host__ __device__ inline
#else
#define OPRT_STANDIN_BF16_FN inline
#endif

struct alignas(2) __maca_bfloat16 {
  uint16_t __x;  // deliberately odd name: code must not reach into the representation
};
typedef __maca_bfloat16 maca_bfloat16;

struct alignas(4) __maca_bfloat162 {
  __maca_bfloat16 x, y;
};
typedef __maca_bfloat162 maca_bfloat162;

OPRT_STANDIN_BF16_FN unsigned short __bfloat16_as_ushort(__maca_bfloat16 value) { return value.__x; }
OPRT_STANDIN_BF16_FN __maca_bfloat16 __ushort_as_bfloat16(unsigned short bits) {
  __maca_bfloat16 value;
  value.__x = bits;
  return value;
}

OPRT_STANDIN_BF16_FN float __bfloat162float(__maca_bfloat16 value) {
  const uint32_t bits = static_cast<uint32_t>(value.__x) << 16;
  float result;
  memcpy(&result, &bits, sizeof(result));
  return result;
}

OPRT_STANDIN_BF16_FN __maca_bfloat16 __float2bfloat16_rn(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7fffffffu) > 0x7f800000u) return __ushort_as_bfloat16(static_cast<unsigned short>((bits >> 16) | 0x40));
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return __ushort_as_bfloat16(static_cast<unsigned short>(bits >> 16));
}
OPRT_STANDIN_BF16_FN __maca_bfloat16 __float2bfloat16(float value) { return __float2bfloat16_rn(value); }

OPRT_STANDIN_BF16_FN __maca_bfloat162 __floats2bfloat162_rn(float low, float high) {
  return {__float2bfloat16_rn(low), __float2bfloat16_rn(high)};
}
OPRT_STANDIN_BF16_FN float __low2float(__maca_bfloat162 pair) { return __bfloat162float(pair.x); }
OPRT_STANDIN_BF16_FN float __high2float(__maca_bfloat162 pair) { return __bfloat162float(pair.y); }

#endif  // OPRT_METAX_STANDIN_MACA_BFLOAT16_H_
