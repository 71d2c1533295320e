// The NVIDIA backend's runtime: device memory, streams and device queries through the CUDA runtime
// (linked statically), registered at load time like the CPU backend. Streams are cudaStream_t;
// NULL is the default stream.
#include <cstdint>
#include <cstdio>

#include "ops/common/cuda_dialect/runtime_api.h"
#include "ops/runtime/backend.h"
#include "ops/runtime/status.h"

namespace oprt {
namespace {

using gpu::check;
using gpu::to_stream;

OPRT_GPU(MemcpyKind) memcpy_kind(oprt_memcpy_kind_t kind) {
  switch (kind) {
    case OPRT_MEMCPY_HOST_TO_HOST: return OPRT_GPU(MemcpyHostToHost);
    case OPRT_MEMCPY_HOST_TO_DEVICE: return OPRT_GPU(MemcpyHostToDevice);
    case OPRT_MEMCPY_DEVICE_TO_HOST: return OPRT_GPU(MemcpyDeviceToHost);
    case OPRT_MEMCPY_DEVICE_TO_DEVICE: return OPRT_GPU(MemcpyDeviceToDevice);
  }
  return OPRT_GPU(MemcpyDefault);  // unreachable: the entry point validates the kind
}

#if defined(__MACACC__)
// Not yet checked against the MACA SDK's memory-pool API: allocate up front, and free only after the
// stream's queued work is done. Correct, but it waits for the stream.
oprt_status_t malloc_async(void **ptr, size_t bytes, oprt_stream_t) {
  return check(OPRT_GPU(Malloc)(ptr, bytes), "allocating device memory");
}
oprt_status_t free_async(void *ptr, oprt_stream_t stream) {
  OPRT_RETURN_IF_ERROR(check(OPRT_GPU(StreamSynchronize)(to_stream(stream)), "waiting for a stream before a free"));
  return check(OPRT_GPU(Free)(ptr), "freeing device memory");
}
#else
// One memory pool per device for stream-ordered allocations (workspaces). Our own pool, not the
// device's default one, so keeping freed memory cached (release threshold: never) is our choice only.
cudaError_t create_pool(int device, cudaMemPool_t *pool) {
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaError_t error = cudaMemPoolCreate(pool, &props);
  if (error == cudaSuccess) {
    uint64_t keep_all = UINT64_MAX;
    error = cudaMemPoolSetAttribute(*pool, cudaMemPoolAttrReleaseThreshold, &keep_all);
  }
  return error;
}
oprt_status_t malloc_async(void **ptr, size_t bytes, oprt_stream_t stream) {
  cudaMemPool_t pool;
  OPRT_RETURN_IF_ERROR(
      (gpu::once_per_device<cudaMemPool_t, create_pool>(&pool, "creating the device's memory pool")));
  const oprt_status_t status =
      check(cudaMallocFromPoolAsync(ptr, bytes, pool, to_stream(stream)), "allocating stream-ordered device memory");
  if (status != OPRT_STATUS_SUCCESS) *ptr = nullptr;
  return status;
}
oprt_status_t free_async(void *ptr, oprt_stream_t stream) {
  return check(cudaFreeAsync(ptr, to_stream(stream)), "freeing stream-ordered device memory");
}
#endif

const BackendRuntime gpu_runtime = {
    /*device_present=*/
    []() {
      // Without a driver (or a GPU) this returns an error instead of crashing; either way, no device.
      int count = 0;
      if (OPRT_GPU(GetDeviceCount)(&count) == OPRT_GPU(Success)) return count > 0;
      OPRT_GPU(GetLastError)();  // leave no "last error" behind for later launch checks
      return false;
    },
    /*device_name=*/
    [](char *buffer, size_t bytes) {
      int device = 0;
      OPRT_RETURN_IF_ERROR(check(OPRT_GPU(GetDevice)(&device), "querying the current device"));
      gpu::DeviceProp properties;
      OPRT_RETURN_IF_ERROR(check(OPRT_GPU(GetDeviceProperties)(&properties, device), "querying device properties"));
      std::snprintf(buffer, bytes, "%s", properties.name);
      return OPRT_STATUS_SUCCESS;
    },
    /*malloc=*/
    [](void **ptr, size_t bytes) {
      const oprt_status_t status = check(OPRT_GPU(Malloc)(ptr, bytes), "allocating device memory");
      if (status != OPRT_STATUS_SUCCESS) *ptr = nullptr;
      return status;
    },
    /*free=*/[](void *ptr) { return check(OPRT_GPU(Free)(ptr), "freeing device memory"); },
    malloc_async,
    free_async,
    /*memcpy=*/
    [](void *dst, const void *src, size_t bytes, oprt_memcpy_kind_t kind, bool async, oprt_stream_t stream) {
      if (async) {
        return check(OPRT_GPU(MemcpyAsync)(dst, src, bytes, memcpy_kind(kind), to_stream(stream)), "async memcpy");
      }
      return check(OPRT_GPU(Memcpy)(dst, src, bytes, memcpy_kind(kind)), "memcpy");
    },
    /*memset=*/[](void *dst, int value, size_t bytes) { return check(OPRT_GPU(Memset)(dst, value, bytes), "memset"); },
    /*stream_create=*/
    [](oprt_stream_t *stream) {
      gpu::Stream created = nullptr;
      OPRT_RETURN_IF_ERROR(check(OPRT_GPU(StreamCreate)(&created), "creating a stream"));
      *stream = created;
      return OPRT_STATUS_SUCCESS;
    },
    /*stream_synchronize=*/
    [](oprt_stream_t stream) {
      return check(OPRT_GPU(StreamSynchronize)(to_stream(stream)), "synchronizing a stream");
    },
    /*stream_destroy=*/
    [](oprt_stream_t stream) { return check(OPRT_GPU(StreamDestroy)(to_stream(stream)), "destroying a stream"); },
    /*device_synchronize=*/
    []() { return check(OPRT_GPU(DeviceSynchronize)(), "synchronizing the device"); },
};

[[maybe_unused]] const bool registered = register_backend(gpu::kBackend, &gpu_runtime);

}  // namespace
}  // namespace oprt
