// Public entry points of gelu: the bodies are ops/common/elementwise_entry.h's; this file names the op,
// its arguments and its attribute (the form: exact erf or the tanh approximation).
#include "operator_runtime/ops/gelu.h"

#include "ops/common/elementwise_entry.h"
#include "ops/gelu/gelu.h"

namespace oprt {
KernelTable<GeluKernel> &gelu_kernels() {
  static KernelTable<GeluKernel> table("gelu");
  return table;
}
}  // namespace oprt

using namespace oprt;

static const ElementwiseOp<GeluKernel, 1> kGelu = {gelu_kernels, "y", {"x"}};

extern "C" {

oprt_status_t oprt_create_gelu_descriptor(oprt_gelu_descriptor_t *desc, const oprt_tensor_layout_t *y,
                                         const oprt_tensor_layout_t *x, int32_t approximate) {
  return create_elementwise(kGelu, desc, y, {x}, [&](GeluPlan *plan) {
    if (approximate != OPRT_GELU_EXACT && approximate != OPRT_GELU_TANH) {
      return fail(OPRT_STATUS_INVALID_ARGUMENT, "approximate must be OPRT_GELU_EXACT (0) or OPRT_GELU_TANH (1), got %d",
                  approximate);
    }
    plan->tanh_form = approximate == OPRT_GELU_TANH;
    return OPRT_STATUS_SUCCESS;
  });
}

oprt_status_t oprt_get_gelu_workspace_size(oprt_gelu_descriptor_t desc, size_t *bytes) {
  return get_workspace_size(desc, gelu_kernels(), bytes);
}

oprt_status_t oprt_gelu(oprt_gelu_descriptor_t desc, void *workspace, size_t workspace_bytes, void *y, const void *x,
                       oprt_stream_t stream) {
  return execute_elementwise(kGelu, desc, workspace, workspace_bytes, stream, y, x);
}

oprt_status_t oprt_destroy_gelu_descriptor(oprt_gelu_descriptor_t desc) {
  return destroy_descriptor(desc, gelu_kernels());
}

}  // extern "C"
