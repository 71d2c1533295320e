/* operator_runtime public C API: status codes, dtypes, tensor layouts, backends, memory and streams.
 *
 * Every operator follows one contract (see ops/<op>.h):
 *   oprt_create_<op>_descriptor(&desc, <layouts...>, <attributes...>)  validates once, copies the layouts
 *   oprt_get_<op>_workspace_size(desc, &bytes)
 *   oprt_<op>(desc, workspace, workspace_bytes, <data pointers...>, stream)
 *   oprt_destroy_<op>_descriptor(desc)
 * A descriptor belongs to the backend that was active when it was created. On any error the function
 * returns a non-zero oprt_status_t, oprt_last_error() says what was wrong, and no output is written.
 *
 * Thread safety: every function may be called from any thread. The active backend and the last error
 * are per thread. A descriptor handle is an opaque id that is never reused: once destroyed it is
 * reported as OPRT_STATUS_BAD_DESCRIPTOR forever, and a descriptor destroyed while another thread
 * executes it lives until that execution returns. No C++ exception leaves the library. */
#ifndef OPERATOR_RUNTIME_API_H_
#define OPERATOR_RUNTIME_API_H_

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define OPRT_API __declspec(dllexport)
#else
#define OPRT_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The enums are int32_t-sized in C; C++ gives them that underlying type explicitly, so a caller's
 * out-of-range value (e.g. a dtype of 77) is an ordinary integer the library rejects, not undefined
 * behaviour. */
#ifdef __cplusplus
#define OPRT_ENUM(name) enum name : int32_t
#else
#define OPRT_ENUM(name) enum name
#endif

typedef OPRT_ENUM(oprt_status_t) {
  OPRT_STATUS_SUCCESS = 0,
  OPRT_STATUS_NULL_POINTER = 1,           /* a required pointer argument is NULL */
  OPRT_STATUS_INVALID_ARGUMENT = 2,       /* e.g. axis out of range, bad attribute, bad enum value */
  OPRT_STATUS_BAD_DTYPE = 3,              /* unknown dtype, dtype mismatch between tensors, unsupported here */
  OPRT_STATUS_BAD_SHAPE = 4,              /* rank > OPRT_MAX_NDIM, negative extent, shapes that do not match */
  OPRT_STATUS_BAD_STRIDES = 5,            /* negative strides, self-overlapping output, overlapping in/out */
  OPRT_STATUS_INSUFFICIENT_WORKSPACE = 6, /* workspace smaller than oprt_get_<op>_workspace_size */
  OPRT_STATUS_NOT_SUPPORTED = 7,          /* valid request this backend does not implement */
  OPRT_STATUS_BACKEND_UNAVAILABLE = 8,    /* backend not compiled in, or no device present */
  OPRT_STATUS_OUT_OF_MEMORY = 9,
  OPRT_STATUS_DEVICE_ERROR = 10,          /* the device runtime reported an error (launch, copy, sync) */
  OPRT_STATUS_BAD_DESCRIPTOR = 11,        /* NULL/destroyed descriptor, or one of another operator */
  OPRT_STATUS_INTERNAL = 12,              /* a bug in the library (an unexpected exception), reported not raised */
} oprt_status_t;

typedef OPRT_ENUM(oprt_dtype_t) {
  OPRT_DTYPE_F32 = 0,
  OPRT_DTYPE_F16 = 1,  /* IEEE binary16; computed in f32 */
  OPRT_DTYPE_BF16 = 2, /* bfloat16; computed in f32 */
  OPRT_DTYPE_F64 = 3,
} oprt_dtype_t;

typedef OPRT_ENUM(oprt_backend_t) {
  OPRT_BACKEND_CPU = 0, /* reference backend, always compiled in */
  OPRT_BACKEND_NVIDIA = 1,
  OPRT_BACKEND_METAX = 2,
} oprt_backend_t;
#define OPRT_BACKEND_COUNT 3

#define OPRT_MAX_NDIM 8

/* Layout of a tensor: dtype, rank and per-dimension extent and stride, both counted in ELEMENTS.
 * Strides may be 0 (broadcast inputs) but not negative. ndim == 0 is a scalar (one element).
 * The data pointer of a tensor view is passed at execution time, so one descriptor serves many
 * buffers of the same layout (this is what lets bindings cache descriptors). */
typedef struct {
  oprt_dtype_t dtype;
  int32_t ndim;
  int64_t shape[OPRT_MAX_NDIM];
  int64_t strides[OPRT_MAX_NDIM];
} oprt_tensor_layout_t;

typedef void *oprt_stream_t; /* NULL is the backend's default stream; the CPU backend runs synchronously */

OPRT_API const char *oprt_status_string(oprt_status_t status);
/* Detail of the last error on the calling thread ("" after a success). Valid until the next call. */
OPRT_API const char *oprt_last_error(void);
OPRT_API size_t oprt_dtype_size(oprt_dtype_t dtype); /* 0 for an unknown dtype */
OPRT_API const char *oprt_version(void);

/* Backends. The active backend is per thread, like CUDA's current device: oprt_set_backend changes it
 * for the calling thread only, and every thread starts on OPRT_BACKEND_CPU. Descriptors keep the
 * backend they were created on, whatever thread executes them. */
OPRT_API int oprt_backend_compiled(oprt_backend_t backend);  /* kernels linked into this library */
OPRT_API int oprt_backend_available(oprt_backend_t backend); /* compiled AND a device is usable */
OPRT_API oprt_status_t oprt_set_backend(oprt_backend_t backend);
OPRT_API oprt_backend_t oprt_get_backend(void);
OPRT_API const char *oprt_backend_name(oprt_backend_t backend);
OPRT_API oprt_status_t oprt_device_name(char *buffer, size_t buffer_bytes); /* of the active backend */

/* Kernel variants: an operator may have more than one kernel on a backend, e.g. "cute" (CuTe, from
 * CUTLASS) beside the hand-written "default". Per thread, like the backend; a descriptor keeps the
 * variant it was created with, and creating one for a variant its operator lacks fails with
 * NOT_SUPPORTED naming the variants it has. Names are up to 31 letters, digits or '_'. */
OPRT_API oprt_status_t oprt_set_kernel_variant(const char *name); /* NULL or "" is "default" */
OPRT_API const char *oprt_get_kernel_variant(void);
/* What the calling thread's last execute call launched, one line per kernel:
 * "<kernel> grid=(x,y,z) block=(x,y,z) shared=<dynamic shared bytes>"; "" when it launched none
 * (the CPU backend, an empty tensor, an error). Valid until that thread's next execute. */
OPRT_API const char *oprt_last_launches(void);

/* Memory and streams of the calling thread's ACTIVE backend (host memory on the CPU backend). */
typedef OPRT_ENUM(oprt_memcpy_kind_t) {
  OPRT_MEMCPY_HOST_TO_HOST = 0,
  OPRT_MEMCPY_HOST_TO_DEVICE = 1,
  OPRT_MEMCPY_DEVICE_TO_HOST = 2,
  OPRT_MEMCPY_DEVICE_TO_DEVICE = 3,
} oprt_memcpy_kind_t;

OPRT_API oprt_status_t oprt_malloc(void **ptr, size_t bytes); /* *ptr = NULL for bytes == 0 */
OPRT_API oprt_status_t oprt_free(void *ptr);                  /* NULL is a no-op */
/* Stream-ordered memory, e.g. a workspace: usable by work queued on `stream` after the call, and given
 * back once the work queued on `stream` before oprt_free_async has finished. So one stream never
 * shares it with another, whatever thread enqueues. (CPU: plain host memory, the stream is ignored.) */
OPRT_API oprt_status_t oprt_malloc_async(void **ptr, size_t bytes, oprt_stream_t stream); /* NULL for 0 bytes */
OPRT_API oprt_status_t oprt_free_async(void *ptr, oprt_stream_t stream);                  /* NULL is a no-op */
OPRT_API oprt_status_t oprt_memcpy(void *dst, const void *src, size_t bytes, oprt_memcpy_kind_t kind);
OPRT_API oprt_status_t oprt_memcpy_async(void *dst, const void *src, size_t bytes, oprt_memcpy_kind_t kind,
                                         oprt_stream_t stream);
OPRT_API oprt_status_t oprt_memset(void *dst, int value, size_t bytes);
OPRT_API oprt_status_t oprt_stream_create(oprt_stream_t *stream);
OPRT_API oprt_status_t oprt_stream_synchronize(oprt_stream_t stream);
OPRT_API oprt_status_t oprt_stream_destroy(oprt_stream_t stream);
OPRT_API oprt_status_t oprt_device_synchronize(void);

#ifdef __cplusplus
}
#endif

#endif /* OPERATOR_RUNTIME_API_H_ */
