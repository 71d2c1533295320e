// The plumbing every operator shares: per-backend kernel tables, descriptors and the checks of the
// execute call. An operator defines a Plan (validated, backend-neutral description of one call), one
// Kernel per backend (workspace size + execute) and its C descriptor type as a Descriptor<Plan, Kernel>.
#ifndef OPS_RUNTIME_OPERATOR_H_
#define OPS_RUNTIME_OPERATOR_H_

#include <cstddef>
#include <new>

#include "operator_runtime/api.h"
#include "ops/runtime/backend.h"
#include "ops/runtime/status.h"

namespace oprt {

// One backend's implementation of one operator.
template <class Plan, class... Data>
struct Kernel {
  size_t (*workspace_bytes)(const Plan &plan);
  oprt_status_t (*execute)(const Plan &plan, void *workspace, Data... data, oprt_stream_t stream);
};

// Each operator owns one table; each backend's kernel file adds itself at load time.
template <class K>
class KernelTable {
 public:
  const char *const op_name;
  explicit constexpr KernelTable(const char *name) : op_name(name) {}
  bool add(oprt_backend_t backend, const K *kernel) {
    kernels_[backend] = kernel;
    return true;
  }
  const K *find(oprt_backend_t backend) const { return kernels_[backend]; }

 private:
  const K *kernels_[OPRT_BACKEND_COUNT] = {};
};

// Live descriptors, so a destroyed (or never created) one is reported, not read after free.
void register_descriptor(const void *desc);
bool unregister_descriptor(const void *desc);  // false if it was not live
bool is_live_descriptor(const void *desc);

template <class PlanT, class K>
struct Descriptor {
  using Plan = PlanT;
  const KernelTable<K> *table;  // identifies the operator
  oprt_backend_t backend;
  size_t workspace_bytes;
  const K *kernel;
  Plan plan;
};

// Creates a descriptor of `plan` for the active backend.
template <class Desc, class K>
oprt_status_t create_descriptor(const KernelTable<K> &table, const typename Desc::Plan &plan, Desc **out) {
  const oprt_backend_t backend = active_backend();
  const K *kernel = table.find(backend);
  if (kernel == nullptr) {
    return fail(OPRT_STATUS_NOT_SUPPORTED, "%s has no kernel for backend '%s' in this build", table.op_name,
                oprt_backend_name(backend));
  }
  Desc *desc = new (std::nothrow) Desc();
  if (desc == nullptr) return fail(OPRT_STATUS_OUT_OF_MEMORY, "cannot allocate a %s descriptor", table.op_name);
  desc->table = &table;
  desc->backend = backend;
  desc->kernel = kernel;
  desc->plan = plan;
  desc->workspace_bytes = kernel->workspace_bytes(plan);
  register_descriptor(desc);
  *out = desc;
  return OPRT_STATUS_SUCCESS;
}

template <class Desc, class K>
oprt_status_t check_descriptor(const Desc *desc, const KernelTable<K> &table) {
  if (desc == nullptr) return fail(OPRT_STATUS_BAD_DESCRIPTOR, "%s descriptor is NULL", table.op_name);
  if (!is_live_descriptor(desc)) {
    return fail(OPRT_STATUS_BAD_DESCRIPTOR, "not a live %s descriptor (destroyed, or never created)", table.op_name);
  }
  if (desc->table != &table) {
    return fail(OPRT_STATUS_BAD_DESCRIPTOR, "descriptor of %s passed to %s", desc->table->op_name, table.op_name);
  }
  return OPRT_STATUS_SUCCESS;
}

template <class Desc, class K>
oprt_status_t get_workspace_size(const Desc *desc, const KernelTable<K> &table, size_t *bytes) {
  clear_error();
  OPRT_RETURN_IF_ERROR(check_descriptor(desc, table));
  if (bytes == nullptr) return fail(OPRT_STATUS_NULL_POINTER, "bytes is NULL");
  *bytes = desc->workspace_bytes;
  return OPRT_STATUS_SUCCESS;
}

template <class Desc, class K>
oprt_status_t check_workspace(const Desc *desc, const KernelTable<K> &table, const void *workspace, size_t bytes) {
  OPRT_RETURN_IF_ERROR(check_descriptor(desc, table));
  if (bytes < desc->workspace_bytes) {
    return fail(OPRT_STATUS_INSUFFICIENT_WORKSPACE, "%s needs %zu workspace bytes, got %zu", table.op_name,
                desc->workspace_bytes, bytes);
  }
  if (desc->workspace_bytes > 0 && workspace == nullptr) {
    return fail(OPRT_STATUS_NULL_POINTER, "%s needs a workspace of %zu bytes, got NULL", table.op_name,
                desc->workspace_bytes);
  }
  return OPRT_STATUS_SUCCESS;
}

template <class Desc, class K>
oprt_status_t destroy_descriptor(Desc *desc, const KernelTable<K> &table) {
  clear_error();
  OPRT_RETURN_IF_ERROR(check_descriptor(desc, table));
  unregister_descriptor(desc);
  delete desc;
  return OPRT_STATUS_SUCCESS;
}

}  // namespace oprt

#endif  // OPS_RUNTIME_OPERATOR_H_
