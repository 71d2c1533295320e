// Copying between any two layouts of the same shape on the device: copy's kernel, and the gather /
// scatter that reduce_sum and softmax use to pass non-contiguous tensors through a dense buffer.
#ifndef OPS_COMMON_CUDA_DIALECT_STRIDED_COPY_CUH_
#define OPS_COMMON_CUDA_DIALECT_STRIDED_COPY_CUH_

#include <cstdint>

#include "ops/common/elementwise.h"
#include "ops/common/cuda_dialect/elementwise.cuh"

namespace oprt::gpu {

// Elements move as unsigned integers of their size, so every bit pattern survives (a round trip
// through f32 would canonicalize NaN payloads).
inline oprt_status_t launch_copy(const ElementwisePlan &plan, void *y, const void *x, oprt_stream_t stream) {
  return dispatch_bits(plan.dtype, [&](auto bits) {
    using Bits = decltype(bits);
    return launch_elementwise_as(plan, CopyFunctor{}, static_cast<Bits *>(y), static_cast<const Bits *>(x),
                                 static_cast<const Bits *>(nullptr), stream);
  });
}

// Copies the tensor `in` (data at in_data) into `out` (at out_data): same shape, any strides.
inline oprt_status_t launch_strided_copy(const Layout &out, void *out_data, const Layout &in, const void *in_data,
                                         oprt_stream_t stream) {
  ElementwisePlan plan = {};
  const Layout *inputs[] = {&in};
  const char *const names[] = {"source"};
  OPRT_RETURN_IF_ERROR(make_elementwise_plan(&out, "destination", inputs, names, 1, &plan));
  return launch_copy(plan, out_data, in_data, stream);
}

// Runs a kernel that needs dense operands on tensors that may be strided: gather, run, scatter.
// `in` (the input's elements in the order `run` reads them, any strides) is read in place when
// contiguous, else first gathered into `in_buffer`; `run(const T *dense_in, T *dense_out)` writes
// `out` directly when it is contiguous, else `out_buffer`, which is then scattered through out's
// strides. in_buffer may be out_buffer (`run` then works in place). Empty inputs are never gathered.
template <class T, class Run>
oprt_status_t gather_run_scatter(const Layout &in, const void *in_data, T *in_buffer, const Layout &out,
                                 void *out_data, T *out_buffer, Run &&run, oprt_stream_t stream) {
  const T *dense_in = static_cast<const T *>(in_data);
  if (!is_contiguous(in) && numel(in) > 0) {
    OPRT_RETURN_IF_ERROR(launch_strided_copy(contiguous_like(in), in_buffer, in, in_data, stream));
    dense_in = in_buffer;
  }
  const bool out_dense = is_contiguous(out);
  T *dense_out = out_dense ? static_cast<T *>(out_data) : out_buffer;
  OPRT_RETURN_IF_ERROR(run(dense_in, dense_out));
  if (out_dense) return OPRT_STATUS_SUCCESS;
  return launch_strided_copy(out, out_data, contiguous_like(out), dense_out, stream);
}

}  // namespace oprt::gpu

#endif  // OPS_COMMON_CUDA_DIALECT_STRIDED_COPY_CUH_
