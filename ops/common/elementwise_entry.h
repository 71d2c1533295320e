// The four C entry points of an elementwise operator (create / get_workspace_size / execute / destroy),
// written once. An op's .cc describes the op in one ElementwiseOp and keeps its C signatures, each a
// one-line call; ops/elementwise/relu/relu.cc is the model for a unary op with an attribute,
// ops/vector_add/vector_add.cc for a binary op without one:
//
//   static const ElementwiseOp<ReluKernel, 1> kRelu = {relu_kernels, "y", {"x"}};
//   oprt_create_relu_descriptor(desc, y, x, slope): return create_elementwise(kRelu, desc, y, {x}, set_slope);
//   oprt_get_relu_workspace_size(desc, bytes):      return get_workspace_size(desc, relu_kernels(), bytes);
//   oprt_relu(desc, ws, bytes, y, x, stream):       return execute_elementwise(kRelu, desc, ws, bytes, stream, y, x);
//   oprt_destroy_relu_descriptor(desc):             return destroy_descriptor(desc, relu_kernels());
//
// The plan is an ElementwisePlan, or a struct with an ElementwisePlan `elementwise` and the attributes.
// Attributes are checked and stored by a callable `oprt_status_t(Plan *)` run before the layouts are
// checked (so an invalid attribute is reported first); ops without attributes leave it out.
#ifndef OPS_COMMON_ELEMENTWISE_ENTRY_H_
#define OPS_COMMON_ELEMENTWISE_ENTRY_H_

#include "ops/common/elementwise.h"
#include "ops/runtime/layout.h"
#include "ops/runtime/operator.h"
#include "ops/runtime/status.h"

namespace oprt {

// What the entry points need to know about an elementwise operator of N inputs.
template <class K, int N>
struct ElementwiseOp {
  KernelTable<K> &(*kernels)();  // the op's kernel table
  const char *out_name;          // argument names, as error messages call them
  const char *input_names[N];
  bool exact_alias_is_noop = false;  // out == input 0 leaves nothing to do (copy)
};

// The ElementwisePlan inside an op's plan: the plan itself, or its `elementwise` member.
inline ElementwisePlan &elementwise_part(ElementwisePlan &plan) { return plan; }
inline const ElementwisePlan &elementwise_part(const ElementwisePlan &plan) { return plan; }
template <class Plan>
ElementwisePlan &elementwise_part(Plan &plan) {
  return plan.elementwise;
}
template <class Plan>
const ElementwisePlan &elementwise_part(const Plan &plan) {
  return plan.elementwise;
}

// oprt_create_<op>_descriptor: checks the attributes (set_attributes), then the layouts; plans; registers.
template <class K, int N, class Handle, class SetAttributes = NoAttributes>
oprt_status_t create_elementwise(const ElementwiseOp<K, N> &op, Handle *desc, const Layout *out,
                                 const Layout *const (&inputs)[N], SetAttributes set_attributes = {}) {
  return create_op_descriptor(op.kernels(), desc, [&](typename K::Plan *plan) {
    OPRT_RETURN_IF_ERROR(set_attributes(plan));
    return make_elementwise_plan(out, op.out_name, inputs, op.input_names, N, &elementwise_part(*plan));
  });
}

// oprt_<op>: checks the descriptor, workspace and data pointers, then runs the descriptor's kernel
// (nothing to run for an empty output). The stream comes before the data so the inputs can be a pack.
template <class K, int N, class Handle, class... Inputs>
oprt_status_t execute_elementwise(const ElementwiseOp<K, N> &op, Handle handle, void *workspace,
                                  size_t workspace_bytes, oprt_stream_t stream, void *out, const Inputs *...in) {
  static_assert(sizeof...(Inputs) == N, "one data pointer per input");
  clear_error();
  return guarded([&] {
    DescriptorRef<K> desc;
    OPRT_RETURN_IF_ERROR(acquire_for_execute(handle, op.kernels(), workspace, workspace_bytes, &desc));
    const ElementwisePlan &plan = elementwise_part(desc->plan);
    const void *inputs[] = {in...};
    OPRT_RETURN_IF_ERROR(check_elementwise_data(plan, out, op.out_name, inputs, op.input_names));
    if (plan.numel == 0) return OPRT_STATUS_SUCCESS;
    if (op.exact_alias_is_noop && out == inputs[0]) return OPRT_STATUS_SUCCESS;  // passed the check: exact alias
    return desc->kernel->execute(desc->plan, workspace, out, in..., stream);
  });
}

}  // namespace oprt

#endif  // OPS_COMMON_ELEMENTWISE_ENTRY_H_
