// gelu's plan (a one-input elementwise plan and the form), kernel table, and the functor every backend runs.
#ifndef OPS_GELU_GELU_H_
#define OPS_GELU_GELU_H_

#include "ops/common/elementwise.h"
#include "ops/common/host_device.h"
#include "ops/runtime/operator.h"

#include <math.h>

namespace oprt {

struct GeluPlan {
  ElementwisePlan elementwise;
  bool tanh_form;  // approximate = OPRT_GELU_TANH
};
using GeluKernel = Kernel<GeluPlan, void *, const void *>;
KernelTable<GeluKernel> &gelu_kernels();

// gelu of one element, shared verbatim by the CPU and GPU kernels (OPRT_HOST_DEVICE). C is the compute
// type: float for float32/float16/bfloat16 data, double for float64; the framework loads and stores.
// torch's 1 + erf(x / sqrt(2)) and 1 + tanh(u) cancel for x < -3 (most of a float's digits are lost), so we
// write both forms without the sum: 1 + erf(z) = erfc(-z) and 0.5 * (1 + tanh(u)) = 1 / (1 + exp(-2u)).
// Same special values as torch: gelu(NaN) = NaN, gelu(inf) = inf, gelu(-inf) = -inf * 0 = NaN.
template <bool kTanhForm>
struct GeluFunctor {
  static constexpr int kArity = 1;
  template <class C>
  OPRT_HOST_DEVICE C operator()(C x) const {
    constexpr bool kFloat = sizeof(C) == sizeof(float);  // erfcf / expf: the float versions, host and device
    if constexpr (kTanhForm) {
      const C u = C(0.7978845608028654) * (x + C(0.044715) * x * x * x);  // sqrt(2 / pi) * (x + 0.044715 x^3)
      return x / (C(1) + (kFloat ? expf(C(-2) * u) : exp(C(-2) * u)));
    } else {
      const C z = x * C(-0.7071067811865476);  // -x / sqrt(2)
      return C(0.5) * x * (kFloat ? erfcf(z) : erfc(z));
    }
  }
};

}  // namespace oprt

#endif  // OPS_GELU_GELU_H_
