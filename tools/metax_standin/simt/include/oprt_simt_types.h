// Software 16-bit float types for the SIMT emulator (test-only): __half as on CUDA and MACA, with
// CUDA's conversion names; round to nearest even, subnormals, infinities and NaN as IEEE binary16.
#ifndef OPRT_SIMT_TYPES_H_
#define OPRT_SIMT_TYPES_H_

#include <cstdint>
#include <cstring>

#include "oprt_simt.h"

struct alignas(2) __half {
  uint16_t __x;  // opaque: code converts through the functions below
};
struct alignas(4) __half2 {
  __half x, y;
};

namespace oprt_simt {

inline float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {  // subnormal: normalise
    int e = -1;
    uint32_t m = mantissa;
    do {
      ++e;
      m <<= 1;
    } while ((m & 0x400u) == 0);
    bits = sign | static_cast<uint32_t>(112 - e) << 23 | ((m & 0x3ffu) << 13);
  }
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

inline uint16_t float_to_half_bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return sign | 0x7e00u;      // NaN
  if (magnitude >= 0x477ff000u) return sign | 0x7c00u;     // rounds to infinity (>= 65520)
  if (magnitude >= 0x38800000u) {                          // normal half
    const uint32_t rounded = magnitude + 0xfffu + ((magnitude >> 13) & 1u);
    return sign | static_cast<uint16_t>((rounded - 0x38000000u) >> 13);
  }
  if (magnitude < 0x33000001u) return sign;                // rounds to zero (<= 2^-25)
  // subnormal half: value = m * 2^-24
  const int exponent = static_cast<int>(magnitude >> 23);  // biased, 102..112
  const uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
  const int shift = 126 - exponent;                        // 14..24
  uint32_t half = mantissa >> shift;
  const uint32_t remainder = mantissa & ((1u << shift) - 1), halfway = 1u << (shift - 1);
  if (remainder > halfway || (remainder == halfway && (half & 1u))) ++half;
  return sign | static_cast<uint16_t>(half);
}

inline float bf16_bits_to_float(uint16_t h) {
  const uint32_t bits = static_cast<uint32_t>(h) << 16;
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

inline uint16_t float_to_bf16_bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

}  // namespace oprt_simt

inline float __half2float(__half h) { return oprt_simt::half_bits_to_float(h.__x); }
inline __half __float2half_rn(float f) { return __half{oprt_simt::float_to_half_bits(f)}; }
inline __half __float2half(float f) { return __float2half_rn(f); }
inline float2 __half22float2(__half2 h) { return {__half2float(h.x), __half2float(h.y)}; }
inline __half2 __floats2half2_rn(float a, float b) { return {__float2half_rn(a), __float2half_rn(b)}; }

#endif  // OPRT_SIMT_TYPES_H_
