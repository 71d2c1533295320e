/* Umbrella header: the whole public C API of operator_runtime. */
#ifndef OPERATOR_RUNTIME_OPERATOR_RUNTIME_H_
#define OPERATOR_RUNTIME_OPERATOR_RUNTIME_H_

#include "operator_runtime/api.h"
#include "operator_runtime/ops/copy.h"
#include "operator_runtime/ops/reduce_sum.h"
#include "operator_runtime/ops/relu.h"
#include "operator_runtime/ops/softmax.h"
#include "operator_runtime/ops/vector_add.h"

#endif
