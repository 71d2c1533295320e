// Public entry points of gelu: the bodies are ops/common/elementwise_entry.h's; this file names the op
// and its arguments (ops/elementwise/relu/relu.cc shows an op with an attribute).
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
                                         const oprt_tensor_layout_t *x) {
  return create_elementwise(kGelu, desc, y, {x});
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
