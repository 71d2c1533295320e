// Device storage types of the oprt dtypes, their compute types and conversions, and the 128-bit
// packs the kernels load and store.
//   f32 -> float, f16 -> half, bf16 -> bfloat16: computed in float; f64 -> double: computed in double.
#ifndef OPS_COMMON_CUDA_DIALECT_DTYPE_CUH_
#define OPS_COMMON_CUDA_DIALECT_DTYPE_CUH_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "operator_runtime/api.h"
#include "ops/common/host_device.h"
#include "ops/common/cuda_dialect/runtime_api.h"
#include "ops/runtime/status.h"

namespace oprt::gpu {

template <class T>
struct TypeTag {
  using type = T;
};

// Returns f(TypeTag<T>{}) with T the device storage type of `dtype` (validated before any kernel).
template <class F>
oprt_status_t dispatch_dtype(oprt_dtype_t dtype, F &&f) {
  switch (dtype) {
    case OPRT_DTYPE_F32: return f(TypeTag<float>{});
    case OPRT_DTYPE_F16: return f(TypeTag<half>{});
    case OPRT_DTYPE_BF16: return f(TypeTag<bfloat16>{});
    case OPRT_DTYPE_F64: return f(TypeTag<double>{});
  }
  return fail(OPRT_STATUS_BAD_DTYPE, "dtype %d has no device type", dtype);
}

}  // namespace oprt::gpu

namespace oprt {
template <>
struct ComputeTypeOf<gpu::half> {
  using type = float;
};
template <>
struct ComputeTypeOf<gpu::bfloat16> {
  using type = float;
};
}  // namespace oprt

namespace oprt::gpu {

// Value conversion between storage and compute types; half types round to nearest even, like the
// CPU reference.
template <class To, class From>
__host__ __device__ __forceinline__ To convert(From value) {
  if constexpr (std::is_same_v<To, From>) {
    return value;
  } else if constexpr (std::is_same_v<From, half>) {
    return convert<To>(__half2float(value));
  } else if constexpr (std::is_same_v<From, bfloat16>) {
    return convert<To>(__bfloat162float(value));
  } else if constexpr (std::is_same_v<To, half>) {
    return __float2half_rn(static_cast<float>(value));
  } else if constexpr (std::is_same_v<To, bfloat16>) {
    return __float2bfloat16_rn(static_cast<float>(value));
  } else {
    return static_cast<To>(value);
  }
}

template <class C>
__host__ __device__ __forceinline__ constexpr C negative_infinity() {
  return -std::numeric_limits<C>::infinity();
}

// The widest load/store the memory system serves in one instruction.
constexpr int kVectorBytes = 16;
template <class T>
constexpr int kPackSize = kVectorBytes / static_cast<int>(sizeof(T));

// N values of T moved as one aligned load/store; N * sizeof(T) is at most kVectorBytes.
template <class T, int N>
struct alignas(sizeof(T) * N) Pack {
  T v[N];
};

inline bool is_aligned(const void *pointer, size_t bytes) { return reinterpret_cast<uintptr_t>(pointer) % bytes == 0; }

}  // namespace oprt::gpu

#endif  // OPS_COMMON_CUDA_DIALECT_DTYPE_CUH_
