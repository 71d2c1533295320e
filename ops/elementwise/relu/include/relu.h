/* relu: y = x > 0 ? x : negative_slope * x (negative_slope = 0 is relu, otherwise leaky relu; NaN stays NaN).
 * Elementwise with any strides; x may broadcast to y's shape; y may alias x exactly. */
#ifndef OPERATOR_RUNTIME_OPS_RELU_H_
#define OPERATOR_RUNTIME_OPS_RELU_H_

#include "operator_runtime/api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct oprt_relu_descriptor *oprt_relu_descriptor_t;

OPRT_API oprt_status_t oprt_create_relu_descriptor(oprt_relu_descriptor_t *desc, const oprt_tensor_layout_t *y, const oprt_tensor_layout_t *x,
                                                   double negative_slope);
OPRT_API oprt_status_t oprt_get_relu_workspace_size(oprt_relu_descriptor_t desc, size_t *bytes);
OPRT_API oprt_status_t oprt_relu(oprt_relu_descriptor_t desc, void *workspace, size_t workspace_bytes, void *y, const void *x,
                               oprt_stream_t stream);
OPRT_API oprt_status_t oprt_destroy_relu_descriptor(oprt_relu_descriptor_t desc);

#ifdef __cplusplus
}
#endif

#endif
