// The elementwise framework on the CPU reference backend. The plan's coalesced iteration space, in
// row-major order, is split across threads; each piece runs along the last coalesced dim in blocks of
// kBlock elements: inputs converted to the compute type (f32 for half types) into buffers, the functor
// applied over the whole block (a fixed-length loop, which the compiler vectorizes), the results rounded
// once into the output. A functor has `static constexpr int kArity` (1 or 2) and a templated operator()
// on the compute type.
#ifndef OPS_COMMON_CPU_ELEMENTWISE_CPU_H_
#define OPS_COMMON_CPU_ELEMENTWISE_CPU_H_

#include <algorithm>
#include <type_traits>

#include "ops/common/cpu/float_types.h"
#include "ops/common/cpu/strided.h"
#include "ops/common/cpu/thread_pool.h"
#include "ops/common/cpu/vector_math.h"
#include "ops/common/elementwise.h"

namespace oprt::cpu {

constexpr int64_t kBlock = 256;

// The n elements p[0], p[stride], ... as a full block of C: p itself when it already is one, else
// converted into buffer, zeros after the first n.
template <class C, class T>
const C *block_of(const T *p, int64_t stride, int64_t n, C *buffer) {
  if constexpr (std::is_same_v<C, T>) {
    if (stride == 1 && n == kBlock) return p;
  }
  gather(p, stride, n, buffer);
  std::fill(buffer + n, buffer + kBlock, C(0));
  return buffer;
}

// y[i * sy] = functor(a[i * sa], b[i * sb]) for i < n.
template <class T, class Functor>
void elementwise_run(const Functor &functor, T *y, int64_t sy, const T *a, int64_t sa, const T *b, int64_t sb,
                     int64_t n) {
  using C = ComputeType<T>;
  C a_buffer[kBlock], b_buffer[kBlock], result[kBlock];
  for (int64_t i = 0; i < n; i += kBlock) {
    const int64_t m = std::min(kBlock, n - i);
    const C *av = block_of(a + i * sa, sa, m, a_buffer);
    const C *bv = Functor::kArity == 2 ? block_of(b + i * sb, sb, m, b_buffer) : nullptr;
    C *out = result;
    if constexpr (std::is_same_v<C, T>) {
      if (sy == 1 && m == kBlock) out = y + i;  // straight into y
    }
    // y may be a or b itself (in place), never a shifted copy: no iteration reads what another wrote.
#pragma GCC ivdep
    for (int64_t k = 0; k < kBlock; ++k) {
      if constexpr (Functor::kArity == 1) {
        out[k] = functor(av[k]);
      } else {
        out[k] = functor(av[k], bv[k]);
      }
    }
    if (out == result) scatter(result, y + i * sy, sy, m);
  }
}

// The loop for one storage type T (a float type, or an unsigned integer for raw copies).
template <class T, class Functor>
void elementwise_as(const ElementwisePlan &plan, const Functor &functor, T *y, const T *a, const T *b) {
  // Runs along the last dim (the whole tensor when it is contiguous); `rows` walks the dims before it.
  const int32_t last = plan.ndim - 1;
  const int64_t run_length = plan.ndim > 0 ? plan.shape[last] : 1;
  const int64_t sy = plan.ndim > 0 ? plan.strides[0][last] : 0, sa = plan.ndim > 0 ? plan.strides[1][last] : 0,
                sb = plan.ndim > 0 ? plan.strides[2][last] : 0;
  Dims<3> rows;
  for (int32_t d = 0; d < last; ++d) rows.push(plan.shape[d], {plan.strides[0][d], plan.strides[1][d], plan.strides[2][d]});
  parallel_for(plan.numel, 1, [&](int64_t begin, int64_t end, int) {
    Walk<3> row(rows, begin / run_length);
    for (int64_t i = begin; i < end; row.next()) {
      const int64_t column = i % run_length, n = std::min(run_length - column, end - i);
      elementwise_run(functor, y + row[0] + column * sy, sy, a + row[1] + column * sa, sa, b + row[2] + column * sb,
                      sb, n);
      i += n;
    }
  });
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
