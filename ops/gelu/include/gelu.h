/* gelu: y = x * Phi(x), elementwise, Phi the standard normal CDF (torch.nn.functional.gelu):
 *   approximate = OPRT_GELU_EXACT (0): 0.5 * x * (1 + erf(x / sqrt(2)))
 *   approximate = OPRT_GELU_TANH  (1): 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
 * Any strides; x may broadcast to y's shape; y may alias x exactly. */
#ifndef OPERATOR_RUNTIME_OPS_GELU_H_
#define OPERATOR_RUNTIME_OPS_GELU_H_

#include "operator_runtime/api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct oprt_gelu_descriptor *oprt_gelu_descriptor_t;

enum { OPRT_GELU_EXACT = 0, OPRT_GELU_TANH = 1 };

OPRT_API oprt_status_t oprt_create_gelu_descriptor(oprt_gelu_descriptor_t *desc, const oprt_tensor_layout_t *y,
                                                const oprt_tensor_layout_t *x, int32_t approximate);
OPRT_API oprt_status_t oprt_get_gelu_workspace_size(oprt_gelu_descriptor_t desc, size_t *bytes);
OPRT_API oprt_status_t oprt_gelu(oprt_gelu_descriptor_t desc, void *workspace, size_t workspace_bytes, void *y,
                                const void *x, oprt_stream_t stream);
OPRT_API oprt_status_t oprt_destroy_gelu_descriptor(oprt_gelu_descriptor_t desc);

#ifdef __cplusplus
}
#endif

#endif
