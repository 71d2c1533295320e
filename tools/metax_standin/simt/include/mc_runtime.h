// The SIMT emulator's MACA runtime (test-only): MACA's names for the emulated device, 64-lane warps.
#ifndef OPRT_SIMT_MC_RUNTIME_H_
#define OPRT_SIMT_MC_RUNTIME_H_
#if !defined(__MACACC__)
#error "the emulator's MACA headers need __MACACC__ (64-lane warps)"
#endif
#include "oprt_simt.h"
#include "oprt_simt_runtime.h"

#define OPRT_SIMT_API(name) mc##name
#include "oprt_simt_api.inc"
#undef OPRT_SIMT_API

typedef oprt_simt::DeviceProperties mcDeviceProp_t;
enum mcDeviceAttribute_t {
  mcDeviceAttributeMultiProcessorCount,
  mcDeviceAttributeMaxSharedMemoryPerBlockOptin,
  mcDeviceAttributeMaxSharedMemoryPerBlock,
  mcDeviceAttributeWarpSize,
  mcDeviceAttributeMaxThreadsPerMultiProcessor,
};
inline mcError_t mcDeviceGetAttribute(int *value, mcDeviceAttribute_t attribute, int) {
  using A = oprt_simt::Attribute;
  static constexpr A kMap[] = {A::kSmCount, A::kMaxSharedOptin, A::kMaxShared, A::kWarpSize, A::kMaxThreadsPerSm};
  *value = oprt_simt::attribute(kMap[attribute]);
  return mcSuccess;
}
inline mcError_t mcGetDeviceProperties(mcDeviceProp_t *properties, int) {
  oprt_simt::properties(properties);
  return mcSuccess;
}
template <class T>
inline mcError_t mcFuncSetAttribute(T *function, mcFuncAttribute attribute, int value) {
  return mcFuncSetAttribute(reinterpret_cast<const void *>(function), attribute, value);
}
#endif  // OPRT_SIMT_MC_RUNTIME_H_
