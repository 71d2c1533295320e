"""Where each kernel's first global load comes, read from its SASS (no GPU needed): instructions before the first
LDG, how many LDG / STG, their cache hints, and its registers. A kernel whose lanes wait dozens of instructions before
their loads starts its memory traffic later; on 5 us row sums that is the size of the gaps measured against
torch.compile (bench/notes/reduce-sum-tuning.md, "Session 35"). Registers bound how many warps an SM holds (sm_90:
65536 registers, 64 warps, allocated 8 a thread at a time): "warps" is that bound, before block size and shared
memory; a short kernel that cannot fill the SM has fewer loads in flight ("Session 36": 48 registers, 42 warps, lost
to the same rows in 32 registers).

    python3 bench/lab/sass_prologue.py FILE [REGEX]        # FILE: a wheel's libcamp_ops.so or a lab's .cubin
    python3 bench/lab/sass_prologue.py --inductor-sum XBLOCK R0_BLOCK [DTYPE]   # torch.compile's persistent row sum
    python3 bench/lab/sass_prologue.py --inductor-looped-sum R0_BLOCK NUM_WARPS [DTYPE]   # its looped one, 4096 columns

FILE is disassembled by cuobjdump (a .so's fatbin) or nvdisasm (a cubin): CUDA's, or PyPI's nvidia-cuda-cuobjdump /
nvidia-cuda-nvdisasm (set CUOBJDUMP / NVDISASM to their binaries). --inductor-sum compiles the kernel Inductor logs
for `x.sum(-1)` on short rows (bench/results/h100-session34/inductor_code.log.xz: XBLOCK rows a program, one warp)
with the triton package for sm_90, without a GPU; --inductor-looped-sum the looped kernel it logs for 4096 x 4096
(a 512-thread block a row on the H100: bench/results/h100-session34/inductor_launches.txt.xz).
"""
import os
import re
import subprocess
import sys
import tempfile

INSTRUCTION = re.compile(r"/\*[0-9a-f]{4}\*/\s+(.*?)\s*;")


def tool(name):
    return os.environ.get(name.upper(), name)


def functions(sass: str) -> dict:
    """name -> its instructions, from cuobjdump's ("Function : name") or nvdisasm's (".text.name:") listing."""
    out, name = {}, None
    for line in sass.splitlines():
        header = re.match(r"\s*Function : (\S+)", line) or re.match(r"\.text\.(\S+):$", line)
        if header:
            name = header.group(1)
            out[name] = []
        elif name and (m := INSTRUCTION.search(line)) and not m.group(1).startswith("NOP"):
            out[name].append(m.group(1))
    return out


def disassemble(path: str) -> str:
    command = [tool("nvdisasm"), "-c", path] if path.endswith(".cubin") else [tool("cuobjdump"), "-sass", path]
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def registers(path: str) -> dict:
    """name -> registers per thread, from cuobjdump -res-usage (a .so's fatbin or a cubin)."""
    usage = subprocess.run([tool("cuobjdump"), "-res-usage", path], check=True, capture_output=True, text=True).stdout
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"Function (\S+?):\s+REG:(\d+)", usage)}


def warps_by_registers(regs: int) -> int:
    """The most warps an sm_90 SM holds at `regs` registers a thread (65536 registers, 64 warps, 8-register steps)."""
    return min(64, 65536 // (-(-max(regs, 1) // 8) * 8 * 32))


def report(kernels: dict, pattern: str = ".", regs: dict = None) -> None:
    print("%6s %5s %4s %4s %4s %5s  %-12s %s" % ("first", "instr", "LDG", "STG", "regs", "warps", "load hints",
                                                  "kernel"))
    for name, code in sorted(kernels.items()):
        if not re.search(pattern, name):
            continue
        loads = [i for i in code if "LDG" in i]  # LDG and sm_80's LDGSTS (cp.async), predicated or not
        first = next((k for k, i in enumerate(code) if "LDG" in i), None)
        hints = sorted({re.search(r"LDG\S*", i).group(0) for i in loads})
        reg = (regs or {}).get(name)
        print("%6s %5d %4d %4d %4s %5s  %-12s %s" % (
            first if first is not None else "-", len(code), len(loads), sum("STG" in i for i in code),
            reg if reg is not None else "-", warps_by_registers(reg) if reg is not None else "-", ",".join(hints),
            name[:110]))


def compile_for_sm90(fn, constexprs: dict, dtype: str, num_warps: int) -> tuple:
    """(SASS by function, registers) of a Triton row sum compiled for sm_90, its pointers 16-byte aligned."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    signature = {"in_ptr0": "*" + dtype, "out_ptr0": "*" + dtype, "xnumel": "i32", "r0_numel": "i32"}
    signature.update({name: "constexpr" for name in constexprs})
    aligned = [["tt.divisibility", 16]]
    source = ASTSource(fn=fn, constexprs=constexprs, signature=signature, attrs={(k,): aligned for k in range(4)})
    kernel = triton.compile(source, target=GPUTarget("cuda", 90, 32),
                            options={"num_warps": num_warps, "num_stages": 1})
    with tempfile.NamedTemporaryFile(suffix=".cubin") as cubin:
        cubin.write(kernel.asm["cubin"])
        cubin.flush()
        return functions(disassemble(cubin.name)), registers(cubin.name)


def inductor_sum(xblock: int, r0_block: int, dtype: str = "fp16") -> tuple:
    import triton
    import triton.language as tl

    @triton.jit
    def triton_per_fused_sum_0(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK: tl.constexpr, R0_BLOCK: tl.constexpr):
        # Inductor's persistent reduction as logged (its masks are all-true for these shapes and left out)
        xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
        r0_index = tl.arange(0, R0_BLOCK)[None, :]
        tmp0 = tl.load(in_ptr0 + (r0_index + R0_BLOCK * xindex), None).to(tl.float32)
        tmp3 = tl.sum(tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK]), 1)[:, None]
        tl.store(out_ptr0 + xindex, tmp3, None)

    return compile_for_sm90(triton_per_fused_sum_0, {"XBLOCK": xblock, "R0_BLOCK": r0_block}, dtype, 1)


def inductor_looped_sum(r0_block: int, num_warps: int, dtype: str = "fp16") -> tuple:
    import triton
    import triton.language as tl

    @triton.jit
    def triton_red_fused_sum_0(in_ptr0, out_ptr0, xnumel, r0_numel, R0_BLOCK: tl.constexpr):
        # Inductor's looped reduction for 4096 x 4096 as logged, one row a program (XBLOCK 1): R0_BLOCK values a
        # step, read evict-first, added into a block of f32 accumulators summed at the end
        row = tl.program_id(0)
        r0_base = tl.arange(0, R0_BLOCK)
        accumulators = tl.full([R0_BLOCK], 0, tl.float32)
        for r0_offset in tl.range(0, 4096, R0_BLOCK):
            accumulators += tl.load(in_ptr0 + (r0_offset + r0_base + 4096 * row),
                                    eviction_policy="evict_first").to(tl.float32)
        tl.store(out_ptr0 + row, tl.sum(accumulators, 0))

    return compile_for_sm90(triton_red_fused_sum_0, {"R0_BLOCK": r0_block}, dtype, num_warps)


if __name__ == "__main__":
    if sys.argv[1] == "--inductor-sum":
        code, regs = inductor_sum(int(sys.argv[2]), int(sys.argv[3]), *sys.argv[4:5])
        report(code, regs=regs)
    elif sys.argv[1] == "--inductor-looped-sum":
        code, regs = inductor_looped_sum(int(sys.argv[2]), int(sys.argv[3]), *sys.argv[4:5])
        report(code, regs=regs)
    else:
        report(functions(disassemble(sys.argv[1])), sys.argv[2] if len(sys.argv) > 2 else ".", registers(sys.argv[1]))
