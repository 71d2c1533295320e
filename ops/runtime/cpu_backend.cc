// The CPU backend's runtime: host memory, synchronous "streams". Always linked in.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "ops/runtime/backend.h"
#include "ops/runtime/status.h"

namespace oprt {
namespace {

// Any non-null token works as a CPU stream handle: work on the CPU backend is synchronous.
char cpu_stream_token;

oprt_status_t host_malloc(void **ptr, size_t bytes) {
  // 64-byte alignment so any vector width is aligned, as device allocators guarantee; aligned_alloc
  // wants a multiple of it, and rounding SIZE_MAX up would wrap to a tiny block.
  constexpr size_t kAlign = 64;
  *ptr = bytes <= SIZE_MAX - (kAlign - 1) ? std::aligned_alloc(kAlign, (bytes + kAlign - 1) / kAlign * kAlign) : nullptr;
  return *ptr ? OPRT_STATUS_SUCCESS : fail(OPRT_STATUS_OUT_OF_MEMORY, "cannot allocate %zu host bytes", bytes);
}

oprt_status_t host_free(void *ptr) {
  std::free(ptr);
  return OPRT_STATUS_SUCCESS;
}

const BackendRuntime cpu_runtime = {
    /*device_present=*/[]() { return true; },
    /*device_name=*/
    [](char *buffer, size_t bytes) {
      std::snprintf(buffer, bytes, "%s", "host CPU (reference backend)");
      return OPRT_STATUS_SUCCESS;
    },
    host_malloc,
    host_free,
    // CPU work is synchronous: nothing queued can still be using memory, whatever the stream.
    /*malloc_async=*/[](void **ptr, size_t bytes, oprt_stream_t) { return host_malloc(ptr, bytes); },
    /*free_async=*/[](void *ptr, oprt_stream_t) { return host_free(ptr); },
    /*memcpy=*/
    [](void *dst, const void *src, size_t bytes, oprt_memcpy_kind_t, bool, oprt_stream_t) {
      std::memmove(dst, src, bytes);
      return OPRT_STATUS_SUCCESS;
    },
    /*memset=*/
    [](void *dst, int value, size_t bytes) {
      std::memset(dst, value, bytes);
      return OPRT_STATUS_SUCCESS;
    },
    /*stream_create=*/
    [](oprt_stream_t *stream) {
      *stream = &cpu_stream_token;
      return OPRT_STATUS_SUCCESS;
    },
    /*stream_synchronize=*/[](oprt_stream_t) { return OPRT_STATUS_SUCCESS; },
    /*stream_destroy=*/[](oprt_stream_t) { return OPRT_STATUS_SUCCESS; },
    /*device_synchronize=*/[]() { return OPRT_STATUS_SUCCESS; },
};

[[maybe_unused]] const bool registered = register_backend(OPRT_BACKEND_CPU, &cpu_runtime);

}  // namespace
}  // namespace oprt
