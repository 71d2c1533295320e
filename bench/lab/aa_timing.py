"""A/A check of the interleaved device timing, for the short half row sums where run_ops and the labs disagree
(bench/notes/reduce-sum-tuning.md, "Session 33"). Each shape times ours (oprt.reduce_sum) and torch.compile, each
under two names (the same implementation under two names must time alike), as run_ops times a row
(lab.time_interleaved), with x made in half as run_ops makes it. Experiments, each a loop beside that one:
  loop    the same four and 10 more names for ours (the size of a lab's loop)
  made    x converted from a float tensor, as the labs make it
  launch  the same four and the library's tile kernel launched from lab reduce_tile's cubin by cupy, as the labs
          launch it (the same SASS as the library's), with the lab's best tile shape of the row
  kinds   the same four and every other kernel of lab reduce_tile for the row (about 10 distinct kernels, as in
          that lab's loop, where torch.compile times 3-5% slower than here)

    PYTHONPATH=<installed wheel>:$PWD python3 bench/lab/aa_timing.py ROUNDS [loop] [made] [launch] [kinds]   # on the GPU
"""
import sys

import lab

SHAPES = [(16384, 256), (8192, 512)]
LAB_BEST = {256: "tile lanes 8 packs 4 rows 1 block 64", 512: "tile lanes 16 packs 4 rows 2 block 64"}


def main(rounds=2, experiments=("loop", "made")):
    import torch

    import operator_runtime as oprt

    # (label, how x is made, more names for ours, lab reduce_tile kernels beside: None, "best" or "all")
    loops = [("x half, 4 names", "half", 0, None)]
    loops += [("x half, 14 names", "half", 10, None)] if "loop" in experiments else []
    loops += [("x from float, 4 names", "from float", 0, None)] if "made" in experiments else []
    loops += [("x half, 4 names + cupy launches", "half", 0, "best")] if "launch" in experiments else []
    loops += [("x half, 4 names + every reduce_tile kernel", "half", 0, "all")] if "kinds" in experiments else []
    out = []
    for rows, cols in SHAPES:
        for loop, made, fillers, lab_kernels in loops:
            x = (torch.randn(rows, cols, dtype=torch.float16, device="cuda") if made == "half" else
                 torch.randn(rows, cols, device="cuda").to(torch.float16))
            compiled = lab.compile_like_run_ops(lambda t: t.sum(-1))
            ours = lambda: oprt.reduce_sum(x, axis=-1)  # noqa: E731
            fns = {"torch.compile": lambda: compiled(x), "torch.compile again": lambda: compiled(x),
                   "ours": ours, "ours again": ours}
            fns.update({"ours filler %d" % k: ours for k in range(fillers)})
            if lab_kernels:
                import reduce_tile

                lab_fns, _ = reduce_tile.candidates(lab.load("reduce_tile"), "float16", x, rows, cols)
                library = next(name for name in lab_fns if name.endswith("(today)"))
                fns["ours via cupy: " + library] = lab_fns[library]
                fns["lab via cupy: " + LAB_BEST[cols]] = lab_fns[LAB_BEST[cols]]
                if lab_kernels == "all":
                    fns.update({"lab via cupy: " + name: fn for name, fn in lab_fns.items()})
            label = "%dx%d f16 %s" % (rows, cols, loop)
            out += lab.time_interleaved(fns, rounds, {"shape": "%dx%d" % (rows, cols), "dtype": "float16",
                                                      "loop": loop}, x.numel() * 2 + rows * 2, label)
        lab.save("aa_timing", out)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2, sys.argv[2:] or ("loop", "made"))
