/* reduce_sum: y = x.sum(axis=axes, keepdims=keepdims) with numpy semantics.
 * axes: num_axes distinct axes in [-ndim, ndim); list all axes to reduce everything; num_axes == 0 reduces
 * nothing (a copy), as numpy's axis=(). y's shape must be the reduced shape (extent-1 dims kept iff keepdims).
 * Half types accumulate in f32 (f64 on the CPU reference). The result is deterministic run to run.
 * y must not overlap x. */
#ifndef OPERATOR_RUNTIME_OPS_REDUCE_SUM_H_
#define OPERATOR_RUNTIME_OPS_REDUCE_SUM_H_

#include "operator_runtime/api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct oprt_reduce_sum_descriptor *oprt_reduce_sum_descriptor_t;

OPRT_API oprt_status_t oprt_create_reduce_sum_descriptor(oprt_reduce_sum_descriptor_t *desc, const oprt_tensor_layout_t *y, const oprt_tensor_layout_t *x,
                                                 const int32_t *axes, int32_t num_axes, int32_t keepdims);
OPRT_API oprt_status_t oprt_get_reduce_sum_workspace_size(oprt_reduce_sum_descriptor_t desc, size_t *bytes);
OPRT_API oprt_status_t oprt_reduce_sum(oprt_reduce_sum_descriptor_t desc, void *workspace, size_t workspace_bytes, void *y, const void *x,
                               oprt_stream_t stream);
OPRT_API oprt_status_t oprt_destroy_reduce_sum_descriptor(oprt_reduce_sum_descriptor_t desc);

#ifdef __cplusplus
}
#endif

#endif
