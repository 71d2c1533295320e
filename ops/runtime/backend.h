// Backend registry. A backend registers its runtime (memory, streams, device query) from its own
// translation unit at load time, so the CPU backend is always present and GPU backends are present
// exactly when their objects are linked in (--config=nvidia / --config=metax).
#ifndef OPS_RUNTIME_BACKEND_H_
#define OPS_RUNTIME_BACKEND_H_

#include <cstddef>

#include "operator_runtime/api.h"

namespace oprt {

struct BackendRuntime {
  bool (*device_present)();
  oprt_status_t (*device_name)(char *buffer, size_t bytes);
  oprt_status_t (*malloc)(void **ptr, size_t bytes);
  oprt_status_t (*free)(void *ptr);
  // Stream-ordered: see oprt_malloc_async in api.h.
  oprt_status_t (*malloc_async)(void **ptr, size_t bytes, oprt_stream_t stream);
  oprt_status_t (*free_async)(void *ptr, oprt_stream_t stream);
  // Synchronous when stream == nullptr and `async` is false.
  oprt_status_t (*memcpy)(void *dst, const void *src, size_t bytes, oprt_memcpy_kind_t kind, bool async,
                          oprt_stream_t stream);
  oprt_status_t (*memset)(void *dst, int value, size_t bytes);
  oprt_status_t (*stream_create)(oprt_stream_t *stream);
  oprt_status_t (*stream_synchronize)(oprt_stream_t stream);
  oprt_status_t (*stream_destroy)(oprt_stream_t stream);
  oprt_status_t (*device_synchronize)();
};

// Returns true so it can initialise a namespace-scope constant in the registering file.
bool register_backend(oprt_backend_t backend, const BackendRuntime *runtime);
const BackendRuntime *backend_runtime(oprt_backend_t backend);  // nullptr if not compiled in
oprt_backend_t active_backend();  // of the calling thread
const char *active_variant();     // of the calling thread: "default" unless oprt_set_kernel_variant chose one
bool valid_backend(oprt_backend_t backend);

}  // namespace oprt

#endif  // OPS_RUNTIME_BACKEND_H_
