// Public entry points of relu: validate once, then dispatch to the descriptor's backend.
#include "operator_runtime/ops/relu.h"

#include <cmath>

#include "ops/elementwise/relu/relu.h"

namespace oprt {
KernelTable<ReluKernel> &relu_kernels() {
  static KernelTable<ReluKernel> table("relu");
  return table;
}
}  // namespace oprt

using namespace oprt;

static const char *const kInputNames[] = {"x"};

extern "C" {

oprt_status_t oprt_create_relu_descriptor(oprt_relu_descriptor_t *desc, const oprt_tensor_layout_t *y,
                                          const oprt_tensor_layout_t *x, double negative_slope) {
  clear_error();
  if (desc == nullptr) return fail(OPRT_STATUS_NULL_POINTER, "desc is NULL");
  return guarded([&] {
    if (!std::isfinite(negative_slope)) {
      return fail(OPRT_STATUS_INVALID_ARGUMENT, "negative_slope must be finite, got %g", negative_slope);
    }
    ReluPlan plan = {};
    const Layout *inputs[] = {x};
    OPRT_RETURN_IF_ERROR(make_elementwise_plan(y, "y", inputs, kInputNames, 1, &plan.elementwise));
    plan.negative_slope = negative_slope;
    return create_descriptor(relu_kernels(), plan, desc);
  });
}

oprt_status_t oprt_get_relu_workspace_size(oprt_relu_descriptor_t desc, size_t *bytes) {
  return get_workspace_size(desc, relu_kernels(), bytes);
}

oprt_status_t oprt_relu(oprt_relu_descriptor_t handle, void *workspace, size_t workspace_bytes, void *y, const void *x,
                        oprt_stream_t stream) {
  clear_error();
  return guarded([&] {
    DescriptorRef<ReluKernel> desc;
    OPRT_RETURN_IF_ERROR(acquire_for_execute(handle, relu_kernels(), workspace, workspace_bytes, &desc));
    const void *inputs[] = {x};
    OPRT_RETURN_IF_ERROR(check_elementwise_data(desc->plan.elementwise, y, "y", inputs, kInputNames));
    if (desc->plan.elementwise.numel == 0) return OPRT_STATUS_SUCCESS;
    return desc->kernel->execute(desc->plan, workspace, y, x, stream);
  });
}

oprt_status_t oprt_destroy_relu_descriptor(oprt_relu_descriptor_t desc) {
  return destroy_descriptor(desc, relu_kernels());
}

}  // extern "C"
