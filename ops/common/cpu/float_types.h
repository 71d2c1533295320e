// Host-side f16/bf16 storage types with exact round-to-nearest-even conversions, and the dtype
// dispatch the CPU reference kernels use. Half types are computed in f32 (ComputeType).
#ifndef OPS_COMMON_CPU_FLOAT_TYPES_H_
#define OPS_COMMON_CPU_FLOAT_TYPES_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "operator_runtime/api.h"
#include "ops/common/host_device.h"

namespace oprt::cpu {

struct float16 {
  uint16_t bits;
};
struct bfloat16 {
  uint16_t bits;
};

inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline float to_float(float16 h) {
  const uint32_t sign = static_cast<uint32_t>(h.bits & 0x8000u) << 16;
  const uint32_t exponent = (h.bits >> 10) & 0x1fu;
  const uint32_t mantissa = h.bits & 0x3ffu;
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31) return bits_float(sign | 0x7f800000u | (mantissa << 13));  // inf / NaN
  return bits_float(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

inline float16 to_float16(float f) {
  uint32_t x = float_bits(f);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u) return {static_cast<uint16_t>(sign | 0x7c00u | (x > 0x7f800000u ? 0x200u : 0u))};
  if (x >= 0x477ff000u) return {static_cast<uint16_t>(sign | 0x7c00u)};  // >= 65520 rounds to inf
  if (x < 0x38800000u) {  // below the smallest normal: round |f| * 2^24 to an integer, ties to even
    return {static_cast<uint16_t>(sign | static_cast<uint16_t>(std::nearbyint(bits_float(x) * 16777216.0f)))};
  }
  x += 0xfffu + ((x >> 13) & 1u);  // round to nearest even at bit 13
  return {static_cast<uint16_t>(sign | ((x - 0x38000000u) >> 13))};
}

inline float to_float(bfloat16 b) { return bits_float(static_cast<uint32_t>(b.bits) << 16); }

inline bfloat16 to_bfloat16(float f) {
  const uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return {static_cast<uint16_t>((x >> 16) | 0x40u)};  // quiet NaN
  return {static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16)};
}

}  // namespace oprt::cpu

namespace oprt {
template <>
struct ComputeTypeOf<cpu::float16> {
  using type = float;
};
template <>
struct ComputeTypeOf<cpu::bfloat16> {
  using type = float;
};
}  // namespace oprt

namespace oprt::cpu {

inline float load(const float16 *p) { return to_float(*p); }
inline float load(const bfloat16 *p) { return to_float(*p); }
inline float load(const float *p) { return *p; }
inline double load(const double *p) { return *p; }
// Raw bits (copies): no conversion.
template <class Bits, class = std::enable_if_t<std::is_unsigned_v<Bits>>>
inline Bits load(const Bits *p) {
  return *p;
}
template <class Bits, class = std::enable_if_t<std::is_unsigned_v<Bits>>>
inline void store(Bits *p, Bits v) {
  *p = v;
}
// f64 -> f32 rounded to odd (truncate, then set the last bit if anything was dropped). Rounding that to
// f16/bf16 gives exactly the f64 value rounded to nearest even: f32 keeps more than 2p + 2 bits of
// those p-bit types, and the sticky bit stops a second rounding from landing on a false tie.
inline float to_float_round_to_odd(double d) {
  float f = static_cast<float>(d);
  if (static_cast<double>(f) == d || d != d) return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(d)) f = std::nextafter(f, 0.0f);
  return bits_float(float_bits(f) | 1u);
}
inline float half_source(float v) { return v; }
inline float half_source(double v) { return to_float_round_to_odd(v); }

template <class C>
inline void store(float16 *p, C v) { *p = to_float16(half_source(v)); }
template <class C>
inline void store(bfloat16 *p, C v) { *p = to_bfloat16(half_source(v)); }
template <class C>
inline void store(float *p, C v) { *p = static_cast<float>(v); }
template <class C>
inline void store(double *p, C v) { *p = static_cast<double>(v); }

// Calls f(T{}) with T the storage type of `dtype` (dtype is validated before any kernel runs).
template <class F>
void dispatch_dtype(oprt_dtype_t dtype, F &&f) {
  switch (dtype) {
    case OPRT_DTYPE_F32: f(float{}); return;
    case OPRT_DTYPE_F16: f(float16{}); return;
    case OPRT_DTYPE_BF16: f(bfloat16{}); return;
    case OPRT_DTYPE_F64: f(double{}); return;
  }
}

}  // namespace oprt::cpu

#endif  // OPS_COMMON_CPU_FLOAT_TYPES_H_
