"""Lab elementwise_bulk (elementwise_bulk.cu says why): copy, relu and add moved by Hopper's bulk-copy engine, a
chunk per instruction, against the library's contiguous kernel, torch eager and torch.compile, all timed
interleaved in one measure_many (as run_ops times a row), for `rounds` rounds. Every kernel's output is checked
first (copy bit for bit, relu and add against torch). Per implementation: p20/p50/p80 device us per round, and
the paired per-round ratio (benchmark.paired_ratio) of torch.compile's time to it.

    python3 elementwise_bulk.py [rounds]     # on the GPU machine, after build.sh elementwise_bulk.cu
"""
import sys

import numpy as np

import lab

LIB = {  # the library's contiguous_kernel instantiations in the cubin
    ("copy", 2): "_ZN4oprt3gpu18elementwise_detail17contiguous_kernelItNS_11CopyFunctorELi8ENS1_15ContiguousShapeItS3_EEEEvlT0_PT_PKS7_SA_",
    ("copy", 4): "_ZN4oprt3gpu18elementwise_detail17contiguous_kernelIjNS_11CopyFunctorELi4ENS1_15ContiguousShapeIjS3_EEEEvlT0_PT_PKS7_SA_",
    ("relu", "float16"): "_ZN4oprt3gpu18elementwise_detail17contiguous_kernelI6__halfNS_16LeakyReluFunctorELi8ENS1_15ContiguousShapeIS3_S4_EEEEvlT0_PT_PKS8_SB_",
    ("relu", "bfloat16"): "_ZN4oprt3gpu18elementwise_detail17contiguous_kernelI13__nv_bfloat16NS_16LeakyReluFunctorELi8ENS1_15ContiguousShapeIS3_S4_EEEEvlT0_PT_PKS8_SB_",
    ("vector_add", "float16"): "_ZN4oprt3gpu18elementwise_detail17contiguous_kernelI6__halfNS_10AddFunctorELi8ENS1_15ContiguousShapeIS3_S4_EEEEvlT0_PT_PKS8_SB_",
    ("vector_add", "bfloat16"): "_ZN4oprt3gpu18elementwise_detail17contiguous_kernelI13__nv_bfloat16NS_10AddFunctorELi8ENS1_15ContiguousShapeIS3_S4_EEEEvlT0_PT_PKS8_SB_",
}
SHORT = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}
# (kernel name, chunk KiB, stages or 0 for a block per chunk, threads)
BULK = {
    "copy": [("chunk_copy_8k", 8, 0, 32), ("chunk_copy_16k", 16, 0, 32), ("chunk_copy_32k", 32, 0, 32),
             ("ring_copy_8k_6", 8, 6, 32), ("ring_copy_16k_4", 16, 4, 32), ("ring_copy_32k_3", 32, 3, 32)],
    "relu": [("chunk_relu_16k_{t}", 16, 0, 128), ("chunk_relu_32k_{t}", 32, 0, 128), ("ring_relu_16k_4_{t}", 16, 4, 128)],
    "vector_add": [("chunk_add_8k_{t}", 8, 0, 128), ("chunk_add_16k_{t}", 16, 0, 128), ("ring_add_16k_3_{t}", 16, 3, 128)],
}
ROWS = [("copy", 64 << 20, "float16"), ("copy", 256 << 20, "float16"), ("copy", 64 << 20, "float32"),
        ("relu", 64 << 20, "float16"), ("relu", 64 << 20, "bfloat16"),
        ("vector_add", 64 << 20, "float16"), ("vector_add", 64 << 20, "bfloat16")]
SHARED_PER_SM = 228 * 1024  # a Hopper SM's shared memory; each block also reserves 1 KiB
RESERVED_PER_BLOCK = 1024


def blocks_per_sm(shared_bytes, threads):
    return max(1, min(32, 2048 // threads, SHARED_PER_SM // (shared_bytes + RESERVED_PER_BLOCK + 128)))


def implementations(module, op, n, dt, x, b, y, sm_count):
    import torch

    functor = np.float64(0.0) if op == "relu" else np.uint8(0)  # LeakyReluFunctor{0.0}; Copy/Add are empty
    eager = {"copy": lambda: y.copy_(x), "relu": lambda: torch.clamp_min(x, 0, out=y),
             "vector_add": lambda: torch.add(x, b, out=y)}[op]
    fn = {"copy": lambda v: v.clone(), "relu": torch.relu, "vector_add": lambda u, v: u + v}[op]
    compiled = torch.compile(fn, dynamic=False, fullgraph=True)
    args = (x, b) if op == "vector_add" else (x,)
    runs = {"torch eager": eager, "torch.compile": lambda: compiled(*args)}
    size = x.element_size()
    if op == "copy":
        bits = {2: torch.int16, 4: torch.int32}[size]
        lib = module.kernel(LIB[("copy", size)])
        pack = 16 // size
        runs["library"] = lambda: lib.launch(-(-n // (pack * 256)), 256, n, np.uint8(0), y.view(bits), x.view(bits),
                                             x.view(bits))
        xa, ba, ya = x.view(torch.int32), x.view(torch.int32), y.view(torch.int32)
    else:
        lib = module.kernel(LIB[(op, dt)])
        runs["library"] = lambda: lib.launch(-(-n // (8 * 256)), 256, n, functor, y, x, b)
        xa, ba, ya = x, b, y
    total = n * size
    inputs = 2 if op == "vector_add" else 1
    for name, chunk_kib, stages, threads in BULK[op]:
        name = name.format(t=SHORT[dt])
        kernel = module.kernel(name)
        chunk = chunk_kib * 1024
        assert total % chunk == 0
        chunks = total // chunk
        shared = chunk * inputs * max(stages, 1)
        kernel.set_max_dynamic_shared(shared)  # past 48 KiB with the static barriers: an opt-in
        if stages:
            grid = min(chunks, sm_count * blocks_per_sm(shared, threads))
            runs["%s (grid %d)" % (name, grid)] = (
                lambda kernel=kernel, grid=grid, threads=threads, shared=shared, chunks=chunks:
                kernel.launch(grid, threads, chunks, functor, ya, xa, ba, shared=shared))
        else:
            runs[name] = (lambda kernel=kernel, chunks=chunks, threads=threads, shared=shared:
                          kernel.launch(chunks, threads, functor, ya, xa, ba, shared=shared))
    return runs


def expected_of(op, x, b):
    import torch

    return {"copy": lambda: x.clone(), "relu": lambda: torch.relu(x), "vector_add": lambda: x + b}[op]()


def main(rounds=2):
    import torch

    module = lab.load("elementwise_bulk")
    sm_count = torch.cuda.get_device_properties(0).multi_processor_count
    rows = []
    for op, n, dt in ROWS:
        x = torch.randn(n, device="cuda").to(getattr(torch, dt))
        b = torch.randn(n, device="cuda").to(getattr(torch, dt)) if op == "vector_add" else x
        y = torch.empty_like(x)
        runs = implementations(module, op, n, dt, x, b, y, sm_count)
        expected = expected_of(op, x, b)
        for name, run in runs.items():
            y.fill_(7)
            result = run()
            torch.cuda.synchronize()
            actual = result if name == "torch.compile" else y
            if op == "copy":
                assert torch.equal(actual, expected), "%s %s: %s wrong" % (op, dt, name)
            else:
                lab.check("%s %s %s" % (op, dt, name), actual, expected, dt)
        moved = (3 if op == "vector_add" else 2) * n * x.element_size()
        label = "%s %dM %s" % (op, n >> 20, dt)
        rows += lab.time_interleaved(runs, rounds, {"op": op, "n": n, "dtype": dt}, moved, label)
        lab.save("elementwise_bulk", rows)
        del x, b, y, expected
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
