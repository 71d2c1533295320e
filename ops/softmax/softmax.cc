// Public entry points of softmax and log_softmax: validate once, plan, dispatch.
#include "operator_runtime/ops/softmax.h"

#include "ops/softmax/softmax.h"

namespace oprt {

KernelTable<SoftmaxKernel> &softmax_kernels() {
  static KernelTable<SoftmaxKernel> table("softmax");
  return table;
}

KernelTable<SoftmaxKernel> &log_softmax_kernels() {
  static KernelTable<SoftmaxKernel> table("log_softmax");
  return table;
}

namespace {

template <class Handle>
oprt_status_t create(const KernelTable<SoftmaxKernel> &table, bool log, Handle *desc, const Layout *y, const Layout *x,
                     int32_t axis) {
  return create_op_descriptor(table, desc, [&](SoftmaxPlan *plan) {
    OPRT_RETURN_IF_ERROR(check_layout(x, "x"));
    OPRT_RETURN_IF_ERROR(check_layout(y, "y"));
    OPRT_RETURN_IF_ERROR(check_same_dtype(*y, "y", *x, "x"));
    OPRT_RETURN_IF_ERROR(check_same_shape(*y, "y", *x, "x"));
    OPRT_RETURN_IF_ERROR(check_no_self_overlap(*y, "y"));
    SoftmaxPlan &p = *plan;  // fresh, zeroed
    OPRT_RETURN_IF_ERROR(normalize_axis(axis, x->ndim, "axis", &p.axis));
    p.dtype = x->dtype;
    p.log = log;
    p.x = *x;
    p.y = *y;
    p.outer = p.dim = p.inner = 1;
    for (int32_t d = 0; d < x->ndim; ++d) {
      (d < p.axis ? p.outer : d == p.axis ? p.dim : p.inner) *= x->shape[d];
    }
    p.dense = is_contiguous(*x) && is_contiguous(*y);
    return OPRT_STATUS_SUCCESS;
  });
}

template <class Handle>
oprt_status_t execute(const KernelTable<SoftmaxKernel> &table, Handle handle, void *workspace, size_t workspace_bytes,
                      void *y, const void *x, oprt_stream_t stream) {
  return execute_x_to_y(table, handle, workspace, workspace_bytes, y, x, stream, /*allow_exact_alias=*/true,
                        [](const SoftmaxPlan &plan) {
                          return XToY{plan.x, plan.y, plan.outer * plan.dim * plan.inner != 0};
                        });
}

}  // namespace
}  // namespace oprt

using namespace oprt;

// The four entry points of softmax (log = false) and of log_softmax (log = true), one body for both:
// oprt_create_<name>_descriptor, oprt_get_<name>_workspace_size, oprt_<name>, oprt_destroy_<name>_descriptor.
#define OPRT_SOFTMAX_ENTRY_POINTS(name, log)                                                                  \
  oprt_status_t oprt_create_##name##_descriptor(oprt_##name##_descriptor_t *desc, const oprt_tensor_layout_t *y, \
                                                const oprt_tensor_layout_t *x, int32_t axis) {                  \
    return create(name##_kernels(), log, desc, y, x, axis);                                                    \
  }                                                                                                             \
  oprt_status_t oprt_get_##name##_workspace_size(oprt_##name##_descriptor_t desc, size_t *bytes) {             \
    return get_workspace_size(desc, name##_kernels(), bytes);                                                  \
  }                                                                                                             \
  oprt_status_t oprt_##name(oprt_##name##_descriptor_t desc, void *workspace, size_t workspace_bytes, void *y, \
                            const void *x, oprt_stream_t stream) {                                             \
    return execute(name##_kernels(), desc, workspace, workspace_bytes, y, x, stream);                          \
  }                                                                                                             \
  oprt_status_t oprt_destroy_##name##_descriptor(oprt_##name##_descriptor_t desc) {                            \
    return destroy_descriptor(desc, name##_kernels());                                                         \
  }

extern "C" {
OPRT_SOFTMAX_ENTRY_POINTS(softmax, false)
OPRT_SOFTMAX_ENTRY_POINTS(log_softmax, true)
}  // extern "C"
