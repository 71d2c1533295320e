#include "ops/runtime/status.h"

#include <cstdarg>
#include <cstdio>

#include "ops/runtime/version.h"

namespace oprt {
namespace {
// A fixed buffer, so reporting an error never allocates (it may report running out of memory).
thread_local char last_error[1280];
}

oprt_status_t fail(oprt_status_t status, const char *format, ...) {
  char detail[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(detail, sizeof(detail), format, args);
  va_end(args);
  std::snprintf(last_error, sizeof(last_error), "%s: %s", oprt_status_string(status), detail);
  return status;
}

void clear_error() { last_error[0] = '\0'; }

}  // namespace oprt

extern "C" {

const char *oprt_status_string(oprt_status_t status) {
  switch (status) {
    case OPRT_STATUS_SUCCESS: return "success";
    case OPRT_STATUS_NULL_POINTER: return "null pointer";
    case OPRT_STATUS_INVALID_ARGUMENT: return "invalid argument";
    case OPRT_STATUS_BAD_DTYPE: return "bad dtype";
    case OPRT_STATUS_BAD_SHAPE: return "bad shape";
    case OPRT_STATUS_BAD_STRIDES: return "bad strides";
    case OPRT_STATUS_INSUFFICIENT_WORKSPACE: return "insufficient workspace";
    case OPRT_STATUS_NOT_SUPPORTED: return "not supported";
    case OPRT_STATUS_BACKEND_UNAVAILABLE: return "backend unavailable";
    case OPRT_STATUS_OUT_OF_MEMORY: return "out of memory";
    case OPRT_STATUS_DEVICE_ERROR: return "device error";
    case OPRT_STATUS_BAD_DESCRIPTOR: return "bad descriptor";
    case OPRT_STATUS_INTERNAL: return "internal error";
  }
  return "unknown status";
}

const char *oprt_last_error(void) { return oprt::last_error; }

const char *oprt_version(void) { return OPRT_VERSION; }

}  // extern "C"
