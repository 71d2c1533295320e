// Public entry points of relu, a unary elementwise op with one attribute: the model for such ops (the
// bodies are ops/common/elementwise_entry.h's; this file names the op, its arguments and its attribute).
#include "operator_runtime/ops/relu.h"

#include <cmath>

#include "ops/common/elementwise_entry.h"
#include "ops/elementwise/relu/relu.h"

namespace oprt {
KernelTable<ReluKernel> &relu_kernels() {
  static KernelTable<ReluKernel> table("relu");
  return table;
}
}  // namespace oprt

using namespace oprt;

static const ElementwiseOp<ReluKernel, 1> kRelu = {relu_kernels, "y", {"x"}};

extern "C" {

oprt_status_t oprt_create_relu_descriptor(oprt_relu_descriptor_t *desc, const oprt_tensor_layout_t *y,
                                          const oprt_tensor_layout_t *x, double negative_slope) {
  return create_elementwise(kRelu, desc, y, {x}, [&](ReluPlan *plan) {
    if (!std::isfinite(negative_slope)) {
      return fail(OPRT_STATUS_INVALID_ARGUMENT, "negative_slope must be finite, got %g", negative_slope);
    }
    plan->negative_slope = negative_slope;
    return OPRT_STATUS_SUCCESS;
  });
}

oprt_status_t oprt_get_relu_workspace_size(oprt_relu_descriptor_t desc, size_t *bytes) {
  return get_workspace_size(desc, relu_kernels(), bytes);
}

oprt_status_t oprt_relu(oprt_relu_descriptor_t desc, void *workspace, size_t workspace_bytes, void *y, const void *x,
                        oprt_stream_t stream) {
  return execute_elementwise(kRelu, desc, workspace, workspace_bytes, stream, y, x);
}

oprt_status_t oprt_destroy_relu_descriptor(oprt_relu_descriptor_t desc) {
  return destroy_descriptor(desc, relu_kernels());
}

}  // extern "C"
