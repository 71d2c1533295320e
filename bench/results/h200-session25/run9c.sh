#!/usr/bin/env bash
# Session 25, run 9, third call (carry .q3, .whl2): the last part, the wheel put together and every peer installed
# into /tmp/site, then the peers imported as run_ops imports them.
set -u
tools/gpu_peers_site.sh install .q3 .whl2 || exit $?
PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages python3 -c "
from liger_kernel.ops.softmax import LigerSoftmaxFunction
from quack.softmax import softmax_fwd
import torch
x = torch.randn(256, 1024, device='cuda', dtype=torch.float16)
for name, fn in (('liger', LigerSoftmaxFunction.apply), ('quack', softmax_fwd)):
    print(name, 'max error against torch', float((fn(x).float() - torch.softmax(x.float(), -1)).abs().max()))
"
