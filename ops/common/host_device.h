// Lets one functor definition serve the CPU reference and the device kernels (nvcc / mxcc), and
// names the compute type of a storage type for both.
#ifndef OPS_COMMON_HOST_DEVICE_H_
#define OPS_COMMON_HOST_DEVICE_H_

#if defined(__CUDACC__) || defined(__MACACC__)
#define OPRT_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define OPRT_HOST_DEVICE inline
#endif

namespace oprt {

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
