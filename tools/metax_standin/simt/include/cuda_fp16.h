// The SIMT emulator's <cuda_fp16.h> (test-only): software __half with CUDA's conversion names.
#ifndef OPRT_SIMT_CUDA_FP16_H_
#define OPRT_SIMT_CUDA_FP16_H_
#include "oprt_simt_types.h"
#endif  // OPRT_SIMT_CUDA_FP16_H_
