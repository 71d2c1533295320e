#include "ops/common/elementwise.h"

#include "ops/runtime/status.h"

namespace oprt {

oprt_status_t make_elementwise_plan(const Layout *out, const char *out_name, const Layout *const *inputs,
                                    const char *const *input_names, int32_t num_inputs, ElementwisePlan *plan) {
  OPRT_RETURN_IF_ERROR(check_layout(out, out_name));
  for (int32_t i = 0; i < num_inputs; ++i) {
    OPRT_RETURN_IF_ERROR(check_layout(inputs[i], input_names[i]));
    OPRT_RETURN_IF_ERROR(check_same_dtype(*out, out_name, *inputs[i], input_names[i]));
    OPRT_RETURN_IF_ERROR(check_broadcastable(*out, out_name, *inputs[i], input_names[i]));
  }
  OPRT_RETURN_IF_ERROR(check_no_self_overlap(*out, out_name));

  ElementwisePlan p = {};
  p.dtype = out->dtype;
  p.num_inputs = num_inputs;
  p.numel = numel(*out);
  p.out = *out;
  Layout aligned[kMaxElementwiseInputs];
  for (int32_t i = 0; i < num_inputs; ++i) {
    p.in[i] = *inputs[i];
    aligned[i] = broadcast_to(*inputs[i], *out);
  }
  // Drop extent-1 dims, then merge dim d into the previous kept dim when every operand steps through
  // them as one dimension (stride[prev] == stride[d] * shape[d]).
  const int32_t operands = 1 + num_inputs;
  auto stride_of = [&](int32_t operand, int32_t d) { return operand == 0 ? out->strides[d] : aligned[operand - 1].strides[d]; };
  for (int32_t d = 0; d < out->ndim; ++d) {
    if (out->shape[d] == 1) continue;
    bool merge = p.ndim > 0;
    for (int32_t k = 0; merge && k < operands; ++k) {
      merge = p.strides[k][p.ndim - 1] == stride_of(k, d) * out->shape[d];
    }
    if (merge) {
      p.shape[p.ndim - 1] *= out->shape[d];
      for (int32_t k = 0; k < operands; ++k) p.strides[k][p.ndim - 1] = stride_of(k, d);
    } else {
      p.shape[p.ndim] = out->shape[d];
      for (int32_t k = 0; k < operands; ++k) p.strides[k][p.ndim] = stride_of(k, d);
      ++p.ndim;
    }
  }
  p.contiguous = p.ndim == 0;
  if (p.ndim == 1) {
    p.contiguous = true;
    for (int32_t k = 0; k < operands; ++k) p.contiguous = p.contiguous && p.strides[k][0] == 1;
  }
  *plan = p;
  return OPRT_STATUS_SUCCESS;
}

oprt_status_t check_elementwise_data(const ElementwisePlan &plan, const void *out, const char *out_name,
                                     const void *const *inputs, const char *const *input_names) {
  OPRT_RETURN_IF_ERROR(check_data(out, plan.out, out_name));
  for (int32_t i = 0; i < plan.num_inputs; ++i) {
    OPRT_RETURN_IF_ERROR(check_data(inputs[i], plan.in[i], input_names[i]));
    OPRT_RETURN_IF_ERROR(
        check_no_partial_overlap(plan.out, out, out_name, plan.in[i], inputs[i], input_names[i], /*allow_exact_alias=*/true));
  }
  return OPRT_STATUS_SUCCESS;
}

}  // namespace oprt
