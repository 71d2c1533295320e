#include "ops/runtime/launch_log.h"

#include <cstdio>
#include <cstring>

#include "operator_runtime/api.h"

namespace oprt {
namespace {
// A fixed buffer: recording never allocates. A call launches at most a few kernels.
thread_local char log_text[2048];
}  // namespace

void begin_launch_log() { log_text[0] = '\0'; }

void record_launch(const char *kernel, unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned block_x,
                   unsigned block_y, unsigned block_z, size_t shared_bytes) {
  const size_t used = std::strlen(log_text);
  std::snprintf(log_text + used, sizeof(log_text) - used, "%s grid=(%u,%u,%u) block=(%u,%u,%u) shared=%zu\n", kernel,
                grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_bytes);
}

}  // namespace oprt

extern "C" const char *oprt_last_launches(void) { return oprt::log_text; }
