// The NVIDIA backend's runtime: device memory, streams and device queries through the CUDA runtime
// (linked statically), registered at load time like the CPU backend. Streams are cudaStream_t;
// NULL is the default stream.
#include <cstdio>

#include "ops/common/nvidia/runtime_api.h"
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
      OPRT_GPU(DeviceProp) properties;
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
