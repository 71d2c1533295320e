#include "ops/runtime/status.h"

#include <cstdarg>
#include <cstdio>
#include <string>

namespace oprt {
namespace {
thread_local std::string last_error;
}

oprt_status_t fail(oprt_status_t status, const char *format, ...) {
  char buffer[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  last_error = std::string(oprt_status_string(status)) + ": " + buffer;
  return status;
}

void clear_error() { last_error.clear(); }

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
  }
  return "unknown status";
}

const char *oprt_last_error(void) { return oprt::last_error.c_str(); }

const char *oprt_version(void) { return "0.1.0"; }

}  // extern "C"
