// The plumbing every operator shares: per-backend kernel tables, descriptors and the checks of the
// execute call. An operator defines a Plan (validated, backend-neutral description of one call), one
// Kernel per backend (workspace size + execute), and its entry points through the functions below.
//
// A descriptor handle given to C callers is an opaque id, never a pointer and never reused. The
// registry maps live ids to reference-counted descriptors: a stale or forged handle is reported as
// BAD_DESCRIPTOR, and a descriptor destroyed by one thread while another executes it lives until
// that execution returns.
#ifndef OPS_RUNTIME_OPERATOR_H_
#define OPS_RUNTIME_OPERATOR_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "operator_runtime/api.h"
#include "ops/runtime/backend.h"
#include "ops/runtime/launch_log.h"
#include "ops/runtime/layout.h"
#include "ops/runtime/status.h"

namespace oprt {

// One backend's implementation of one operator.
template <class PlanT, class... Data>
struct Kernel {
  using Plan = PlanT;
  size_t (*workspace_bytes)(const Plan &plan);
  oprt_status_t (*execute)(const Plan &plan, void *workspace, Data... data, oprt_stream_t stream);
};

// Each operator owns one table; each backend's kernel file adds itself at load time, under a variant
// name ("default" for the hand-written kernel; others, e.g. "cute", beside it).
template <class K>
class KernelTable {
 public:
  static constexpr int kMaxVariants = 4;
  const char *const op_name;
  explicit constexpr KernelTable(const char *name) : op_name(name) {}
  bool add(oprt_backend_t backend, const K *kernel, const char *variant = "default") {
    for (Entry &entry : kernels_[backend]) {
      if (entry.kernel == nullptr) {
        entry = {variant, kernel};
        return true;
      }
    }
    return false;
  }
  const K *find(oprt_backend_t backend, const char *variant) const {
    for (const Entry &entry : kernels_[backend]) {
      if (entry.kernel != nullptr && std::strcmp(entry.variant, variant) == 0) return entry.kernel;
    }
    return nullptr;
  }
  // "default, cute": for error messages.
  std::string variants(oprt_backend_t backend) const {
    std::string names;
    for (const Entry &entry : kernels_[backend]) {
      if (entry.kernel != nullptr) names += (names.empty() ? "" : ", ") + std::string(entry.variant);
    }
    return names.empty() ? "none" : names;
  }

 private:
  struct Entry {
    const char *variant;
    const K *kernel;
  };
  Entry kernels_[OPRT_BACKEND_COUNT][kMaxVariants] = {};
};

// What the registry keeps of any operator's descriptor.
struct DescriptorBase {
  const void *table;    // the operator's KernelTable: identifies the operator
  const char *op_name;
  virtual ~DescriptorBase() = default;
};

template <class K>
struct Descriptor : DescriptorBase {
  oprt_backend_t backend;
  size_t workspace_bytes;
  const K *kernel;
  typename K::Plan plan;
};

template <class K>
using DescriptorRef = std::shared_ptr<const Descriptor<K>>;

// The registry (descriptor_registry.cc). Handles are never 0 and never reused.
uintptr_t register_descriptor(std::shared_ptr<const DescriptorBase> desc);
std::shared_ptr<const DescriptorBase> find_descriptor(uintptr_t handle);  // nullptr if not live
std::shared_ptr<const DescriptorBase> unregister_descriptor(uintptr_t handle);

// Creates a descriptor of `plan` for the calling thread's active backend; *out gets its handle.
template <class K, class Handle>
oprt_status_t create_descriptor(const KernelTable<K> &table, const typename K::Plan &plan, Handle *out) {
  const oprt_backend_t backend = active_backend();
  const char *variant = active_variant();
  const K *kernel = table.find(backend, variant);
  if (kernel == nullptr) {
    return fail(OPRT_STATUS_NOT_SUPPORTED, "%s has no '%s' kernel for backend '%s' in this build (it has: %s)",
                table.op_name, variant, oprt_backend_name(backend), table.variants(backend).c_str());
  }
  auto desc = std::make_shared<Descriptor<K>>();
  desc->table = &table;
  desc->op_name = table.op_name;
  desc->backend = backend;
  desc->kernel = kernel;
  desc->plan = plan;
  desc->workspace_bytes = kernel->workspace_bytes(plan);
  *out = reinterpret_cast<Handle>(register_descriptor(std::move(desc)));
  return OPRT_STATUS_SUCCESS;
}

// The live descriptor of `handle`, held for the duration of the call.
template <class K, class Handle>
oprt_status_t find_descriptor(Handle handle, const KernelTable<K> &table, DescriptorRef<K> *out) {
  if (handle == nullptr) return fail(OPRT_STATUS_BAD_DESCRIPTOR, "%s descriptor is NULL", table.op_name);
  std::shared_ptr<const DescriptorBase> found = find_descriptor(reinterpret_cast<uintptr_t>(handle));
  if (found == nullptr) {
    return fail(OPRT_STATUS_BAD_DESCRIPTOR, "not a live %s descriptor (destroyed, or never created)", table.op_name);
  }
  if (found->table != &table) {
    return fail(OPRT_STATUS_BAD_DESCRIPTOR, "descriptor of %s passed to %s", found->op_name, table.op_name);
  }
  *out = std::static_pointer_cast<const Descriptor<K>>(found);
  return OPRT_STATUS_SUCCESS;
}

template <class K, class Handle>
oprt_status_t get_workspace_size(Handle handle, const KernelTable<K> &table, size_t *bytes) {
  clear_error();
  return guarded([&] {
    DescriptorRef<K> desc;
    OPRT_RETURN_IF_ERROR(find_descriptor(handle, table, &desc));
    if (bytes == nullptr) return fail(OPRT_STATUS_NULL_POINTER, "bytes is NULL");
    *bytes = desc->workspace_bytes;
    return OPRT_STATUS_SUCCESS;
  });
}

// The body of every oprt_create_<op>_descriptor: a NULL desc is refused first; make_plan(&plan) checks the
// attributes and layouts and fills a fresh plan, which is then registered under a new handle.
template <class K, class Handle, class MakePlan>
oprt_status_t create_op_descriptor(const KernelTable<K> &table, Handle *desc, MakePlan make_plan) {
  clear_error();
  if (desc == nullptr) return fail(OPRT_STATUS_NULL_POINTER, "desc is NULL");
  return guarded([&] {
    typename K::Plan plan = {};
    OPRT_RETURN_IF_ERROR(make_plan(&plan));
    return create_descriptor(table, plan, desc);
  });
}

// What the execute body of an op from one input x to one output y needs of its plan.
struct XToY {
  const Layout &x, &y;  // the validated layouts
  bool has_work;        // false: nothing to compute (an empty output, or no row)
};

// The body of oprt_<op> for such an op: the descriptor and workspace, both pointers, then (y may be x itself only
// where allow_exact_alias) the kernel. x_to_y(plan) says where the plan keeps the layouts.
template <class K, class Handle, class XToYOf>
oprt_status_t execute_x_to_y(const KernelTable<K> &table, Handle handle, void *workspace, size_t workspace_bytes,
                             void *y, const void *x, oprt_stream_t stream, bool allow_exact_alias, XToYOf x_to_y) {
  clear_error();
  return guarded([&] {
    DescriptorRef<K> desc;
    OPRT_RETURN_IF_ERROR(acquire_for_execute(handle, table, workspace, workspace_bytes, &desc));
    const XToY plan = x_to_y(desc->plan);
    OPRT_RETURN_IF_ERROR(check_data(y, plan.y, "y"));
    OPRT_RETURN_IF_ERROR(check_data(x, plan.x, "x"));
    OPRT_RETURN_IF_ERROR(check_no_partial_overlap(plan.y, y, "y", plan.x, x, "x", allow_exact_alias));
    if (!plan.has_work) return OPRT_STATUS_SUCCESS;
    return desc->kernel->execute(desc->plan, workspace, y, x, stream);
  });
}

// The first step of every execute entry point: a live descriptor of this operator and a big enough workspace.
template <class K, class Handle>
oprt_status_t acquire_for_execute(Handle handle, const KernelTable<K> &table, const void *workspace, size_t bytes,
                                  DescriptorRef<K> *out) {
  begin_launch_log();
  OPRT_RETURN_IF_ERROR(find_descriptor(handle, table, out));
  const size_t needed = (*out)->workspace_bytes;
  if (bytes < needed) {
    return fail(OPRT_STATUS_INSUFFICIENT_WORKSPACE, "%s needs %zu workspace bytes, got %zu", table.op_name, needed,
                bytes);
  }
  if (needed > 0 && workspace == nullptr) {
    return fail(OPRT_STATUS_NULL_POINTER, "%s needs a workspace of %zu bytes, got NULL", table.op_name, needed);
  }
  return OPRT_STATUS_SUCCESS;
}

template <class K, class Handle>
oprt_status_t destroy_descriptor(Handle handle, const KernelTable<K> &table) {
  clear_error();
  return guarded([&] {
    DescriptorRef<K> desc;
    OPRT_RETURN_IF_ERROR(find_descriptor(handle, table, &desc));
    if (unregister_descriptor(reinterpret_cast<uintptr_t>(handle)) == nullptr) {  // another thread was first
      return fail(OPRT_STATUS_BAD_DESCRIPTOR, "%s descriptor destroyed twice", table.op_name);
    }
    return OPRT_STATUS_SUCCESS;  // freed here, or when the last execution holding it returns
  });
}

// The attribute setter of an op without attributes (the create_* entry-point bodies take one).
struct NoAttributes {
  template <class Plan>
  oprt_status_t operator()(Plan *) const {
    return OPRT_STATUS_SUCCESS;
  }
};

}  // namespace oprt

#endif  // OPS_RUNTIME_OPERATOR_H_
