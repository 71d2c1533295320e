// Public entry points of reduce_sum: validate axes and the output shape once, plan, dispatch.
#include "operator_runtime/ops/reduce_sum.h"

#include <algorithm>

#include "ops/reduce_sum/reduce_sum.h"

namespace oprt {

KernelTable<ReduceSumKernel> &reduce_sum_kernels() {
  static KernelTable<ReduceSumKernel> table("reduce_sum");
  return table;
}

static oprt_status_t make_plan(const Layout *y, const Layout *x, const int32_t *axes, int32_t num_axes,
                               int32_t keepdims, ReduceSumPlan *plan) {
  OPRT_RETURN_IF_ERROR(check_layout(x, "x"));
  OPRT_RETURN_IF_ERROR(check_layout(y, "y"));
  OPRT_RETURN_IF_ERROR(check_same_dtype(*y, "y", *x, "x"));
  if (num_axes < 0 || num_axes > x->ndim) {
    return fail(OPRT_STATUS_INVALID_ARGUMENT, "num_axes %d is out of range for x with %d dims", num_axes, x->ndim);
  }
  if (num_axes > 0 && axes == nullptr) return fail(OPRT_STATUS_NULL_POINTER, "axes is NULL but num_axes is %d", num_axes);
  if (keepdims != 0 && keepdims != 1) return fail(OPRT_STATUS_INVALID_ARGUMENT, "keepdims must be 0 or 1, got %d", keepdims);

  ReduceSumPlan p = {};
  p.dtype = x->dtype;
  p.x = *x;
  p.y = *y;
  for (int32_t i = 0; i < num_axes; ++i) {
    if (x->ndim == 0) return fail(OPRT_STATUS_INVALID_ARGUMENT, "axis %d given for a 0-d x", axes[i]);
    int32_t axis;
    OPRT_RETURN_IF_ERROR(normalize_axis(axes[i], x->ndim, "axis", &axis));
    if (p.reduced[axis]) return fail(OPRT_STATUS_INVALID_ARGUMENT, "axis %d is listed twice", axes[i]);
    p.reduced[axis] = true;
  }
  Layout expected = {};
  expected.dtype = x->dtype;
  for (int32_t d = 0; d < x->ndim; ++d) {
    if (!p.reduced[d]) expected.shape[expected.ndim++] = x->shape[d];
    else if (keepdims) expected.shape[expected.ndim++] = 1;
  }
  if (y->ndim != expected.ndim || !std::equal(y->shape, y->shape + y->ndim, expected.shape)) {
    return fail(OPRT_STATUS_BAD_SHAPE, "y has shape %s but summing x %s over the given axes (keepdims=%d) gives %s",
                shape_string(*y).c_str(), shape_string(*x).c_str(), keepdims, shape_string(expected).c_str());
  }
  OPRT_RETURN_IF_ERROR(check_no_self_overlap(*y, "y"));
  p.x_numel = numel(*x);
  p.y_numel = numel(*y);

  // Dense form: walk x's non-trivial dims as kept* reduced* kept* at most.
  p.outer = p.reduce = p.inner = 1;
  int phase = 0;  // 0: before the reduced run, 1: inside it, 2: after it
  p.dense = is_contiguous(*x) && is_contiguous(*y);
  for (int32_t d = 0; d < x->ndim && p.dense; ++d) {
    if (x->shape[d] == 1) continue;
    if (p.reduced[d]) {
      if (phase == 2) p.dense = false;
      phase = 1;
      p.reduce *= x->shape[d];
    } else {
      if (phase == 1) phase = 2;
      (phase == 0 ? p.outer : p.inner) *= x->shape[d];
    }
  }
  if (phase == 0) {  // nothing non-trivial reduced: every element is its own sum
    p.inner = p.outer;
    p.outer = 1;
  }
  *plan = p;
  return OPRT_STATUS_SUCCESS;
}

}  // namespace oprt

using namespace oprt;

extern "C" {

oprt_status_t oprt_create_reduce_sum_descriptor(oprt_reduce_sum_descriptor_t *desc, const oprt_tensor_layout_t *y,
                                                const oprt_tensor_layout_t *x, const int32_t *axes, int32_t num_axes,
                                                int32_t keepdims) {
  return create_op_descriptor(reduce_sum_kernels(), desc,
                              [&](ReduceSumPlan *plan) { return make_plan(y, x, axes, num_axes, keepdims, plan); });
}

oprt_status_t oprt_get_reduce_sum_workspace_size(oprt_reduce_sum_descriptor_t desc, size_t *bytes) {
  return get_workspace_size(desc, reduce_sum_kernels(), bytes);
}

oprt_status_t oprt_reduce_sum(oprt_reduce_sum_descriptor_t handle, void *workspace, size_t workspace_bytes, void *y,
                              const void *x, oprt_stream_t stream) {
  return execute_x_to_y(reduce_sum_kernels(), handle, workspace, workspace_bytes, y, x, stream,
                        /*allow_exact_alias=*/false,
                        [](const ReduceSumPlan &plan) { return XToY{plan.x, plan.y, plan.y_numel != 0}; });
}

oprt_status_t oprt_destroy_reduce_sum_descriptor(oprt_reduce_sum_descriptor_t desc) {
  return destroy_descriptor(desc, reduce_sum_kernels());
}

}  // extern "C"
