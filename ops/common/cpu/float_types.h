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

// The conversions are branch-free (selects only) so that loops over blocks of them vectorize; each gives
// the same bits as the obvious branchy form.
inline float to_float(float16 h) {
  const uint32_t sign = static_cast<uint32_t>(h.bits & 0x8000u) << 16;
  const uint32_t magnitude = static_cast<uint32_t>(h.bits & 0x7fffu) << 13;  // exponent and mantissa at f32's place
  const uint32_t exponent = magnitude & 0x0f800000u;
  const uint32_t normal = magnitude + 0x38000000u;  // rebias the exponent: + (127 - 15) << 23
  const uint32_t inf_nan = magnitude | 0x7f800000u;
  // zero or subnormal, mantissa * 2^-24: as 2^-14 * (1 + mantissa / 2^10) - 2^-14, exact in f32
  const uint32_t subnormal = float_bits(bits_float(magnitude + 0x38800000u) - bits_float(0x38800000u));
  const uint32_t bits = exponent == 0x0f800000u ? inf_nan : exponent == 0 ? subnormal : normal;
  return bits_float(sign | bits);
}

inline float16 to_float16(float f) {
  const uint32_t x = float_bits(f) & 0x7fffffffu;
  const uint32_t sign = (float_bits(f) >> 16) & 0x8000u;
  const uint32_t normal = (x + 0xfffu + ((x >> 13) & 1u) - 0x38000000u) >> 13;  // round to nearest even at bit 13
  // below the smallest normal: |f| + 0.5 rounds |f| to a multiple of 2^-24 (0.5's ulp), ties to even
  const uint32_t subnormal = float_bits(bits_float(x) + 0.5f) - 0x3f000000u;
  uint32_t h = x < 0x38800000u ? subnormal : normal;
  h = x >= 0x477ff000u ? 0x7c00u : h;  // >= 65520 rounds to inf
  h = x > 0x7f800000u ? 0x7e00u : h;   // NaN: quiet, no payload
  return {static_cast<uint16_t>(sign | h)};
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
  const float nearest = static_cast<float>(d);
  const double back = static_cast<double>(nearest);
  // One step toward zero where rounding went away from it (|f| is monotonic in f's bits without the sign).
  const uint32_t truncated = float_bits(nearest) - (std::fabs(back) > std::fabs(d) ? 1u : 0u);
  return bits_float(truncated | (back != d && d == d ? 1u : 0u));
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
