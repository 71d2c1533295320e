// STAND-IN for the MACA SDK's <mc_runtime.h> (include/mcr/ in the SDK). Test-only: never shipped, never
// seen by a real --config=metax build (tools/metax_standin/make_sdk.sh puts it in a fake SDK tree that a
// CI step points MACA_PATH at).
//
// It lets nvcc, playing mxcc (tools/metax_standin/mxcc), compile the MetaX paths of the shared kernel
// sources: the mc* names ops/common/cuda_dialect/runtime_api.h uses are declared with MACA's spelling and
// mapped onto the CUDA runtime. A name is here only where MetaX's own code spells it that way (SDK
// samples such as helper_maca.h, MetaX's Triton backend driver, mcTLASS, the cu-bridge mapping), so a
// misspelled or CUDA-only name in a MACA branch fails this compile. What it models on the device side:
//   * 64-lane waves: __shfl_*_sync take a 64-bit lane mask (a 32-bit mask is a compile error, as in
//     HIP's wave64 headers), warpSize is 64;
//   * mxcc's macros: __MACACC__ and __MACA__ come from the stand-in mxcc's command line; in the device
//     pass __MACA_ARCH__ is defined (1000, as for xcore1000); __CUDACC__, __NVCC__ and __CUDA_ARCH__,
//     which real mxcc does not define, are undefined for everything after this header.
// What it cannot model: MACA's ISA, its compiler's diagnostics (mxcc is clang-based), register and
// shared-memory limits, and anything at run time. See docs/backends.md.
#ifndef OPRT_METAX_STANDIN_MC_RUNTIME_H_
#define OPRT_METAX_STANDIN_MC_RUNTIME_H_

#if !defined(__MACACC__) || !defined(__CUDACC__)
#error "the MACA stand-in runtime header is for nvcc playing mxcc (tools/metax_standin/mxcc) only"
#endif

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

// ---- Types and constants ----

typedef cudaError_t mcError_t;
constexpr mcError_t mcSuccess = cudaSuccess;
constexpr mcError_t mcErrorMemoryAllocation = cudaErrorMemoryAllocation;
constexpr mcError_t mcErrorInvalidValue = cudaErrorInvalidValue;
constexpr mcError_t mcErrorNoDevice = cudaErrorNoDevice;

typedef cudaStream_t mcStream_t;

// MACA names the struct with _t (mcDeviceProp_t); there is no mcDeviceProp.
typedef cudaDeviceProp mcDeviceProp_t;

typedef cudaMemcpyKind mcMemcpyKind;
constexpr mcMemcpyKind mcMemcpyHostToHost = cudaMemcpyHostToHost;
constexpr mcMemcpyKind mcMemcpyHostToDevice = cudaMemcpyHostToDevice;
constexpr mcMemcpyKind mcMemcpyDeviceToHost = cudaMemcpyDeviceToHost;
constexpr mcMemcpyKind mcMemcpyDeviceToDevice = cudaMemcpyDeviceToDevice;
constexpr mcMemcpyKind mcMemcpyDefault = cudaMemcpyDefault;

// MACA's attribute enum uses HIP-style names (mcDeviceAttribute*); a few CUDA-style mcDevAttr* aliases
// appear in MetaX's samples and are declared too. No mcDevAttr spelling of the opt-in shared memory
// limit is known, so there is none here.
enum mcDeviceAttribute_t {
  mcDeviceAttributeMaxThreadsPerBlock = cudaDevAttrMaxThreadsPerBlock,
  mcDeviceAttributeMaxSharedMemoryPerBlock = cudaDevAttrMaxSharedMemoryPerBlock,
  mcDeviceAttributeWarpSize = cudaDevAttrWarpSize,
  mcDeviceAttributeClockRate = cudaDevAttrClockRate,
  mcDeviceAttributeMultiProcessorCount = cudaDevAttrMultiProcessorCount,
  mcDeviceAttributeComputeMode = cudaDevAttrComputeMode,
  mcDeviceAttributeMaxThreadsPerMultiProcessor = cudaDevAttrMaxThreadsPerMultiProcessor,
  mcDeviceAttributeComputeCapabilityMajor = cudaDevAttrComputeCapabilityMajor,
  mcDeviceAttributeComputeCapabilityMinor = cudaDevAttrComputeCapabilityMinor,
  mcDeviceAttributeMaxSharedMemoryPerMultiprocessor = cudaDevAttrMaxSharedMemoryPerMultiprocessor,
  mcDeviceAttributeMaxSharedMemoryPerBlockOptin = cudaDevAttrMaxSharedMemoryPerBlockOptin,
  mcDevAttrMaxBlocksPerMultiprocessor = cudaDevAttrMaxBlocksPerMultiprocessor,
  // CUDA-style aliases used by MetaX's helper_maca.h
  mcDevAttrMultiProcessorCount = mcDeviceAttributeMultiProcessorCount,
  mcDevAttrClockRate = mcDeviceAttributeClockRate,
  mcDevAttrComputeMode = mcDeviceAttributeComputeMode,
  mcDevAttrComputeCapabilityMajor = mcDeviceAttributeComputeCapabilityMajor,
  mcDevAttrComputeCapabilityMinor = mcDeviceAttributeComputeCapabilityMinor,
};

typedef cudaFuncAttribute mcFuncAttribute;
constexpr mcFuncAttribute mcFuncAttributeMaxDynamicSharedMemorySize = cudaFuncAttributeMaxDynamicSharedMemorySize;
constexpr mcFuncAttribute mcFuncAttributePreferredSharedMemoryCarveout =
    cudaFuncAttributePreferredSharedMemoryCarveout;

// ---- Runtime API (the signatures mirror CUDA's, as MACA's do) ----

inline mcError_t mcGetLastError() { return cudaGetLastError(); }
inline mcError_t mcPeekAtLastError() { return cudaPeekAtLastError(); }
inline const char *mcGetErrorString(mcError_t error) { return cudaGetErrorString(error); }
inline const char *mcGetErrorName(mcError_t error) { return cudaGetErrorName(error); }

inline mcError_t mcGetDeviceCount(int *count) { return cudaGetDeviceCount(count); }
inline mcError_t mcGetDevice(int *device) { return cudaGetDevice(device); }
inline mcError_t mcSetDevice(int device) { return cudaSetDevice(device); }
inline mcError_t mcGetDeviceProperties(mcDeviceProp_t *properties, int device) {
  return cudaGetDeviceProperties(properties, device);
}
inline mcError_t mcDeviceGetAttribute(int *value, mcDeviceAttribute_t attribute, int device) {
  return cudaDeviceGetAttribute(value, static_cast<cudaDeviceAttr>(attribute), device);
}
inline mcError_t mcDeviceSynchronize() { return cudaDeviceSynchronize(); }

inline mcError_t mcMalloc(void **ptr, size_t bytes) { return cudaMalloc(ptr, bytes); }
inline mcError_t mcFree(void *ptr) { return cudaFree(ptr); }
inline mcError_t mcMallocAsync(void **ptr, size_t bytes, mcStream_t stream) {
  return cudaMallocAsync(ptr, bytes, stream);
}
inline mcError_t mcFreeAsync(void *ptr, mcStream_t stream) { return cudaFreeAsync(ptr, stream); }
inline mcError_t mcMemcpy(void *dst, const void *src, size_t bytes, mcMemcpyKind kind) {
  return cudaMemcpy(dst, src, bytes, kind);
}
inline mcError_t mcMemcpyAsync(void *dst, const void *src, size_t bytes, mcMemcpyKind kind, mcStream_t stream = 0) {
  return cudaMemcpyAsync(dst, src, bytes, kind, stream);
}
inline mcError_t mcMemset(void *dst, int value, size_t bytes) { return cudaMemset(dst, value, bytes); }
inline mcError_t mcMemsetAsync(void *dst, int value, size_t bytes, mcStream_t stream = 0) {
  return cudaMemsetAsync(dst, value, bytes, stream);
}

inline mcError_t mcStreamCreate(mcStream_t *stream) { return cudaStreamCreate(stream); }
inline mcError_t mcStreamSynchronize(mcStream_t stream) { return cudaStreamSynchronize(stream); }
inline mcError_t mcStreamDestroy(mcStream_t stream) { return cudaStreamDestroy(stream); }

inline mcError_t mcFuncSetAttribute(const void *function, mcFuncAttribute attribute, int value) {
  return cudaFuncSetAttribute(function, attribute, value);
}
template <class T>
inline mcError_t mcFuncSetAttribute(T *function, mcFuncAttribute attribute, int value) {
  return cudaFuncSetAttribute(reinterpret_cast<const void *>(function), attribute, value);
}
inline mcError_t mcOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *function, int block_size,
                                                            size_t dynamic_shared_bytes) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, function, block_size, dynamic_shared_bytes);
}
template <class T>
inline mcError_t mcOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, T *function, int block_size,
                                                            size_t dynamic_shared_bytes) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, reinterpret_cast<const void *>(function), block_size,
                                                       dynamic_shared_bytes);
}

// ---- Device side: 64-lane waves ----

namespace oprt_maca_standin {

template <class Mask>
__device__ __forceinline__ void check_lane_mask() {
  static_assert(std::is_integral<Mask>::value && sizeof(Mask) == 8,
                "MACA waves have 64 lanes: warp-synchronous intrinsics take a 64-bit lane mask");
}

// The shuffles below type-check a 64-lane call and forward to CUDA's 32-lane intrinsic so that nvcc
// has something to compile; under nvcc they do not behave as on MACA (a compile check only).
template <class Mask, class T>
__device__ __forceinline__ T shfl_xor_sync(Mask mask, T var, int lane_mask, int width = 64) {
  check_lane_mask<Mask>();
  return ::__shfl_xor_sync(static_cast<unsigned>(mask), var, lane_mask, width);
}
template <class Mask, class T>
__device__ __forceinline__ T shfl_sync(Mask mask, T var, int src_lane, int width = 64) {
  check_lane_mask<Mask>();
  return ::__shfl_sync(static_cast<unsigned>(mask), var, src_lane, width);
}
template <class Mask, class T>
__device__ __forceinline__ T shfl_down_sync(Mask mask, T var, unsigned delta, int width = 64) {
  check_lane_mask<Mask>();
  return ::__shfl_down_sync(static_cast<unsigned>(mask), var, delta, width);
}
template <class Mask, class T>
__device__ __forceinline__ T shfl_up_sync(Mask mask, T var, unsigned delta, int width = 64) {
  check_lane_mask<Mask>();
  return ::__shfl_up_sync(static_cast<unsigned>(mask), var, delta, width);
}
template <class Mask>
__device__ __forceinline__ uint64_t ballot_sync(Mask mask, int predicate) {
  check_lane_mask<Mask>();
  return ::__ballot_sync(static_cast<unsigned>(mask), predicate);
}

}  // namespace oprt_maca_standin

#define __shfl_xor_sync ::oprt_maca_standin::shfl_xor_sync
#define __shfl_sync ::oprt_maca_standin::shfl_sync
#define __shfl_down_sync ::oprt_maca_standin::shfl_down_sync
#define __shfl_up_sync ::oprt_maca_standin::shfl_up_sync
#define __ballot_sync ::oprt_maca_standin::ballot_sync
#define warpSize 64

// ---- mxcc's macro set for everything after this header ----
#if defined(__CUDA_ARCH__)
#define __MACA_ARCH__ 1000
#endif
#undef __CUDA_ARCH__
#undef __CUDACC__
#undef __NVCC__

#endif  // OPRT_METAX_STANDIN_MC_RUNTIME_H_
