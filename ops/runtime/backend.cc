#include "ops/runtime/backend.h"

#include <cstring>

#include "ops/runtime/status.h"

namespace oprt {
namespace {

const BackendRuntime *&slot(oprt_backend_t backend) {
  static const BackendRuntime *runtimes[OPRT_BACKEND_COUNT] = {};
  return runtimes[backend];
}

// Per thread, like CUDA's current device: threads using different backends cannot interfere.
thread_local oprt_backend_t active = OPRT_BACKEND_CPU;
constexpr size_t kMaxVariantName = 31;
thread_local char variant[kMaxVariantName + 1] = "default";

// Every memory/stream entry point: clear the error, fetch the active backend's runtime.
const BackendRuntime &active_runtime() { return *slot(active_backend()); }

}  // namespace

bool valid_backend(oprt_backend_t backend) { return backend >= 0 && backend < OPRT_BACKEND_COUNT; }

bool register_backend(oprt_backend_t backend, const BackendRuntime *runtime) {
  slot(backend) = runtime;
  return true;
}

const BackendRuntime *backend_runtime(oprt_backend_t backend) {
  return valid_backend(backend) ? slot(backend) : nullptr;
}

oprt_backend_t active_backend() { return active; }

const char *active_variant() { return variant; }

}  // namespace oprt

using oprt::active_runtime;
using oprt::clear_error;
using oprt::fail;

extern "C" {

const char *oprt_backend_name(oprt_backend_t backend) {
  switch (backend) {
    case OPRT_BACKEND_CPU: return "cpu";
    case OPRT_BACKEND_NVIDIA: return "nvidia";
    case OPRT_BACKEND_METAX: return "metax";
  }
  return "unknown";
}

int oprt_backend_compiled(oprt_backend_t backend) { return oprt::backend_runtime(backend) != nullptr; }

int oprt_backend_available(oprt_backend_t backend) {
  const oprt::BackendRuntime *runtime = oprt::backend_runtime(backend);
  return runtime != nullptr && runtime->device_present();
}

oprt_status_t oprt_set_backend(oprt_backend_t backend) {
  clear_error();
  if (!oprt::valid_backend(backend)) {
    return fail(OPRT_STATUS_INVALID_ARGUMENT, "backend %d is not one of cpu(0), nvidia(1), metax(2)", backend);
  }
  if (!oprt_backend_compiled(backend)) {
    return fail(OPRT_STATUS_BACKEND_UNAVAILABLE, "backend '%s' is not compiled into this library (build with --config=%s)",
                oprt_backend_name(backend), oprt_backend_name(backend));
  }
  if (!oprt_backend_available(backend)) {
    return fail(OPRT_STATUS_BACKEND_UNAVAILABLE, "backend '%s' is compiled in but no usable device was found",
                oprt_backend_name(backend));
  }
  oprt::active = backend;
  return OPRT_STATUS_SUCCESS;
}

oprt_backend_t oprt_get_backend(void) { return oprt::active_backend(); }

oprt_status_t oprt_set_kernel_variant(const char *name) {
  clear_error();
  if (name == nullptr || name[0] == '\0') name = "default";
  size_t length = 0;
  for (; name[length] != '\0'; ++length) {
    const char c = name[length];
    const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!word || length == oprt::kMaxVariantName) {
      return fail(OPRT_STATUS_INVALID_ARGUMENT, "a kernel variant name is up to %zu letters, digits or '_'",
                  oprt::kMaxVariantName);
    }
  }
  std::memcpy(oprt::variant, name, length + 1);
  return OPRT_STATUS_SUCCESS;
}

const char *oprt_get_kernel_variant(void) { return oprt::variant; }

oprt_status_t oprt_device_name(char *buffer, size_t buffer_bytes) {
  clear_error();
  if (buffer == nullptr) return fail(OPRT_STATUS_NULL_POINTER, "buffer is NULL");
  if (buffer_bytes == 0) return fail(OPRT_STATUS_INVALID_ARGUMENT, "buffer_bytes is 0");
  return active_runtime().device_name(buffer, buffer_bytes);
}

oprt_status_t oprt_malloc(void **ptr, size_t bytes) {
  clear_error();
  if (ptr == nullptr) return fail(OPRT_STATUS_NULL_POINTER, "ptr is NULL");
  *ptr = nullptr;
  if (bytes == 0) return OPRT_STATUS_SUCCESS;
  return active_runtime().malloc(ptr, bytes);
}

oprt_status_t oprt_free(void *ptr) {
  clear_error();
  if (ptr == nullptr) return OPRT_STATUS_SUCCESS;
  return active_runtime().free(ptr);
}

static oprt_status_t checked_memcpy(void *dst, const void *src, size_t bytes, oprt_memcpy_kind_t kind, bool async,
                                    oprt_stream_t stream) {
  clear_error();
  if (bytes == 0) return OPRT_STATUS_SUCCESS;
  if (dst == nullptr || src == nullptr) return fail(OPRT_STATUS_NULL_POINTER, "dst or src is NULL");
  if (kind < OPRT_MEMCPY_HOST_TO_HOST || kind > OPRT_MEMCPY_DEVICE_TO_DEVICE) {
    return fail(OPRT_STATUS_INVALID_ARGUMENT, "memcpy kind %d is not a oprt_memcpy_kind_t", kind);
  }
  return active_runtime().memcpy(dst, src, bytes, kind, async, stream);
}

oprt_status_t oprt_malloc_async(void **ptr, size_t bytes, oprt_stream_t stream) {
  clear_error();
  if (ptr == nullptr) return fail(OPRT_STATUS_NULL_POINTER, "ptr is NULL");
  *ptr = nullptr;
  if (bytes == 0) return OPRT_STATUS_SUCCESS;
  return active_runtime().malloc_async(ptr, bytes, stream);
}

oprt_status_t oprt_free_async(void *ptr, oprt_stream_t stream) {
  clear_error();
  if (ptr == nullptr) return OPRT_STATUS_SUCCESS;
  return active_runtime().free_async(ptr, stream);
}

oprt_status_t oprt_memcpy(void *dst, const void *src, size_t bytes, oprt_memcpy_kind_t kind) {
  return checked_memcpy(dst, src, bytes, kind, false, nullptr);
}

oprt_status_t oprt_memcpy_async(void *dst, const void *src, size_t bytes, oprt_memcpy_kind_t kind,
                                oprt_stream_t stream) {
  return checked_memcpy(dst, src, bytes, kind, true, stream);
}

oprt_status_t oprt_memset(void *dst, int value, size_t bytes) {
  clear_error();
  if (bytes == 0) return OPRT_STATUS_SUCCESS;
  if (dst == nullptr) return fail(OPRT_STATUS_NULL_POINTER, "dst is NULL");
  return active_runtime().memset(dst, value, bytes);
}

oprt_status_t oprt_stream_create(oprt_stream_t *stream) {
  clear_error();
  if (stream == nullptr) return fail(OPRT_STATUS_NULL_POINTER, "stream is NULL");
  return active_runtime().stream_create(stream);
}

oprt_status_t oprt_stream_synchronize(oprt_stream_t stream) {
  clear_error();
  return active_runtime().stream_synchronize(stream);
}

oprt_status_t oprt_stream_destroy(oprt_stream_t stream) {
  clear_error();
  if (stream == nullptr) return OPRT_STATUS_SUCCESS;  // the default stream is never destroyed
  return active_runtime().stream_destroy(stream);
}

oprt_status_t oprt_device_synchronize(void) {
  clear_error();
  return active_runtime().device_synchronize();
}

size_t oprt_dtype_size(oprt_dtype_t dtype) {
  switch (dtype) {
    case OPRT_DTYPE_F32: return 4;
    case OPRT_DTYPE_F16: return 2;
    case OPRT_DTYPE_BF16: return 2;
    case OPRT_DTYPE_F64: return 8;
  }
  return 0;
}

}  // extern "C"
