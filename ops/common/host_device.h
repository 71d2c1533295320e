// Lets one functor definition serve the CPU reference and the device kernels (nvcc / mxcc), and
// names the compute type of a storage type for both.
#ifndef OPS_COMMON_HOST_DEVICE_H_
#define OPS_COMMON_HOST_DEVICE_H_

#if defined(__CUDACC__) || defined(__MACACC__)
#define OPRT_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define OPRT_HOST_DEVICE inline
#endif

#include <math.h>

namespace oprt {

// 1/x and 2^x in float where a few ulps are enough (relative error ~1e-7 for 1/x, 2^-22 for 2^x): on the
// device one approximate MUFU instruction each (denormal results flush to zero) instead of the correctly
// rounded sequences with their range checks; on the host the exact functions.
OPRT_HOST_DEVICE float fast_reciprocal(float x) {
#if defined(__CUDA_ARCH__) && !defined(__MACACC__)  // (a MACA unit may see __CUDA_ARCH__ before its runtime header)
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
#elif defined(__MACA_ARCH__)
  return __fdividef(1.0f, x);
#else
  return 1.0f / x;
#endif
}

OPRT_HOST_DEVICE float fast_exp2(float x) {
#if defined(__CUDA_ARCH__) && !defined(__MACACC__)
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
#else
  return exp2f(x);
#endif
}

// The type a storage type is computed in: itself, except that each backend maps its 16-bit float
// types to float (a specialization next to those types).
template <class T>
struct ComputeTypeOf {
  using type = T;
};
template <class T>
using ComputeType = typename ComputeTypeOf<T>::type;

}  // namespace oprt

#endif  // OPS_COMMON_HOST_DEVICE_H_
