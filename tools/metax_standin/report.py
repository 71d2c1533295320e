#!/usr/bin/env python3
"""Reads what the stand-in mxcc recorded during check.sh's build and prints CI lines.

Checks, each one "CI: PASS ..." or "CI: FAIL ..." line:
  units      every MetaX translation unit (ops/**/*.maca) was compiled by nvcc playing mxcc
  names      no CUDA-only name in repository code that a MACA build compiles
  branches   every `#if [!]defined(__MACACC__)` region: the MACA side was compiled by some unit, the
             CUDA side by none
  flags      every recorded mxcc command carries what maca_library must pass (toolchain test)
  link       the objects linked: libcamp_ops.so loads with the metax backend registered, the probe
             library exports its entry point, both with the SDK's lib/ as RUNPATH
  canaries   each known MACA mistake in tools/metax_standin/canaries fails the stand-in compile
Ends with "metax stand-in: N units compiled, N failed". Exit status: the number of FAIL lines (capped).
"""

import argparse
import ctypes
import glob
import json
import os
import re
import subprocess
import sys

MACACC = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)$")
failures = 0


def ci(ok, message):
    global failures
    failures += 0 if ok else 1
    print("CI: %s %s" % ("PASS" if ok else "FAIL", message))


def load_records(sdk):
    records = []
    for path in sorted(glob.glob(os.path.join(sdk, "log", "*.json"))):
        with open(path) as f:
            records.append(json.load(f))
    return records


def macacc_regions(path):
    """[(side, first, last)] for the branches of #if/#ifdef directives that test __MACACC__ alone:
    side "maca" where the MACA build compiles the lines, "cuda" where it must not."""
    regions, stack = [], []  # stack of [side or None, first line of the current branch]
    with open(path) as f:
        lines = f.read().splitlines()
    for number, text in enumerate(lines, 1):
        match = MACACC.match(re.sub(r"//.*|/\*.*?\*/", "", text))
        if not match:
            continue
        kind, condition = match.group(1), match.group(2).strip()
        if kind in ("if", "ifdef", "ifndef"):
            side = None
            if re.fullmatch(r"defined\s*\(?\s*__MACACC__\s*\)?", condition) or (kind == "ifdef" and condition == "__MACACC__"):
                side = "maca"
            elif re.fullmatch(r"!\s*defined\s*\(?\s*__MACACC__\s*\)?", condition) or (kind == "ifndef" and condition == "__MACACC__"):
                side = "cuda"
            stack.append([side, number + 1])
            continue
        if not stack:
            continue
        side, first = stack[-1]
        if side is not None:
            regions.append((side, first, number - 1))
        if kind == "else" and side is not None:
            stack[-1] = ["cuda" if side == "maca" else "maca", number + 1]
        elif kind == "elif":
            stack[-1] = [None, number + 1]
        elif kind == "endif":
            stack.pop()
    return regions, lines


def has_code(lines, first, last):
    for text in lines[first - 1:last]:
        code = re.sub(r"//.*", "", text).strip()
        if code and not code.startswith("#"):
            return True
    return False


def check_units(records, repo):
    expected = sorted(os.path.relpath(p, repo) for p in glob.glob(os.path.join(repo, "ops", "**", "*.maca"), recursive=True))
    by_source = {r["facts"]["source"]: r for r in records if r["facts"]["source"] in expected}
    compiled = failed = 0
    for unit in expected:
        record = by_source.get(unit)
        if record is None:
            failed += 1
            print("metax stand-in: %s was not compiled (no maca_library compiles it?)" % unit)
        elif record["status"] != "compiled":
            failed += 1
            print("metax stand-in: %s FAILED: %s %s" % (unit, record["status"], record.get("message", "")))
        else:
            compiled += 1
            print("metax stand-in: %-45s compiled in %5.1f s, %3d kernels instantiated" % (
                unit, record["compile_seconds"], record["kernels"]))
    kernels = sum(r.get("kernels") or 0 for r in by_source.values())
    ci(failed == 0 and compiled > 0,
       "metax stand-in compile: %d/%d MetaX units (every ops/**/*.maca, runtime included) compiled by nvcc playing "
       "mxcc, %d kernels instantiated" % (compiled, len(expected), kernels))
    return expected, by_source, compiled, failed


def check_names(units):
    leaks = [leak for r in units.values() for leak in r.get("leaks", [])]
    for leak in leaks[:20]:
        print("metax stand-in: CUDA-only name in MACA code: " + leak)
    checked = [r for r in units.values() if "repo_lines" in r]
    ci(not leaks and len(checked) == len(units) and checked,
       "metax stand-in: no CUDA-only names (cuda*, __nv_*, cooperative_groups, asm) in the code %d MACA units compile"
       % len(checked))


def check_branches(units, repo):
    emitted = {}
    for record in units.values():
        for name, numbers in record.get("repo_lines", {}).items():
            emitted.setdefault(name, set()).update(numbers)
    sources = sorted(set(
        os.path.relpath(p, repo) for pattern in ("ops/**/*.h", "ops/**/*.cuh", "ops/**/*.cu", "ops/**/*.maca", "include/**/*.h")
        for p in glob.glob(os.path.join(repo, pattern), recursive=True)))
    maca_ok = cuda_ok = 0
    problems = []
    for source in sources:
        regions, lines = macacc_regions(os.path.join(repo, source))
        for side, first, last in regions:
            if not has_code(lines, first, last):
                continue
            hit = any(first <= n <= last for n in emitted.get(source, ()))
            if side == "maca":
                if hit:
                    maca_ok += 1
                else:
                    problems.append("%s:%d-%d: MACA-only code that no MetaX unit compiled" % (source, first, last))
            else:
                if hit:
                    problems.append("%s:%d-%d: CUDA-only code that a MetaX unit compiled" % (source, first, last))
                else:
                    cuda_ok += 1
    for problem in problems:
        print("metax stand-in: " + problem)
    ci(not problems and maca_ok > 0,
       "metax stand-in: every __MACACC__ branch as a MACA build takes it: %d MACA-only regions compiled, "
       "%d CUDA-only regions left out" % (maca_ok, cuda_ok))


def check_flags(records, units, sdk, arch):
    required = ["-std=c++17", "-O3", "-fPIC", "-fvisibility=hidden"]
    problems = []
    compiles = [r for r in records if r["facts"]["output"].startswith("bazel-out/")]
    for r in compiles:
        f = r["facts"]
        missing = [flag for flag in required if flag not in f["flags"]]
        if f["language"] != "maca":
            missing.append("-x maca")
        if f["offload_archs"] != [arch]:
            missing.append("--offload-arch=%s (got %s)" % (arch, f["offload_archs"]))
        if os.path.realpath(f["maca_path"] or "") != os.path.realpath(sdk):
            missing.append("--maca-path=%s (got %s)" % (sdk, f["maca_path"]))
        for suffix in ("local_maca/include", "local_maca/include/mcr"):
            if not any(p.endswith(suffix) for p in f["system_includes"]):
                missing.append("-isystem <@local_maca>/" + suffix.split("/", 1)[1])
        if f["source"].startswith("ops/"):
            if "." not in f["includes"] or "include" not in f["system_includes"]:
                missing.append("-I. and -isystem include (the ops' and the C API's include paths)")
        if not f["output"].endswith(".pic.o"):
            missing.append("-o <name>.pic.o")
        if missing:
            problems.append("%s: %s" % (f["source"], ", ".join(missing)))
    probe = [r for r in compiles if r["facts"]["source"].endswith("tools/metax_standin/probe/probe.maca")]
    if len(probe) != 1:
        problems.append("the probe library was not compiled exactly once")
    else:
        f = probe[0]["facts"]
        for define in ("-DOPRT_PROBE_DEFINE=1", "-DOPRT_PROBE_DEP_DEFINE=7", "-DOPRT_PROBE_COPT=1"):
            if define not in f["defines"]:
                problems.append("probe: no %s (defines / deps' defines / copts)" % define)
        if "-fno-strict-aliasing" not in f["flags"]:
            problems.append("probe: host_copts -fno-strict-aliasing not passed as is")
        if not any(p.endswith("tools/metax_standin/probe/include") for p in f["system_includes"] + f["includes"]):
            problems.append("probe: its dependency's include path is missing")
    for problem in problems:
        print("metax toolchain: " + problem)
    ci(not problems and len(compiles) == len(units) + 1,
       "metax toolchain: maca_library drove the recording mxcc %d times with -x maca -std=c++17 -O3 -fPIC "
       "-fvisibility=hidden --offload-arch=%s --maca-path=<SDK>, the SDK's include and include/mcr, the deps' "
       "include paths, and the probe's defines, deps' defines, copts and host_copts" % (len(compiles), arch))


def dynamic(path, what):
    return subprocess.run(["readelf", "-d", "-W", path] if what == "readelf" else ["nm", "-D", "--defined-only", path],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout


def check_link(library, probe, sdk):
    problems = []
    for path in (library, probe):
        if not path or not os.path.exists(path):
            problems.append("%s was not built" % path)
        elif os.path.realpath(os.path.join(sdk, "lib")) not in dynamic(path, "readelf") and os.path.join(sdk, "lib") not in dynamic(path, "readelf"):
            problems.append("%s: no RUNPATH to the SDK's lib/ (maca_runtime's linkopts not applied)" % path)
    exported = 0
    if not problems:
        exported = len(re.findall(r" T oprt_\w+", dynamic(library, "nm")))
        if " T oprt_probe_launch" not in dynamic(probe, "nm"):
            problems.append("libprobe_metax.so does not export oprt_probe_launch")
        try:
            lib = ctypes.CDLL(os.path.abspath(library))
            if lib.oprt_backend_compiled(2) != 1:  # OPRT_BACKEND_METAX
                problems.append("libcamp_ops.so: the metax backend is not compiled in")
            if lib.oprt_backend_compiled(1) != 0:
                problems.append("libcamp_ops.so: the nvidia backend is compiled in as well")
            available = lib.oprt_backend_available(2)
        except OSError as error:
            problems.append("libcamp_ops.so does not load: %s" % error)
    for problem in problems:
        print("metax toolchain: " + problem)
    ci(not problems,
       "metax toolchain: the MetaX objects link into libcamp_ops.so (%d oprt_* exported; loads with the metax backend "
       "compiled in, available=%s without a device) and into libprobe_metax.so" % (exported, locals().get("available")))


def check_canaries(records, repo, logs):
    """Each canary must fail, and its compiler output (check.sh saved it in `logs`) must mention what its
    `// expect:` line says."""
    results = {r["facts"]["source"]: r for r in records if "/canaries/" in r["facts"]["source"]}
    sources = sorted(glob.glob(os.path.join(repo, "tools", "metax_standin", "canaries", "*.maca")))
    caught = 0
    for path in sources:
        name = os.path.relpath(path, repo)
        expect = re.search(r"^// expect: (.*)$", open(path).read(), re.M).group(1).strip()
        record = results.get(name)
        output_path = os.path.join(logs or "", os.path.basename(path) + ".log")
        output = open(output_path).read() if logs and os.path.exists(output_path) else ""
        rejected = record is None or record["status"] != "compiled"
        if rejected and expect in output:
            caught += 1
        else:
            print("metax stand-in canary %s: %s (expected a failure mentioning %r)" % (
                name, "failed for another reason" if rejected else "compiled", expect))
    ci(sources and caught == len(sources),
       "metax stand-in canaries: %d/%d known MACA mistakes rejected (32-bit lane mask, cuda* call, __nv_bfloat16, "
       "implicit bf16 conversion, an mcDevAttr name MACA lacks, code keyed on __CUDACC__)" % (caught, len(sources)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sdk", required=True)
    parser.add_argument("--repo", default=".")
    parser.add_argument("--arch", default="xcore1000")
    parser.add_argument("--library")
    parser.add_argument("--probe")
    parser.add_argument("--canary-logs")
    args = parser.parse_args()
    repo = os.path.abspath(args.repo)
    records = load_records(args.sdk)
    expected, units, compiled, failed = check_units(records, repo)
    check_names(units)
    check_branches(units, repo)
    check_flags(records, units, args.sdk, args.arch)
    check_link(args.library, args.probe, args.sdk)
    check_canaries(records, repo, args.canary_logs)
    print("metax stand-in: %d units compiled, %d failed" % (compiled, failed))
    return min(failures, 100)


if __name__ == "__main__":
    sys.exit(main())
