// The live descriptors, by handle (see operator.h). Executions only read it, so they share the lock.
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include "ops/runtime/operator.h"

namespace oprt {
namespace {

std::shared_mutex mutex;
uint64_t created = 0;  // under the exclusive lock

std::unordered_map<uintptr_t, std::shared_ptr<const DescriptorBase>> &live() {
  static auto *map = new std::unordered_map<uintptr_t, std::shared_ptr<const DescriptorBase>>();  // usable during exit
  return *map;
}

}  // namespace

uintptr_t register_descriptor(std::shared_ptr<const DescriptorBase> desc) {
  std::unique_lock<std::shared_mutex> lock(mutex);
  // Odd values: never the address of anything, so a pointer passed by mistake is not found.
  const uintptr_t handle = static_cast<uintptr_t>(++created) * 2 + 1;
  live().emplace(handle, std::move(desc));
  return handle;
}

std::shared_ptr<const DescriptorBase> find_descriptor(uintptr_t handle) {
  std::shared_lock<std::shared_mutex> lock(mutex);
  auto it = live().find(handle);
  return it == live().end() ? nullptr : it->second;
}

std::shared_ptr<const DescriptorBase> unregister_descriptor(uintptr_t handle) {
  std::unique_lock<std::shared_mutex> lock(mutex);
  auto it = live().find(handle);
  if (it == live().end()) return nullptr;
  std::shared_ptr<const DescriptorBase> desc = std::move(it->second);
  live().erase(it);
  return desc;  // destroyed by the caller, outside the lock
}

}  // namespace oprt
