// Operators along one axis of x, the new_op kinds `row` and `reduce` (docs/how-to-add-an-operator.md):
//   row     y has x's shape; y's row r (its elements along `axis`) is computed from x's row r;
//   reduce  y has x's shape without `axis` (or with extent 1 there: keepdim); y's element r comes from x's row r.
// The plan says where each row starts in x and y and the stride along the axis, so one loop per row handles
// any strides with no workspace; the entry-point bodies (create / execute) are written here once.
#ifndef OPS_COMMON_AXIS_OP_H_
#define OPS_COMMON_AXIS_OP_H_

#include "ops/common/host_device.h"
#include "ops/runtime/layout.h"
#include "ops/runtime/operator.h"
#include "ops/runtime/status.h"

namespace oprt {

enum class AxisOutput { kRow, kReduce };

struct AxisPlan {
  oprt_dtype_t dtype;
  Layout x, y;             // the caller's layouts
  int32_t axis;            // normalized
  int64_t rows, dim;       // rows: x's element count / dim (the product of the other extents); dim: x's extent at axis
  int64_t x_step, y_step;  // elements between neighbours along the axis; y_step is 0 for a reduction
  // Row r's first element: r unravelled over x's other dims (row-major), dotted with each tensor's strides there.
  int32_t other_ndim;
  int64_t other_shape[OPRT_MAX_NDIM], x_strides[OPRT_MAX_NDIM], y_strides[OPRT_MAX_NDIM];
};

// Where row r starts in x and in y (element offsets).
OPRT_HOST_DEVICE void row_start(const AxisPlan &plan, int64_t r, int64_t *x_offset, int64_t *y_offset) {
  int64_t x_at = 0, y_at = 0;
  for (int32_t d = plan.other_ndim - 1; d >= 0; --d) {
    const int64_t i = r % plan.other_shape[d];
    r /= plan.other_shape[d];
    x_at += i * plan.x_strides[d];
    y_at += i * plan.y_strides[d];
  }
  *x_offset = x_at;
  *y_offset = y_at;
}

// Checks x and y ("x", "y") for an op of this kind along `axis` and fills the plan.
oprt_status_t make_axis_plan(const Layout *y, const Layout *x, int32_t axis, AxisOutput kind, bool keepdim,
                             AxisPlan *plan);

// The AxisPlan inside an op's plan: the plan itself, or its `axis_plan` member.
inline AxisPlan &axis_part(AxisPlan &plan) { return plan; }
inline const AxisPlan &axis_part(const AxisPlan &plan) { return plan; }
template <class Plan>
AxisPlan &axis_part(Plan &plan) {
  return plan.axis_plan;
}
template <class Plan>
const AxisPlan &axis_part(const Plan &plan) {
  return plan.axis_plan;
}

// What the entry points need to know about an axis operator: its kernel table and kind.
template <class K>
struct AxisOp {
  KernelTable<K> &(*kernels)();
  AxisOutput kind;
};

// oprt_create_<op>_descriptor. keepdim matters for reductions only. The plan is an AxisPlan or a struct with an
// AxisPlan `axis_plan` and the op's attributes, which set_attributes checks and stores first.
template <class K, class Handle, class SetAttributes = NoAttributes>
oprt_status_t create_axis_op(const AxisOp<K> &op, Handle *desc, const Layout *y, const Layout *x, int32_t axis,
                             bool keepdim, SetAttributes set_attributes = {}) {
  return create_op_descriptor(op.kernels(), desc, [&](typename K::Plan *plan) {
    OPRT_RETURN_IF_ERROR(set_attributes(plan));
    return make_axis_plan(y, x, axis, op.kind, keepdim, &axis_part(*plan));
  });
}

// oprt_<op>: checks the descriptor, workspace and data (a row op's y may be x itself; a reduction's y may not
// touch x), then runs the kernel unless there is no row.
template <class K, class Handle>
oprt_status_t execute_axis_op(const AxisOp<K> &op, Handle handle, void *workspace, size_t workspace_bytes, void *y,
                              const void *x, oprt_stream_t stream) {
  return execute_x_to_y(op.kernels(), handle, workspace, workspace_bytes, y, x, stream, op.kind == AxisOutput::kRow,
                        [](const typename K::Plan &whole) {
                          const AxisPlan &plan = axis_part(whole);
                          return XToY{plan.x, plan.y, plan.rows != 0};
                        });
}

}  // namespace oprt

#endif  // OPS_COMMON_AXIS_OP_H_
