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
// write both forms without the sum. The exact form is x * Phi(x), where the tail q = Phi(-|x|) =
// erfc(|x| / sqrt(2)) / 2 is computed directly (Phi(x) = q for x < 0, 1 - q for x >= 0); the tanh form is
// 0.5 * (1 + tanh(u)) = 1 / (1 + exp(-2u)).
// In float both take one reciprocal and one exp2 (with log2(e) folded into the constants), since gelu is
// compute-bound on the GPU with the library's erfcf and divisions; f64 keeps the library's functions.
// Same special values as torch: gelu(NaN) = NaN, gelu(inf) = inf, gelu(-inf) = -inf * 0 = NaN.
template <bool kTanhForm>
struct GeluFunctor {
  static constexpr int kArity = 1;
  // The exact form's math sets its speed on the GPU (half types at 89% of the copy peak with one pack a thread):
  // the device framework keeps more loads in flight for it (ops/common/cuda_dialect/elementwise.cuh,
  // ContiguousShape). The tanh form runs at the copy peak, and lost 2-25% in half types that way.
  static constexpr bool kMathBound = !kTanhForm;

  // Phi(-|x|) in float from Numerical Recipes' erfcc (erfc(a) = t exp(P(t) - a^2), t = 1 / (1 + a / 2),
  // relative error under 1.2e-7 in exact arithmetic), in base 2: with b = a sqrt(log2 e), the coefficients
  // of P times log2(e) and the 1/2 of Phi as the -1 in P's constant term, Phi(-|x|) = t 2^(P2(t) - b^2).
  // Relative error against float64, measured over every float: under 2.5e-6 for x >= -5, 1e-5 down to -11.
  OPRT_HOST_DEVICE static float lower_tail(float x) {
    const float b = fabsf(x) * 0.849321800f;      // |x| sqrt(log2 e / 2)
    const float t = fast_reciprocal(fmaf(b, 0.416277306f, 1.0f));  // 1 / (1 + |x| / (2 sqrt 2))
    float p = 0.246517298f;
    p = fmaf(p, t, -1.18611495f);
    p = fmaf(p, t, 2.14747446f);
    p = fmaf(p, t, -1.63775315f);
    p = fmaf(p, t, 0.402321582f);
    p = fmaf(p, t, -0.26875686f);
    p = fmaf(p, t, 0.139630057f);
    p = fmaf(p, t, 0.539700616f);
    p = fmaf(p, t, 1.4427292f);
    p = fmaf(p, t, -2.82574822f);
    return t * fast_exp2(fmaf(-b, b, p));
  }

  template <class C>
  OPRT_HOST_DEVICE C operator()(C x) const {
    if constexpr (sizeof(C) == sizeof(float)) {
      if constexpr (kTanhForm) {
        // exp(-2u) = 2^(x (k + k' x^2)), k = -2 log2(e) sqrt(2 / pi), k' = 0.044715 k
        return x * fast_reciprocal(1.0f + fast_exp2(x * fmaf(-0.102943240f, x * x, -2.30220820f)));
      } else {
        const float q = lower_tail(x);
        return x * (x >= 0.0f ? 1.0f - q : q);
      }
    } else if constexpr (kTanhForm) {
      const C u = C(0.7978845608028654) * (x + C(0.044715) * x * x * x);  // sqrt(2 / pi) * (x + 0.044715 x^3)
      return x / (C(1) + exp(C(-2) * u));
    } else {
      return C(0.5) * x * erfc(x * C(-0.7071067811865476));  // erfc(-x / sqrt(2)) = 2 Phi(x)
    }
  }
};

}  // namespace oprt

#endif  // OPS_GELU_GELU_H_
