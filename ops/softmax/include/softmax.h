/* softmax and log_softmax along one axis (in [-ndim, ndim)), numerically stable (max subtracted), torch
 * semantics for special values: a slice of all -inf gives NaN, +inf and NaN propagate. Same shape and dtype;
 * half types computed in f32. y may alias x exactly (in-place), not partially. */
#ifndef OPERATOR_RUNTIME_OPS_SOFTMAX_H_
#define OPERATOR_RUNTIME_OPS_SOFTMAX_H_

#include "operator_runtime/api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct oprt_softmax_descriptor *oprt_softmax_descriptor_t;

OPRT_API oprt_status_t oprt_create_softmax_descriptor(oprt_softmax_descriptor_t *desc, const oprt_tensor_layout_t *y, const oprt_tensor_layout_t *x,
                                              int32_t axis);
OPRT_API oprt_status_t oprt_get_softmax_workspace_size(oprt_softmax_descriptor_t desc, size_t *bytes);
OPRT_API oprt_status_t oprt_softmax(oprt_softmax_descriptor_t desc, void *workspace, size_t workspace_bytes, void *y, const void *x,
                               oprt_stream_t stream);
OPRT_API oprt_status_t oprt_destroy_softmax_descriptor(oprt_softmax_descriptor_t desc);

typedef struct oprt_log_softmax_descriptor *oprt_log_softmax_descriptor_t;

OPRT_API oprt_status_t oprt_create_log_softmax_descriptor(oprt_log_softmax_descriptor_t *desc, const oprt_tensor_layout_t *y, const oprt_tensor_layout_t *x,
                                              int32_t axis);
OPRT_API oprt_status_t oprt_get_log_softmax_workspace_size(oprt_log_softmax_descriptor_t desc, size_t *bytes);
OPRT_API oprt_status_t oprt_log_softmax(oprt_log_softmax_descriptor_t desc, void *workspace, size_t workspace_bytes, void *y, const void *x,
                               oprt_stream_t stream);
OPRT_API oprt_status_t oprt_destroy_log_softmax_descriptor(oprt_log_softmax_descriptor_t desc);

#ifdef __cplusplus
}
#endif

#endif
