"""Lab softmax_flush: does the L2 flush decide who leads the 4096-column softmax rows?

    cd bench/lab && python3 softmax_flush.py       # on the GPU machine (cubin from build.sh softmax_square.cu)

Under ncu (which invalidates L2 before each kernel) our 4096x4096 f16 kernel took 16.67 us and
Liger-Kernel's 16.74 (bench/results/h200-session8/), while run_ops, whose flush writes 256 MB (so L2
is full of dirty lines when the kernel starts), has us at 18.6 against Liger's 16.7 in every run since
session 4. Here each implementation is timed on the same tensors by two timers: run_ops's (a write
flush: bitwise_not_ of 256 MB) and one whose flush only reads 256 MB (L2 full of clean lines), on
normal data and on normal data times 3. The implementations: ours (the library, through
operator_runtime), Liger, QuACK, and softmax_square.cu's one-row-per-block kernels with Liger's shape,
two reductions and .cs stores, with plain loads (l0) or Liger's `.ca` loads (l5, LDG.E.128.STRONG.SM).
"""

import os
import sys
import time

import numpy as np
import torch

import lab

SHAPES = [((4096, 4096), "float16"), ((4096, 4096), "bfloat16"), ((4096, 4096), "float32"),
          ((8192, 8192), "float16"), ((32768, 1024), "float32"), ((16384, 256), "float16")]
LAB_KERNELS = {  # (rows, cols, dtype) -> [(variant, kernel name, threads)]
    "half4096": [("lab t256x2 l0 st.cs", "sq_%s_t256_p2_b8_r0_l0_s1_f0", 256),
                 ("lab t256x2 l5(.ca) st.cs", "sq_%s_t256_p2_b8_r0_l5_s1_f0", 256),
                 ("lab t256x2 l5(.ca) st", "sq_%s_t256_p2_b8_r0_l5_s0_f0", 256)],
    "f324096": [("lab t256x4 l0 st.cs", "sq_%s_t256_p4_b8_r0_l0_s1_f0", 256),
                ("lab t256x4 l5(.ca) st.cs", "sq_%s_t256_p4_b8_r0_l5_s1_f0", 256),
                ("lab t256x4 l5(.ca) st", "sq_%s_t256_p4_b8_r0_l5_s0_f0", 256)],
}
SHORT = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}


def read_flush_timer():
    """run_ops's DeviceTimer with a flush that reads the buffer instead of rewriting it."""
    base = type(lab.timer())

    class ReadFlushTimer(base):
        def flush(self):
            self.flush_sink = self.flush_buffer.max()

    return ReadFlushTimer(torch)


def implementations(module):
    import operator_runtime as oprt

    impls = [("ours (library)", lambda x, y: oprt.softmax(x, axis=-1, out=y))]
    try:
        from liger_kernel.ops.softmax import LigerSoftmaxFunction

        impls.append(("liger", lambda x, y: LigerSoftmaxFunction.apply(x)))
    except ImportError as error:
        print("liger absent:", error)
    try:
        from quack.softmax import softmax_fwd

        impls.append(("quack", lambda x, y: softmax_fwd(x)))
    except ImportError as error:
        print("quack absent:", error)
    return impls


def main():
    import operator_runtime as oprt

    module = lab.load("softmax_square")
    timers = {"write flush": lab.timer(), "read flush": read_flush_timer()}
    start, rows_out = time.perf_counter(), []
    with oprt.backend("nvidia"):
        for (rows, cols), dtype in SHAPES:
            label = "%dx%d" % (rows, cols)
            impls = list(implementations(module))
            key = ("f32" if dtype == "float32" else "half") + str(cols)
            for variant, name, threads in LAB_KERNELS.get(key, []):
                kernel = module.kernel(name % SHORT[dtype])
                impls.append((variant, lambda x, y, k=kernel, t=threads, r=rows, c=cols: k.launch(r, t, x, y, r, c)))
            for scale in (1.0, 3.0):
                gen = torch.Generator(device="cuda").manual_seed(1234 + rows)
                x = (torch.randn(rows, cols, device="cuda", generator=gen) * scale).to(getattr(torch, dtype))
                expected = torch.softmax(x.double() if dtype == "float32" else x.float(), dim=-1)
                y = torch.empty_like(x)
                for variant, fn in impls:
                    if variant == "liger" and cols > 65536:
                        continue
                    row = {"shape": label, "dtype": dtype, "data": "randn*%g" % scale, "variant": variant}
                    try:
                        y.fill_(float("nan"))
                        out = fn(x, y)
                        torch.cuda.synchronize()
                        lab.check("%s %s %s" % (label, dtype, variant), y if out is None else out, expected, dtype)
                        for timer_name, timer in timers.items():
                            m = timer.measure(lambda: fn(x, y))
                            q = np.percentile(m["device_us"], [20, 50, 80])
                            row[timer_name] = {"p20": float(q[0]), "p50": float(q[1]), "p80": float(q[2])}
                        row["status"] = "ok"
                    except Exception as error:  # noqa: BLE001
                        row["status"] = "error: %s" % str(error).splitlines()[0][:200]
                    rows_out.append(row)
                    print("%-10s %-9s %-8s %-26s %s" % (label, dtype, row["data"], variant, "  ".join(
                        "%s p50 %7.2f (p20 %7.2f p80 %7.2f)" % (t, row[t]["p50"], row[t]["p20"], row[t]["p80"])
                        for t in timers if t in row) or row["status"]), flush=True)
                del x, expected, y
                torch.cuda.empty_cache()
    print("(%.0f s)" % (time.perf_counter() - start))
    lab.save("softmax_flush", rows_out)


if __name__ == "__main__":
    sys.exit(main())
