// The SIMT emulator's <common/maca_bfloat16.h> (test-only): the nvcc stand-in's opaque __maca_bfloat16
// (tools/metax_standin/sdk/include/common/maca_bfloat16.h), which is plain C++ once the emulator has
// defined __host__, __device__ and __align__.
#ifndef OPRT_SIMT_MACA_BFLOAT16_H_
#define OPRT_SIMT_MACA_BFLOAT16_H_
#include "oprt_simt.h"
#include "../../../sdk/include/common/maca_bfloat16.h"
#endif  // OPRT_SIMT_MACA_BFLOAT16_H_
