"""Lab elementwise_inflight (elementwise_inflight.cu says why): gelu with loads in flight during the math, and the
library's one-pack kernel in 128-thread blocks (the peers' size) for the rows tied at the copy peak, against torch
eager (and torch.compile for gelu) in the same process; three rounds, each in a shuffled order. Every candidate's
output must equal the one-pack kernel's (gelu: the library's body before this lab) or torch's (add, relu, copy)
bit for bit.

    python3 elementwise_inflight.py [gelu] [blocks] [round2] [index32]   # on the GPU machine, after build.sh elementwise_inflight.cu
"""
import random

import lab

SHORT = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}
BITS = {"float16": "u16", "bfloat16": "u16", "float32": "u32"}
# The library's gelu kernel as it ships since this lab (ContiguousShape: 256 threads x 2 packs in 16-bit types,
# 128 x 1 in f32); runs 1 and 3 timed the one before it, 256 x 1 (as "one pack, 256 threads" still does).
LIB = {"float16": "6__halfNS_11GeluFunctorILb0EEELi8ENS1_15ContiguousShapeIS3_S5_EEEEvlT0_PT_PKS9_SC_",
       "bfloat16": "13__nv_bfloat16NS_11GeluFunctorILb0EEELi8ENS1_15ContiguousShapeIS3_S5_EEEEvlT0_PT_PKS9_SC_",
       "float32": "fNS_11GeluFunctorILb0EEELi4ENS1_15ContiguousShapeIfS4_EEEEvlT0_PT_PKS8_SB_"}
LIB_SHAPE = {"float16": (256, 2), "bfloat16": (256, 2), "float32": (128, 1)}
ONCE = [(256, 2), (256, 4)]
PIPE = [(256, 4, 1), (256, 8, 1), (256, 8, 2), (128, 8, 2)]
GRID = [(256, 1), (256, 2), (512, 1)]


def resident_blocks(kernel, threads, sm_count):
    """One wave of `threads`-thread blocks of `kernel` (registers and thread slots of a Hopper SM)."""
    regs = max(kernel.function.num_regs, 1)
    per_sm = min(2048 // threads, 65536 // (((regs * 32 + 255) // 256) * 256 * (threads // 32)))
    return per_sm * sm_count


def one_pack(module, name, n, y, a, b, threads, pack, per_thread=1):
    """A launch of kernel `name` (one_* or k_*: n values, per_thread packs a thread of `pack` values) over y, a, b."""
    kernel = module.kernel(name)
    blocks = -(-n // (pack * threads * per_thread))
    return lambda: kernel.launch(blocks, threads, n, y, a, b)


def operands(op, n, dt):
    """The tensors of one row (b is a for the unary ops), torch eager's call writing into y where it can, torch's
    result to compare with (None for gelu: the lab's kernels are held to the one-pack kernel's), the lab's kernel
    name for the op and dtype, the view its kernels take (copy moves bits) and the bytes a call moves."""
    import torch

    a = torch.randn(n, device="cuda").to(getattr(torch, dt))
    b = torch.randn(n, device="cuda").to(getattr(torch, dt)) if op == "vector_add" else a
    y = torch.empty_like(a)
    eager = {"gelu": lambda: torch.nn.functional.gelu(a), "vector_add": lambda: torch.add(a, b, out=y),
             # torch.relu runs clamp_min's kernel (launch_clamp_scalar); this form writes into y
             "relu": lambda: torch.clamp_min(a, 0, out=y), "copy": lambda: y.copy_(a)}[op]
    expected = {"gelu": None, "vector_add": lambda: a + b, "relu": lambda: torch.relu(a), "copy": lambda: a}[op]
    kernel_op, t = ("add" if op == "vector_add" else op), (BITS[dt] if op == "copy" else SHORT[dt])
    bits = torch.int16 if dt != "float32" else torch.int32
    view = (lambda v: v.view(bits)) if op == "copy" else (lambda v: v)
    moved = (3 if op == "vector_add" else 2) * n * a.element_size()
    return a, b, y, eager, expected, kernel_op, t, view, moved


def gelu_candidates(module, dt, n, x, y, sm_count):
    import numpy as np
    import torch

    t, packs, pack = SHORT[dt], n * x.element_size() // 16, 16 // x.element_size()
    lib = module.kernel("_ZN4oprt3gpu18elementwise_detail17contiguous_kernelI" + LIB[dt])
    lib_threads, lib_packs = LIB_SHAPE[dt]
    gelu = torch.nn.functional.gelu
    compiled = torch.compile(lambda v: gelu(v), dynamic=False, fullgraph=True)
    out = {"torch eager": lambda: gelu(x), "torch.compile": lambda: compiled(x),
           # GeluFunctor<false> by value: an empty struct, one byte
           "library": lambda: lib.launch(-(-packs // (lib_threads * lib_packs)), lib_threads, n, np.uint8(0), y, x, x)}
    for b in (128, 256):
        out["one pack, %d threads" % b] = one_pack(module, "one_gelu_%d_%s" % (b, t), n, y, x, x, b, pack)
    for b, k in ONCE:
        kernel = module.kernel("once_%d_%d_%s" % (b, k, t))
        out["once %d x %d" % (b, k)] = lambda kernel=kernel, b=b, k=k: kernel.launch(
            (packs + b * k - 1) // (b * k), b, packs, y, x)
    for b, k, d in PIPE:
        kernel = module.kernel("pipe_%d_%d_%d_%s" % (b, k, d, t))
        out["pipe %d x %d, %d ahead" % (b, k, d)] = lambda kernel=kernel, b=b, k=k: kernel.launch(
            (packs + b * k - 1) // (b * k), b, packs, y, x)
    for b, d in GRID:
        kernel = module.kernel("grid_%d_%d_%s" % (b, d, t))
        blocks = resident_blocks(kernel, b, sm_count)
        out["grid %d x %d blocks, %d ahead" % (b, blocks, d)] = lambda kernel=kernel, b=b, blocks=blocks: (
            kernel.launch(blocks, b, packs, y, x))
    return out


def check_runs(runs, y, expected, what, peers_too=False):
    """Calls every run once (torch.compile compiles here) and requires each of the lab's kernels, and torch's calls
    that write y where peers_too, to leave y equal to expected bit for bit."""
    import torch

    for name, run in runs.items():
        y.zero_()
        run()
        torch.cuda.synchronize()
        if name.startswith("torch") and not peers_too:
            continue
        if not torch.equal(y, expected):
            raise AssertionError("%s: %s differs from %s in %d values" % (
                what, name, "torch" if peers_too else "the one-pack kernel", int((y != expected).sum())))


def time_rounds(rows, op, label, dt, runs, moved_bytes, rounds):
    order = list(runs)
    for r in range(rounds):
        random.Random(r).shuffle(order)
        for name in order:
            row = {"op": op, "shape": label, "dtype": dt, "variant": name, "round": r, "status": "ok"}
            row.update(lab.time_us(runs[name]))
            row["GBps"] = moved_bytes / row["p50"] / 1e3
            rows.append(row)
            print("%-10s %-16s %-9s round %d  %-34s p50 %8.2f us  %6.0f GB/s" % (
                op, label, dt, r, name, row["p50"], row["GBps"]), flush=True)
    summary = sorted((sorted(row["p50"] for row in rows if (row["op"], row["shape"], row["dtype"], row["variant"])
                             == (op, label, dt, name)), name) for name in runs)
    for p50s, name in summary:
        print("summary %-10s %-16s %-9s %-34s p50 by round %s" % (
            op, label, dt, name, " ".join("%8.2f" % p for p in p50s)), flush=True)


def time_gelu(module, rows, rounds):
    import torch

    n = 256 << 20
    sm_count = torch.cuda.get_device_properties(0).multi_processor_count
    for dt in ["float16", "bfloat16", "float32"]:
        x = torch.randn(n, device="cuda").to(getattr(torch, dt))
        y = torch.empty_like(x)
        runs = gelu_candidates(module, dt, n, x, y, sm_count)
        runs["one pack, 256 threads"]()
        reference = y.clone()
        check_runs(runs, y, reference, "gelu " + dt)
        time_rounds(rows, "gelu", "256M", dt, runs, 2 * n * x.element_size(), rounds)
        del x, y, reference
        torch.cuda.empty_cache()


def time_blocks(module, rows, rounds):
    import torch

    for op, n, dts in [("vector_add", 64 << 20, ["float16", "bfloat16"]),
                       ("vector_add", 256 << 20, ["float16", "bfloat16", "float32"]),
                       ("relu", 256 << 20, ["bfloat16", "float16"]), ("copy", 256 << 20, ["bfloat16", "float32"])]:
        for dt in dts:
            a, b, y, eager, torch_result, kernel_op, t, view, moved = operands(op, n, dt)
            pack = 16 // a.element_size()
            expected = torch_result()
            runs = {"torch eager": eager}
            for threads in (256, 128):
                runs["one pack, %d threads" % threads] = one_pack(
                    module, "one_%s_%d_%s" % (kernel_op, threads, t), n, view(y), view(a), view(b), threads, pack)
            check_runs(runs, y, expected, "%s %s" % (op, dt), peers_too=True)
            time_rounds(rows, op, "%dM" % (n >> 20), dt, runs, moved, rounds)
            del a, b, y, expected
            torch.cuda.empty_cache()


# Session 19's second round: K packs a thread, loaded at once (k_<op>_<B>_<K>_<t>), for every op.
ROUND2 = {("gelu", "half"): [(128, 2), (256, 2), (128, 4)], ("gelu", "float32"): [(64, 1), (128, 1), (128, 2)],
          ("add", "half"): [(128, 2), (256, 2), (128, 4)], ("add", "float32"): [(64, 1), (128, 1), (128, 2)],
          ("relu", "half"): [(128, 2), (256, 2), (128, 4)], ("relu", "float32"): [(128, 1), (128, 2)],
          ("copy", "half"): [(128, 2), (256, 2)], ("copy", "float32"): [(128, 2)]}


def time_round2(module, rows, rounds):
    import torch

    gelu = torch.nn.functional.gelu
    for op, n, dts in [("gelu", 256 << 20, ["float16", "bfloat16", "float32"]),
                       ("vector_add", 64 << 20, ["float16", "bfloat16"]),
                       ("vector_add", 256 << 20, ["float16", "bfloat16", "float32"]),
                       ("relu", 64 << 20, ["float16", "bfloat16"]),
                       ("relu", 256 << 20, ["float16", "bfloat16", "float32"]),
                       ("copy", 64 << 20, ["bfloat16"]), ("copy", 256 << 20, ["bfloat16", "float32"])]:
        for dt in dts:
            a, b, y, eager, torch_result, kernel_op, t, view, moved = operands(op, n, dt)
            pack = 16 // a.element_size()
            runs = {"torch eager": eager}
            if op == "gelu" and dt == "float32":
                compiled = torch.compile(lambda v: gelu(v), dynamic=False, fullgraph=True)
                runs["torch.compile"] = lambda: compiled(a)
            runs["one pack, 256 threads"] = one_pack(module, "one_%s_256_%s" % (kernel_op, t), n, view(y), view(a),
                                                     view(b), 256, pack)
            if op == "gelu" and dt != "float32":
                for name, kernel_name, threads, k in [("once 256 x 2 (round 1)", "once_256_2_" + t, 256, 2),
                                                      ("pipe 256 x 4, 1 ahead (round 1)", "pipe_256_4_1_" + t, 256, 4)]:
                    kernel = module.kernel(kernel_name)
                    packs = n // pack
                    runs[name] = lambda kernel=kernel, threads=threads, k=k, packs=packs: kernel.launch(
                        packs // (threads * k), threads, packs, y, a)
            for threads, k in ROUND2[(kernel_op, "float32" if dt == "float32" else "half")]:
                runs["%d x %d packs at once" % (threads, k)] = one_pack(
                    module, "k_%s_%d_%d_%s" % (kernel_op, threads, k, t), n, view(y), view(a), view(b), threads,
                    pack, k)
            y.zero_()
            runs["one pack, 256 threads"]()
            reference = y.clone()
            if torch_result is not None:
                assert torch.equal(reference, torch_result())
            check_runs(runs, y, reference, "%s %s" % (op, dt))
            time_rounds(rows, op, "%dM" % (n >> 20), dt, runs, moved, rounds)
            del a, b, y, reference
            torch.cuda.empty_cache()


# Session 20: the 32-bit index without a loop (i32_<op>_<B>_<t>), torch eager's arithmetic, on the rows it leads.
def time_index32(module, rows, rounds):
    import numpy as np
    import torch

    for op, n, dts in [("vector_add", 64 << 20, ["float16", "bfloat16"]),
                       ("vector_add", 256 << 20, ["float16", "bfloat16"]),
                       ("relu", 256 << 20, ["bfloat16"]), ("copy", 256 << 20, ["bfloat16"])]:
        for dt in dts:
            a, b, y, eager, torch_result, kernel_op, t, view, moved = operands(op, n, dt)
            pack = 16 // a.element_size()
            packs = n // pack
            runs = {"torch eager": eager}
            runs["one pack, 256 threads"] = one_pack(module, "one_%s_256_%s" % (kernel_op, t), n, view(y), view(a),
                                                     view(b), 256, pack)
            for threads in (128, 256):
                kernel = module.kernel("i32_%s_%d_%s" % (kernel_op, threads, t))
                runs["index32, %d threads" % threads] = lambda kernel=kernel, threads=threads: kernel.launch(
                    -(-packs // threads), threads, np.uint32(packs), view(y), view(a), view(b))
            check_runs(runs, y, torch_result(), "%s %s" % (op, dt), peers_too=True)
            time_rounds(rows, op, "%dM" % (n >> 20), dt, runs, moved, rounds)
            del a, b, y
            torch.cuda.empty_cache()


def main(sections=("gelu", "blocks"), rounds=3):
    module = lab.load("elementwise_inflight")
    rows = []
    for section in sections:
        {"gelu": time_gelu, "blocks": time_blocks, "round2": time_round2,
         "index32": time_index32}[section](module, rows, rounds)
        lab.save("elementwise_inflight", rows)


if __name__ == "__main__":
    import sys

    main(tuple(sys.argv[1:]) or ("gelu", "blocks"))
