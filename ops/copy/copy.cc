// Public entry points of copy: validate once, then dispatch to the descriptor's backend.
#include "operator_runtime/ops/copy.h"

#include "ops/copy/copy.h"

namespace oprt {
KernelTable<CopyKernel> &copy_kernels() {
  static KernelTable<CopyKernel> table("copy");
  return table;
}
}  // namespace oprt

using namespace oprt;

static const char *const kInputNames[] = {"x"};

extern "C" {

oprt_status_t oprt_create_copy_descriptor(oprt_copy_descriptor_t *desc, const oprt_tensor_layout_t *y,
                                          const oprt_tensor_layout_t *x) {
  clear_error();
  if (desc == nullptr) return fail(OPRT_STATUS_NULL_POINTER, "desc is NULL");
  return guarded([&] {
    ElementwisePlan plan = {};
    const Layout *inputs[] = {x};
    OPRT_RETURN_IF_ERROR(make_elementwise_plan(y, "y", inputs, kInputNames, 1, &plan));
    return create_descriptor(copy_kernels(), plan, desc);
  });
}

oprt_status_t oprt_get_copy_workspace_size(oprt_copy_descriptor_t desc, size_t *bytes) {
  return get_workspace_size(desc, copy_kernels(), bytes);
}

oprt_status_t oprt_copy(oprt_copy_descriptor_t handle, void *workspace, size_t workspace_bytes, void *y, const void *x,
                        oprt_stream_t stream) {
  clear_error();
  return guarded([&] {
    DescriptorRef<CopyKernel> desc;
    OPRT_RETURN_IF_ERROR(acquire_for_execute(handle, copy_kernels(), workspace, workspace_bytes, &desc));
    const void *inputs[] = {x};
    OPRT_RETURN_IF_ERROR(check_elementwise_data(desc->plan, y, "y", inputs, kInputNames));
    if (desc->plan.numel == 0 || y == x) return OPRT_STATUS_SUCCESS;  // y == x passed the check: exact alias
    return desc->kernel->execute(desc->plan, workspace, y, x, stream);
  });
}

oprt_status_t oprt_destroy_copy_descriptor(oprt_copy_descriptor_t desc) {
  return destroy_descriptor(desc, copy_kernels());
}

}  // extern "C"
