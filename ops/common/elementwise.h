// The elementwise framework's backend-neutral half: validates an elementwise call and reduces its
// layouts to the fewest dims (broadcast inputs get stride 0, mergeable dims are merged), so that
// kernels see either one flat dense range (`contiguous`) or a short strided loop nest.
#ifndef OPS_COMMON_ELEMENTWISE_H_
#define OPS_COMMON_ELEMENTWISE_H_

#include <cstdint>

#include "operator_runtime/api.h"
#include "ops/common/host_device.h"
#include "ops/runtime/layout.h"

namespace oprt {

constexpr int kMaxElementwiseInputs = 2;

struct ElementwisePlan {
  oprt_dtype_t dtype;
  int32_t num_inputs;
  int64_t numel;
  // Coalesced iteration space: strides[0] is the output's, strides[1 + i] input i's (0 where broadcast).
  int32_t ndim;
  int64_t shape[OPRT_MAX_NDIM];
  int64_t strides[1 + kMaxElementwiseInputs][OPRT_MAX_NDIM];
  // Every operand is dense over the same order: element i of the output reads element i of each input.
  bool contiguous;
  // The caller's layouts, for the aliasing checks at execution time.
  Layout out;
  Layout in[kMaxElementwiseInputs];
};

// y = x. Backends run it on same-size unsigned integers, so every bit pattern (NaN payloads too)
// survives; copy and the gather/scatter steps of other ops' strided paths use it.
struct CopyFunctor {
  static constexpr int kArity = 1;
  template <class C>
  OPRT_HOST_DEVICE C operator()(C x) const {
    return x;
  }
};

// Calls f(Bits{}) with Bits the unsigned integer of dtype's size: how copies move elements.
template <class F>
auto dispatch_bits(oprt_dtype_t dtype, F &&f) {
  switch (oprt_dtype_size(dtype)) {
    case 2: return f(uint16_t{});
    case 8: return f(uint64_t{});
    default: return f(uint32_t{});  // f32 (dtypes are validated before any kernel runs)
  }
}

// Validates (layouts, one dtype, inputs broadcast to the output, output not self-overlapping) and plans.
oprt_status_t make_elementwise_plan(const Layout *out, const char *out_name, const Layout *const *inputs,
                                    const char *const *input_names, int32_t num_inputs, ElementwisePlan *plan);
// Data pointers non-null, output not partially overlapping any input (exact in-place aliasing is fine).
oprt_status_t check_elementwise_data(const ElementwisePlan &plan, const void *out, const char *out_name,
                                     const void *const *inputs, const char *const *input_names);

}  // namespace oprt

#endif  // OPS_COMMON_ELEMENTWISE_H_
