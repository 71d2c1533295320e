// The emulated device behind the SIMT emulator's runtime headers (test-only): device memory is host
// memory, work runs when launched, and the device answers queries from oprt_simt::device(), which a
// test may change (e.g. fewer SMs for smaller grids).
#ifndef OPRT_SIMT_RUNTIME_H_
#define OPRT_SIMT_RUNTIME_H_

#include <cstddef>
#include <cstdlib>
#include <cstring>

#include "oprt_simt.h"

namespace oprt_simt {

// Shaped like a MetaX C500 (104 APs, 64 KiB of shared memory per block) so that the kernels pick the
// tiers they would pick there; OPRT_SIMT_SM_COUNT overrides the count (e.g. 4 to make grids small).
struct Device {
  const char *name = "SIMT emulator (C500-shaped, 64-lane warps)";
  int sm_count = 104;
  int max_shared_bytes_per_block_optin = 64 * 1024;
  int max_shared_bytes_per_block = 64 * 1024;
  int blocks_per_sm = 2;  // what occupancy queries answer
  int max_threads_per_sm = 2048;
};

inline Device &device() {
  static Device d = [] {
    Device result;
    if (const char *count = std::getenv("OPRT_SIMT_SM_COUNT")) result.sm_count = std::max(1, std::atoi(count));
    return result;
  }();
  return d;
}

enum class Attribute { kSmCount, kMaxSharedOptin, kMaxShared, kWarpSize, kMaxThreadsPerSm, kOther };

inline int attribute(Attribute a) {
  switch (a) {
    case Attribute::kSmCount: return device().sm_count;
    case Attribute::kMaxSharedOptin: return device().max_shared_bytes_per_block_optin;
    case Attribute::kMaxShared: return device().max_shared_bytes_per_block;
    case Attribute::kWarpSize: return kWarpSize;
    case Attribute::kMaxThreadsPerSm: return device().max_threads_per_sm;
    case Attribute::kOther: return 0;
  }
  return 0;
}

inline int max_dynamic_shared_bytes() { return device().max_shared_bytes_per_block_optin; }

// Device memory is host memory; sizes no device has (e.g. 2^64 - 1, which the rounding would wrap)
// fail as a device would, with an out-of-memory error.
inline void *allocate(size_t bytes) {
  constexpr size_t kMaxBytes = size_t(1) << 40;
  if (bytes == 0 || bytes > kMaxBytes) return nullptr;
  return std::aligned_alloc(256, (bytes + 255) / 256 * 256);
}

struct DeviceProperties {
  char name[256];
  int multiProcessorCount;
};

inline void properties(DeviceProperties *p) {
  std::memset(p, 0, sizeof(*p));
  std::snprintf(p->name, sizeof(p->name), "%s", device().name);
  p->multiProcessorCount = device().sm_count;
}

}  // namespace oprt_simt

#endif  // OPRT_SIMT_RUNTIME_H_
