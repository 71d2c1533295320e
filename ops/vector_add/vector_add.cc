// Public entry points of vector_add, a binary elementwise op without attributes: the model for such ops
// (the bodies are ops/common/elementwise_entry.h's; this file names the op and its arguments).
#include "operator_runtime/ops/vector_add.h"

#include "ops/common/elementwise_entry.h"
#include "ops/vector_add/vector_add.h"

namespace oprt {
KernelTable<VectorAddKernel> &vector_add_kernels() {
  static KernelTable<VectorAddKernel> table("vector_add");
  return table;
}
}  // namespace oprt

using namespace oprt;

static const ElementwiseOp<VectorAddKernel, 2> kVectorAdd = {vector_add_kernels, "c", {"a", "b"}};

extern "C" {

oprt_status_t oprt_create_vector_add_descriptor(oprt_vector_add_descriptor_t *desc, const oprt_tensor_layout_t *c,
                                                const oprt_tensor_layout_t *a, const oprt_tensor_layout_t *b) {
  return create_elementwise(kVectorAdd, desc, c, {a, b});
}

oprt_status_t oprt_get_vector_add_workspace_size(oprt_vector_add_descriptor_t desc, size_t *bytes) {
  return get_workspace_size(desc, vector_add_kernels(), bytes);
}

oprt_status_t oprt_vector_add(oprt_vector_add_descriptor_t desc, void *workspace, size_t workspace_bytes, void *c,
                              const void *a, const void *b, oprt_stream_t stream) {
  return execute_elementwise(kVectorAdd, desc, workspace, workspace_bytes, stream, c, a, b);
}

oprt_status_t oprt_destroy_vector_add_descriptor(oprt_vector_add_descriptor_t desc) {
  return destroy_descriptor(desc, vector_add_kernels());
}

}  // extern "C"
