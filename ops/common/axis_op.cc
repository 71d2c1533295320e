// make_axis_plan: the checks every operator along one axis shares, and the row bookkeeping its kernels use.
#include "ops/common/axis_op.h"

#include <algorithm>

namespace oprt {

oprt_status_t make_axis_plan(const Layout *y, const Layout *x, int32_t axis, AxisOutput kind, bool keepdim,
                             AxisPlan *plan) {
  OPRT_RETURN_IF_ERROR(check_layout(x, "x"));
  OPRT_RETURN_IF_ERROR(check_layout(y, "y"));
  OPRT_RETURN_IF_ERROR(check_same_dtype(*y, "y", *x, "x"));
  AxisPlan p = {};
  OPRT_RETURN_IF_ERROR(normalize_axis(axis, x->ndim, "axis", &p.axis));
  if (kind == AxisOutput::kRow) {
    OPRT_RETURN_IF_ERROR(check_same_shape(*y, "y", *x, "x"));
  } else {
    Layout expected = {};
    expected.dtype = x->dtype;
    for (int32_t d = 0; d < x->ndim; ++d) {
      if (d != p.axis) expected.shape[expected.ndim++] = x->shape[d];
      else if (keepdim) expected.shape[expected.ndim++] = 1;
    }
    if (y->ndim != expected.ndim || !std::equal(y->shape, y->shape + y->ndim, expected.shape)) {
      return fail(OPRT_STATUS_BAD_SHAPE, "y has shape %s but reducing x %s over axis %d (keepdim=%d) gives %s",
                  shape_string(*y).c_str(), shape_string(*x).c_str(), axis, keepdim, shape_string(expected).c_str());
    }
  }
  OPRT_RETURN_IF_ERROR(check_no_self_overlap(*y, "y"));

  p.dtype = x->dtype;
  p.x = *x;
  p.y = *y;
  p.rows = 1;
  p.dim = x->ndim == 0 ? 1 : x->shape[p.axis];
  p.x_step = x->ndim == 0 ? 0 : x->strides[p.axis];
  p.y_step = kind == AxisOutput::kRow && y->ndim > 0 ? y->strides[p.axis] : 0;
  // y's dim for x's dim d: the same index for a row op or a kept dim, one less past the axis when it is dropped.
  const bool drops_axis = kind == AxisOutput::kReduce && !keepdim;
  for (int32_t d = 0; d < x->ndim; ++d) {
    if (d == p.axis) continue;
    const int32_t yd = drops_axis && d > p.axis ? d - 1 : d;
    p.other_shape[p.other_ndim] = x->shape[d];
    p.x_strides[p.other_ndim] = x->strides[d];
    p.y_strides[p.other_ndim] = y->strides[yd];
    ++p.other_ndim;
    p.rows *= x->shape[d];
  }
  *plan = p;
  return OPRT_STATUS_SUCCESS;
}

}  // namespace oprt
