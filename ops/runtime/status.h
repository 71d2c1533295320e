// Error reporting shared by every backend: a typed status plus a thread-local detail message.
#ifndef OPS_RUNTIME_STATUS_H_
#define OPS_RUNTIME_STATUS_H_

#include <exception>
#include <new>

#include "operator_runtime/api.h"

namespace oprt {

// Records `status` with a printf-style detail message for oprt_last_error() and returns it.
oprt_status_t fail(oprt_status_t status, const char *format, ...) __attribute__((format(printf, 2, 3)));
// Clears the detail message; every public entry point calls this first.
void clear_error();

// Runs a C entry point's body: no exception may cross the C boundary (it would abort the caller), so
// an allocation failure becomes OUT_OF_MEMORY and anything else INTERNAL.
template <class Body>
oprt_status_t guarded(Body &&body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return fail(OPRT_STATUS_OUT_OF_MEMORY, "out of host memory");
  } catch (const std::exception &e) {
    return fail(OPRT_STATUS_INTERNAL, "unexpected exception: %s", e.what());
  } catch (...) {
    return fail(OPRT_STATUS_INTERNAL, "unexpected exception");
  }
}

}  // namespace oprt

#define OPRT_RETURN_IF_ERROR(expr)                          \
  do {                                                      \
    const oprt_status_t oprt_status_ = (expr);              \
    if (oprt_status_ != OPRT_STATUS_SUCCESS) return oprt_status_; \
  } while (0)

#endif  // OPS_RUNTIME_STATUS_H_
