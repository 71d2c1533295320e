// Lets one functor definition serve the CPU reference and the device kernels (nvcc / mxcc).
#ifndef OPS_COMMON_HOST_DEVICE_H_
#define OPS_COMMON_HOST_DEVICE_H_

#if defined(__CUDACC__) || defined(__MACACC__)
#define OPRT_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define OPRT_HOST_DEVICE inline
#endif

#endif  // OPS_COMMON_HOST_DEVICE_H_
