// The SIMT emulator's CUDA runtime (test-only): CUDA's names for the emulated device, 32-lane warps.
#ifndef OPRT_SIMT_CUDA_RUNTIME_H_
#define OPRT_SIMT_CUDA_RUNTIME_H_
#if defined(__MACACC__)
#error "the emulator's CUDA headers are for 32-lane warps (no __MACACC__)"
#endif
#include "oprt_simt.h"
#include "oprt_simt_runtime.h"

#define OPRT_SIMT_API(name) cuda##name
#include "oprt_simt_api.inc"
#undef OPRT_SIMT_API

typedef oprt_simt::DeviceProperties cudaDeviceProp;
enum cudaDeviceAttr {
  cudaDevAttrMultiProcessorCount,
  cudaDevAttrMaxSharedMemoryPerBlockOptin,
  cudaDevAttrMaxSharedMemoryPerBlock,
  cudaDevAttrWarpSize,
  cudaDevAttrMaxThreadsPerMultiProcessor,
};
inline cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attribute, int) {
  using A = oprt_simt::Attribute;
  static constexpr A kMap[] = {A::kSmCount, A::kMaxSharedOptin, A::kMaxShared, A::kWarpSize, A::kMaxThreadsPerSm};
  *value = oprt_simt::attribute(kMap[attribute]);
  return cudaSuccess;
}
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *properties, int) {
  oprt_simt::properties(properties);
  return cudaSuccess;
}
template <class T>
inline cudaError_t cudaFuncSetAttribute(T *function, cudaFuncAttribute attribute, int value) {
  return cudaFuncSetAttribute(reinterpret_cast<const void *>(function), attribute, value);
}
#endif  // OPRT_SIMT_CUDA_RUNTIME_H_
