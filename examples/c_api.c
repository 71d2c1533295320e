/* The C API on its own: softmax of a 4x8 matrix through descriptor create -> workspace size -> execute
 * -> destroy, on the CPU backend or (--backend nvidia) on the GPU with device memory and a stream.
 * Every call returns an oprt_status_t; oprt_last_error() says what went wrong. The last part asks for
 * something invalid on purpose to show what an error looks like (nothing is written to the output).
 * Run: bazel run //examples:c_api [-- --backend nvidia] */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "operator_runtime/api.h"
#include "operator_runtime/ops/softmax.h"

#define ROWS 4
#define COLS 8

/* Returns from main with a message when a call fails. */
#define CHECK(call)                                                                                  \
  do {                                                                                               \
    oprt_status_t status_ = (call);                                                                  \
    if (status_ != OPRT_STATUS_SUCCESS) {                                                            \
      fprintf(stderr, "%s failed: %s\n", #call, oprt_last_error());                                  \
      return 1;                                                                                      \
    }                                                                                                \
  } while (0)

static oprt_tensor_layout_t matrix_layout(void) {
  oprt_tensor_layout_t layout;
  memset(&layout, 0, sizeof(layout));
  layout.dtype = OPRT_DTYPE_F32;
  layout.ndim = 2;
  layout.shape[0] = ROWS, layout.shape[1] = COLS;
  layout.strides[0] = COLS, layout.strides[1] = 1; /* in elements, row-major */
  return layout;
}

int main(int argc, char **argv) {
  oprt_backend_t backend = OPRT_BACKEND_CPU;
  if (argc == 3 && strcmp(argv[1], "--backend") == 0 && strcmp(argv[2], "nvidia") == 0) backend = OPRT_BACKEND_NVIDIA;
  CHECK(oprt_set_backend(backend)); /* for this thread: fails with BACKEND_UNAVAILABLE without a GPU */
  printf("operator_runtime %s on backend %s\n", oprt_version(), oprt_backend_name(oprt_get_backend()));

  float x[ROWS * COLS], y[ROWS * COLS];
  for (int i = 0; i < ROWS * COLS; ++i) x[i] = (float)((i * 7) % 11) - 5.0f;

  /* 1. Describe the call once: layouts and the axis. A descriptor serves any buffers of these layouts. */
  oprt_tensor_layout_t layout = matrix_layout();
  oprt_softmax_descriptor_t desc;
  CHECK(oprt_create_softmax_descriptor(&desc, &layout, &layout, /*axis=*/-1));

  /* 2. Ask how much scratch memory it needs (0 for this shape; long rows on a GPU need some). */
  size_t workspace_bytes = 0;
  CHECK(oprt_get_softmax_workspace_size(desc, &workspace_bytes));

  /* 3. Memory and a stream of the active backend (host memory and a no-op stream on the CPU). */
  const size_t bytes = sizeof(x);
  void *dx, *dy, *workspace;
  oprt_stream_t stream;
  CHECK(oprt_stream_create(&stream));
  CHECK(oprt_malloc(&dx, bytes));
  CHECK(oprt_malloc(&dy, bytes));
  CHECK(oprt_malloc_async(&workspace, workspace_bytes, stream));
  CHECK(oprt_memcpy(dx, x, bytes, OPRT_MEMCPY_HOST_TO_DEVICE));

  /* 4. Execute on the stream, then wait for it and copy the result back. */
  CHECK(oprt_softmax(desc, workspace, workspace_bytes, dy, dx, stream));
  CHECK(oprt_free_async(workspace, stream));
  CHECK(oprt_stream_synchronize(stream));
  CHECK(oprt_memcpy(y, dy, bytes, OPRT_MEMCPY_DEVICE_TO_HOST));

  /* Check against a plain double-precision softmax. */
  double max_error = 0.0;
  for (int r = 0; r < ROWS; ++r) {
    double m = -INFINITY, s = 0.0;
    for (int c = 0; c < COLS; ++c) m = fmax(m, x[r * COLS + c]);
    for (int c = 0; c < COLS; ++c) s += exp(x[r * COLS + c] - m);
    for (int c = 0; c < COLS; ++c) max_error = fmax(max_error, fabs(y[r * COLS + c] - exp(x[r * COLS + c] - m) / s));
  }
  printf("softmax of a %dx%d matrix: max |error| %.2e %s\n", ROWS, COLS, max_error, max_error < 1e-6 ? "OK" : "MISMATCH");

  /* 5. An error on purpose: axis 2 of a 2-d tensor. The status says which kind, the message says why. */
  oprt_softmax_descriptor_t bad;
  oprt_status_t status = oprt_create_softmax_descriptor(&bad, &layout, &layout, /*axis=*/2);
  printf("axis=2 on a 2-d tensor -> status %d (%s): %s\n", status, oprt_status_string(status), oprt_last_error());

  /* 6. Destroy and free; a destroyed descriptor is reported, never used. */
  CHECK(oprt_destroy_softmax_descriptor(desc));
  status = oprt_destroy_softmax_descriptor(desc);
  printf("destroying it again -> %s\n", oprt_status_string(status));
  CHECK(oprt_free(dx));
  CHECK(oprt_free(dy));
  CHECK(oprt_stream_destroy(stream));
  return max_error < 1e-6 && status == OPRT_STATUS_BAD_DESCRIPTOR ? 0 : 1;
}
