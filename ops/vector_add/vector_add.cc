// Public entry points of vector_add: validate once, then dispatch to the descriptor's backend.
#include "operator_runtime/ops/vector_add.h"

#include "ops/vector_add/vector_add.h"

namespace oprt {
KernelTable<VectorAddKernel> &vector_add_kernels() {
  static KernelTable<VectorAddKernel> table("vector_add");
  return table;
}
}  // namespace oprt

using namespace oprt;

static const char *const kInputNames[] = {"a", "b"};

extern "C" {

oprt_status_t oprt_create_vector_add_descriptor(oprt_vector_add_descriptor_t *desc, const oprt_tensor_layout_t *c,
                                                const oprt_tensor_layout_t *a, const oprt_tensor_layout_t *b) {
  clear_error();
  if (desc == nullptr) return fail(OPRT_STATUS_NULL_POINTER, "desc is NULL");
  return guarded([&] {
    ElementwisePlan plan = {};
    const Layout *inputs[] = {a, b};
    OPRT_RETURN_IF_ERROR(make_elementwise_plan(c, "c", inputs, kInputNames, 2, &plan));
    return create_descriptor(vector_add_kernels(), plan, desc);
  });
}

oprt_status_t oprt_get_vector_add_workspace_size(oprt_vector_add_descriptor_t desc, size_t *bytes) {
  return get_workspace_size(desc, vector_add_kernels(), bytes);
}

oprt_status_t oprt_vector_add(oprt_vector_add_descriptor_t handle, void *workspace, size_t workspace_bytes, void *c,
                              const void *a, const void *b, oprt_stream_t stream) {
  clear_error();
  return guarded([&] {
    DescriptorRef<VectorAddKernel> desc;
    OPRT_RETURN_IF_ERROR(acquire_for_execute(handle, vector_add_kernels(), workspace, workspace_bytes, &desc));
    const void *inputs[] = {a, b};
    OPRT_RETURN_IF_ERROR(check_elementwise_data(desc->plan, c, "c", inputs, kInputNames));
    if (desc->plan.numel == 0) return OPRT_STATUS_SUCCESS;
    return desc->kernel->execute(desc->plan, workspace, c, a, b, stream);
  });
}

oprt_status_t oprt_destroy_vector_add_descriptor(oprt_vector_add_descriptor_t desc) {
  return destroy_descriptor(desc, vector_add_kernels());
}

}  // extern "C"
