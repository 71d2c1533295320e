// reduce_sum's plan and kernel table.
#ifndef OPS_REDUCE_SUM_REDUCE_SUM_H_
#define OPS_REDUCE_SUM_REDUCE_SUM_H_

#include "ops/runtime/layout.h"
#include "ops/runtime/operator.h"

namespace oprt {

struct ReduceSumPlan {
  oprt_dtype_t dtype;
  Layout x, y;  // the caller's layouts
  int64_t x_numel, y_numel;
  bool reduced[OPRT_MAX_NDIM];  // per dim of x
  // Dense form, when x and y are contiguous and x's reduced dims (ignoring extent-1 dims) are one
  // consecutive run: x is [outer, reduce, inner] row-major and y is [outer, inner] row-major.
  // reduce == 1 means nothing is summed (a copy); inner == 1 is a row reduction.
  bool dense;
  int64_t outer, reduce, inner;
};
using ReduceSumKernel = Kernel<ReduceSumPlan, void *, const void *>;
KernelTable<ReduceSumKernel> &reduce_sum_kernels();

}  // namespace oprt

#endif  // OPS_REDUCE_SUM_REDUCE_SUM_H_
