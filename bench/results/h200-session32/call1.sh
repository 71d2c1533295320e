#!/usr/bin/env bash
# Session 32, first call: which card and its memory per SM; main's (d77671f) kernel for 8 KB rows by oprt.explain and
# test_rows8k on nvidia; on an H200, run_ops A/B base (row blocks) / cand1 (8 KB rows always as 256x2 slices).
OUT=$1
{ nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  python3 -c "import cupy; r=cupy.cuda.runtime; a=lambda n: r.deviceGetAttribute(n, 0); c, b, s = a(36), a(37), a(16); print('memory clock kHz', c, 'bus bits', b, 'SMs', s, 'L2 bytes', a(38), 'GB/s per SM %.1f' % (2e3 * c * b / 8 / s / 1e9))"
  rm -rf /tmp/oprt-site && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-site dist/main/*.whl
  PYTHONPATH=/tmp/oprt-site:$PWD python3 -c "
import torch, operator_runtime as oprt; oprt.set_backend('nvidia')
for dt, n in ((torch.float16, 4096), (torch.bfloat16, 4096), (torch.float32, 2048), (torch.float32, 4096)):
    print(dt, n, [str(l) for l in oprt.explain(oprt.reduce_sum, torch.randn(4096, n, device='cuda', dtype=dt), axis=-1).launches])"
  PYTHONPATH=/tmp/oprt-site:$PWD OPRT_TEST_BACKENDS=nvidia timeout 60 python3 -m pytest -q -p no:cacheprovider ops/reduce_sum/test_rows8k.py 2>&1 | tail -n 2
} > $OUT/device.txt 2>&1
cat $OUT/device.txt
if grep -q H200 $OUT/device.txt; then
  timeout 330 tools/gpu_ab.sh dist/base dist/cand1 $OUT ${ROUNDS:-3} --op reduce_sum --cases 4096x4096 --peers torch_compile
  cat $OUT/ab-summary.txt 2>/dev/null
else
  timeout 360 tools/gpu_suites.sh /tmp/oprt-site $OUT/suites nvidia | tail -4
  tar czf $OUT/suites.tgz -C $OUT suites && rm -rf $OUT/suites
fi
