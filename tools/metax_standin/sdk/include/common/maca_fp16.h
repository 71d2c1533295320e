// STAND-IN for the MACA SDK's <common/maca_fp16.h>. Test-only (see ../mcr/mc_runtime.h).
// MACA's half type is __half, with CUDA's conversion names (__half2float, __float2half_rn, ...): MetaX's
// cu-bridge maps cuda_fp16.h onto this header by name. The stand-in is CUDA's header with the implicit
// conversions and operators switched off, so MACA paths must convert explicitly.
#ifndef OPRT_METAX_STANDIN_MACA_FP16_H_
#define OPRT_METAX_STANDIN_MACA_FP16_H_

#if !defined(__MACACC__)
#error "the MACA stand-in headers are for nvcc playing mxcc (tools/metax_standin/mxcc) only"
#endif

#define __CUDA_NO_HALF_CONVERSIONS__ 1
#define __CUDA_NO_HALF_OPERATORS__ 1
#define __CUDA_NO_HALF2_OPERATORS__ 1
#include <cuda_fp16.h>

#endif  // OPRT_METAX_STANDIN_MACA_FP16_H_
