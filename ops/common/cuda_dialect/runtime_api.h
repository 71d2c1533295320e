// Portability shim between the CUDA runtime (nvcc) and MetaX's MACA runtime (mxcc, __MACACC__).
// MACA mirrors the CUDA runtime API with an `mc` prefix, so every runtime call in the NVIDIA kernels
// and launch code is spelled OPRT_GPU(Name) (OPRT_GPU(Malloc) is cudaMalloc or mcMalloc) and the
// kernels only use the names below. The MetaX backend then compiles the same kernel.cuh files.
//
// Also here, because every launch needs them: turning a runtime error into an oprt status, and the
// per-device launch limits (SM count, opt-in shared memory) queried once and cached.
#ifndef OPS_COMMON_CUDA_DIALECT_RUNTIME_API_H_
#define OPS_COMMON_CUDA_DIALECT_RUNTIME_API_H_

#if defined(__MACACC__)
#include <common/maca_bfloat16.h>
#include <common/maca_fp16.h>
#include <mc_runtime.h>
#define OPRT_GPU(name) mc##name
#else
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#define OPRT_GPU(name) cuda##name
#endif

#include <cstdint>
#include <mutex>

#include "operator_runtime/api.h"
#include "ops/runtime/launch_log.h"
#include "ops/runtime/status.h"

namespace oprt::gpu {

using Error = OPRT_GPU(Error_t);
using Stream = OPRT_GPU(Stream_t);
using half = __half;
#if defined(__MACACC__)
using bfloat16 = __maca_bfloat16;
#else
using bfloat16 = __nv_bfloat16;
#endif

// Names that MACA does not spell as cuda -> mc: its device properties struct is mcDeviceProp_t, and its
// attribute enum (mcDeviceAttribute_t) uses HIP-style names, with no mcDevAttr* alias known for the
// opt-in shared memory limit (MetaX's own Triton backend queries these two attributes by these names).
#if defined(__MACACC__)
using DeviceProp = mcDeviceProp_t;
constexpr auto kAttrMultiProcessorCount = mcDeviceAttributeMultiProcessorCount;
constexpr auto kAttrMaxSharedMemoryPerBlockOptin = mcDeviceAttributeMaxSharedMemoryPerBlockOptin;
#else
using DeviceProp = cudaDeviceProp;
constexpr auto kAttrMultiProcessorCount = cudaDevAttrMultiProcessorCount;
constexpr auto kAttrMaxSharedMemoryPerBlockOptin = cudaDevAttrMaxSharedMemoryPerBlockOptin;
#endif

// MetaX GPUs execute 64-wide warps; every warp-level loop and shuffle uses this constant.
#if defined(__MACACC__)
constexpr int kWarpSize = 64;
using LaneMask = uint64_t;
#else
constexpr int kWarpSize = 32;
using LaneMask = uint32_t;
#endif
constexpr LaneMask kFullLaneMask = ~LaneMask(0);

// The backend these kernels register as: the same sources build the NVIDIA and the MetaX backend.
#if defined(__MACACC__)
constexpr oprt_backend_t kBackend = OPRT_BACKEND_METAX;
#else
constexpr oprt_backend_t kBackend = OPRT_BACKEND_NVIDIA;
#endif

inline Stream to_stream(oprt_stream_t stream) { return static_cast<Stream>(stream); }

// Maps a runtime error to OUT_OF_MEMORY or DEVICE_ERROR with the runtime's message; `what` names
// the failed step (a kernel's name, "allocating device memory", ...).
inline oprt_status_t check(Error error, const char *what) {
  if (error == OPRT_GPU(Success)) return OPRT_STATUS_SUCCESS;
  // The runtime also keeps the error as the thread's "last error"; clear it (unless it is sticky) so
  // that the launch check of a later, unrelated kernel does not report it again.
  OPRT_GPU(GetLastError)();
  const oprt_status_t status =
      error == OPRT_GPU(ErrorMemoryAllocation) ? OPRT_STATUS_OUT_OF_MEMORY : OPRT_STATUS_DEVICE_ERROR;
  return fail(status, "%s failed: %s (%s)", what, OPRT_GPU(GetErrorString)(error), OPRT_GPU(GetErrorName)(error));
}

// Called right after a kernel launch: logs it for oprt_last_launches() under the kernel's name in the
// source (so a learner can find it), and reports a bad configuration or an earlier asynchronous error.
inline oprt_status_t check_launch(const char *kernel, dim3 grid, dim3 block, size_t shared_bytes) {
  record_launch(kernel, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared_bytes);
  return check(OPRT_GPU(GetLastError)(), kernel);
}

// Launch limits of one device, queried on first use.
struct DeviceLimits {
  int sm_count;
  int max_shared_bytes_per_block;  // with the opt-in attribute (above the default 48 KiB)
};

// The current device's value of kQuery (an Error kQuery(int device, T *value)), queried once per device
// id and cached: a runtime query per launch would cost more than the small kernels it sizes.
template <class T, Error (*kQuery)(int, T *)>
oprt_status_t once_per_device(T *value, const char *what) {
  constexpr int kMaxDevices = 64;
  static T values[kMaxDevices];
  static std::once_flag once[kMaxDevices];
  static Error errors[kMaxDevices];
  int device = 0;
  OPRT_RETURN_IF_ERROR(check(OPRT_GPU(GetDevice)(&device), "querying the current device"));
  if (device < 0 || device >= kMaxDevices) {
    return fail(OPRT_STATUS_DEVICE_ERROR, "device id %d is beyond the %d devices this build supports", device,
                kMaxDevices);
  }
  std::call_once(once[device], [device] { errors[device] = kQuery(device, &values[device]); });
  OPRT_RETURN_IF_ERROR(check(errors[device], what));
  *value = values[device];
  return OPRT_STATUS_SUCCESS;
}

inline Error query_device_limits(int device, DeviceLimits *limits) {
  Error error = OPRT_GPU(DeviceGetAttribute)(&limits->sm_count, kAttrMultiProcessorCount, device);
  if (error == OPRT_GPU(Success)) {
    error = OPRT_GPU(DeviceGetAttribute)(&limits->max_shared_bytes_per_block, kAttrMaxSharedMemoryPerBlockOptin,
                                         device);
  }
  return error;
}

// Limits of the current device.
inline oprt_status_t device_limits(DeviceLimits *limits) {
  return once_per_device<DeviceLimits, query_device_limits>(limits,
                                                            "querying the device's SM count and shared memory");
}

// Blocks of `kKernel`, launched with kThreads threads and no dynamic shared memory, that the current
// device runs at once: one full wave, the grid of a grid-stride kernel. The per-SM count depends only
// on the kernel's resources, so it is queried once per kernel.
template <auto kKernel, int kThreads>
oprt_status_t full_wave_blocks(int64_t *blocks) {
  static int per_sm = 0;
  static Error error = OPRT_GPU(Success);
  static std::once_flag once;
  std::call_once(once, [] { error = OPRT_GPU(OccupancyMaxActiveBlocksPerMultiprocessor)(&per_sm, kKernel, kThreads, 0); });
  OPRT_RETURN_IF_ERROR(check(error, "querying kernel occupancy"));
  DeviceLimits limits = {};
  OPRT_RETURN_IF_ERROR(device_limits(&limits));
  *blocks = static_cast<int64_t>(limits.sm_count) * (per_sm > 0 ? per_sm : 1);
  return OPRT_STATUS_SUCCESS;
}

}  // namespace oprt::gpu

#endif  // OPS_COMMON_CUDA_DIALECT_RUNTIME_API_H_
