"""A/A check of the interleaved device timing, for the short half row sums where run_ops and the labs disagree
(bench/notes/reduce-sum-tuning.md, "Session 33"): the same implementation under two names must time alike, and
torch.compile's ratio to ours should not depend on how many implementations share the loop. Each shape: ours
(oprt.reduce_sum) and torch.compile each under two names, timed as run_ops times a row (lab.time_interleaved);
then the same four with 10 more names for ours (the size of a lab's loop).

    PYTHONPATH=<installed wheel>:$PWD python3 bench/lab/aa_timing.py [rounds]    # on the GPU machine
"""
import sys

import lab

SHAPES = [(16384, 256), (8192, 512)]


def main(rounds=2):
    import torch
    import torch._inductor.config as inductor_config

    import operator_runtime as oprt

    inductor_config.autotune_local_cache = False  # as run_ops: autotuned in the process that times
    out = []
    for rows, cols in SHAPES:
        x = torch.randn(rows, cols, dtype=torch.float16, device="cuda")
        torch._dynamo.reset()
        compiled = torch.compile(lambda t: t.sum(-1), dynamic=False, fullgraph=True)
        pair = {"torch.compile": lambda: compiled(x), "torch.compile again": lambda: compiled(x),
                "ours": lambda: oprt.reduce_sum(x, axis=-1), "ours again": lambda: oprt.reduce_sum(x, axis=-1)}
        fillers = {"ours filler %d" % k: pair["ours"] for k in range(10)}
        for loop, fns in (("4 names", pair), ("14 names", dict(pair, **fillers))):
            label = "%dx%d f16 %s" % (rows, cols, loop)
            out += lab.time_interleaved(fns, rounds, {"shape": "%dx%d" % (rows, cols), "dtype": "float16",
                                                      "loop": loop}, x.numel() * 2 + rows * 2, label)
        lab.save("aa_timing", out)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
