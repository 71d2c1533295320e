// Walking strided layouts on the CPU: dims (extents, and strides in elements for each of K operands that
// move together) visited in row-major order, with neighbouring dims merged where one stride steps
// through both, so that loops nest as shallowly as the layouts allow.
#ifndef OPS_COMMON_CPU_STRIDED_H_
#define OPS_COMMON_CPU_STRIDED_H_

#include <cstdint>

#include "operator_runtime/api.h"

namespace oprt::cpu {

template <int K>
struct Dims {
  int32_t ndim = 0;
  int64_t shape[OPRT_MAX_NDIM];
  int64_t stride[K][OPRT_MAX_NDIM];

  // Appends a dim (strides[k] for operand k); extent-1 dims are dropped, and a dim merges into the last
  // one when every operand's stride of the last one is this dim's stride times its extent.
  void push(int64_t extent, const int64_t (&strides)[K]) {
    if (extent == 1) return;
    bool merge = ndim > 0;
    for (int k = 0; k < K && merge; ++k) merge = stride[k][ndim - 1] == strides[k] * extent;
    if (!merge) {
      shape[ndim] = 1;
      ++ndim;
    }
    shape[ndim - 1] *= extent;
    for (int k = 0; k < K; ++k) stride[k][ndim - 1] = strides[k];
  }

  int64_t numel() const {
    int64_t n = 1;
    for (int32_t d = 0; d < ndim; ++d) n *= shape[d];
    return n;
  }
};

// Element offsets of each operand, from element `start` on in row-major order.
template <int K>
class Walk {
 public:
  Walk(const Dims<K> &dims, int64_t start) : dims_(dims) {
    for (int32_t d = dims.ndim - 1; d >= 0; --d) {
      index_[d] = start % dims.shape[d];
      start /= dims.shape[d];
      for (int k = 0; k < K; ++k) offset_[k] += index_[d] * dims.stride[k][d];
    }
  }

  int64_t operator[](int k) const { return offset_[k]; }

  void next() {
    for (int32_t d = dims_.ndim - 1; d >= 0; --d) {
      const bool carry = ++index_[d] == dims_.shape[d];
      for (int k = 0; k < K; ++k) offset_[k] += carry ? -dims_.stride[k][d] * (dims_.shape[d] - 1) : dims_.stride[k][d];
      if (!carry) return;
      index_[d] = 0;
    }
  }

 private:
  const Dims<K> &dims_;
  int64_t index_[OPRT_MAX_NDIM] = {};
  int64_t offset_[K] = {};
};

}  // namespace oprt::cpu

#endif  // OPS_COMMON_CPU_STRIDED_H_
