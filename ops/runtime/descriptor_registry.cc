// The set of live descriptors (see operator.h). A mutex suffices: it is taken once per call.
#include <mutex>
#include <unordered_set>

#include "ops/runtime/operator.h"

namespace oprt {
namespace {

std::mutex mutex;
std::unordered_set<const void *> &live() {
  static auto *set = new std::unordered_set<const void *>();  // never destroyed: usable during exit
  return *set;
}

}  // namespace

void register_descriptor(const void *desc) {
  std::lock_guard<std::mutex> lock(mutex);
  live().insert(desc);
}

bool unregister_descriptor(const void *desc) {
  std::lock_guard<std::mutex> lock(mutex);
  return live().erase(desc) > 0;
}

bool is_live_descriptor(const void *desc) {
  std::lock_guard<std::mutex> lock(mutex);
  return live().count(desc) > 0;
}

}  // namespace oprt
