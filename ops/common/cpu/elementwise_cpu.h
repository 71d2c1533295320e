// The elementwise framework on the CPU reference backend: one odometer loop over the plan's
// coalesced dims, applying a functor in the compute type (f32 for half types).
// A functor has `static constexpr int kArity` (1 or 2) and a templated operator() on the compute type.
#ifndef OPS_COMMON_CPU_ELEMENTWISE_CPU_H_
#define OPS_COMMON_CPU_ELEMENTWISE_CPU_H_

#include "ops/common/cpu/float_types.h"
#include "ops/common/elementwise.h"

namespace oprt::cpu {

// The loop for one storage type T (a float type, or an unsigned integer for raw copies).
template <class T, class Functor>
void elementwise_as(const ElementwisePlan &plan, const Functor &functor, T *y, const T *a, const T *b) {
  using C = ComputeType<T>;
  int64_t index[OPRT_MAX_NDIM] = {};
  int64_t offset[3] = {};  // output, input 0, input 1
  for (int64_t i = 0; i < plan.numel; ++i) {
    C value;
    if constexpr (Functor::kArity == 1) {
      value = functor(load(a + offset[1]));
    } else {
      value = functor(load(a + offset[1]), load(b + offset[2]));
    }
    store(y + offset[0], value);
    for (int32_t d = plan.ndim - 1; d >= 0; --d) {  // advance the odometer
      const bool carry = ++index[d] == plan.shape[d];
      for (int32_t k = 0; k <= Functor::kArity; ++k) {
        offset[k] += carry ? -plan.strides[k][d] * (plan.shape[d] - 1) : plan.strides[k][d];
      }
      if (!carry) break;
      index[d] = 0;
    }
  }
}

template <class Functor>
void elementwise(const ElementwisePlan &plan, const Functor &functor, void *out, const void *const *inputs) {
  dispatch_dtype(plan.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *b = Functor::kArity == 2 ? static_cast<const T *>(inputs[1]) : nullptr;
    elementwise_as(plan, functor, static_cast<T *>(out), static_cast<const T *>(inputs[0]), b);
  });
}

}  // namespace oprt::cpu

#endif  // OPS_COMMON_CPU_ELEMENTWISE_CPU_H_
