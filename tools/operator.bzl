"""oprt_operator: the one macro an operator's BUILD.bazel calls.

It declares, for operator NAME:
  :NAME_api        cc_library  the public C header include/NAME.h, included as "operator_runtime/ops/NAME.h"
  :NAME_interface  cc_library  the op's internal header(s) (plan, functor, kernel table)
  :NAME_nvidia     cuda_library  nvidia/*.cu   (built only with --config=nvidia)
  :NAME_metax      maca_library  metax/*.maca  (built only with --config=metax)
  :NAME            cc_library  public entry points + CPU reference + the selected backend's kernels
  NAME.py         the Python binding (exported; //python places it at operator_runtime/ops/NAME.py)
  :cases           py_library  cases.py, shared by the tests, run_ops and the benchmark
  :test_NAME       py_test on the CPU backend; :test_NAME_nvidia (tag gpu), :test_NAME_metax (tag metax)
so `bazel test //ops/NAME/...` and `bazel query 'tests(//ops/NAME/...)'` cover exactly this operator.
Sizes: the CPU test is `test_size` (small: 60 s, each takes 12-25 s on 2 cores, so a plain `bazel test` prints
no "size is too big" warning); the device tests `device_test_size` (they add the device-only big cases).
"""

load("@rules_cc//cc:defs.bzl", "cc_library")
load("@rules_python//python:defs.bzl", "py_library", "py_test")
load("//tools:cuda.bzl", "cuda_library")
load("//tools:maca.bzl", "maca_library")

def _only_with(setting):
    return select({setting: [], "//conditions:default": ["@platforms//:incompatible"]})

def _kernel_sources(name, maca_srcs):
    """The device sources under --//tools:kernels: nvidia/ (reference), or exercise/ when it is set to
    `exercise` and tools/exercise.py made ops/<op>/exercise/ for this op (ops without one keep nvidia/).
    The MetaX units include nvidia/*.cu by path: under exercise they are copies that include exercise/."""
    exercise = native.glob(["exercise/*.cu", "exercise/*.cuh"], allow_empty = True)
    native.filegroup(name = "exercise_files", srcs = exercise, visibility = ["//ops:__pkg__"])  # //ops checks some op has one
    ref = {"cu": native.glob(["nvidia/*.cu"]), "cuh": native.glob(["nvidia/*.cuh"]), "maca": maca_srcs}
    if not exercise:
        return ref
    ex_maca = ["exercise_maca/" + f.split("/")[-1] for f in maca_srcs]
    if maca_srcs:
        native.genrule(
            name = name + "_exercise_maca",
            srcs = maca_srcs,
            outs = ex_maca,
            cmd = " && ".join(["sed '/^#include/ s#/nvidia/#/exercise/#' $(location %s) > $(location %s)" % (src, out) for src, out in zip(maca_srcs, ex_maca)]),
        )
    ex = {"cu": native.glob(["exercise/*.cu"], allow_empty = True), "cuh": native.glob(["exercise/*.cuh"], allow_empty = True), "maca": ex_maca}
    return {k: select({"//tools:exercise_kernels": ex[k], "//conditions:default": ref[k]}) for k in ref}

def oprt_operator(name, srcs, hdrs, deps = [], cuda_deps = [], test_srcs = None, test_size = "small", device_test_size = "medium"):
    native.package(default_visibility = ["//visibility:private"])
    native.exports_files([name + ".py"], visibility = ["//python:__pkg__"])
    cc_library(
        name = name + "_api",
        hdrs = ["include/%s.h" % name],
        strip_include_prefix = "include",
        include_prefix = "operator_runtime/ops",
        deps = ["//include:api"],
        visibility = ["//visibility:public"],
    )
    cuda_srcs = native.glob(["nvidia/*.cu"])
    maca_srcs = native.glob(["metax/*.maca"])
    kernels = _kernel_sources(name, maca_srcs)
    cc_library(
        name = name + "_interface",
        hdrs = hdrs,
        deps = deps + ["//ops/runtime", ":%s_api" % name],
    )
    backend_kernels = {"//conditions:default": []}
    if cuda_srcs:
        cuda_library(
            name = name + "_nvidia",
            srcs = kernels["cu"],
            hdrs = kernels["cuh"],
            deps = [":%s_interface" % name, "//ops/common/cuda_dialect:device"] + cuda_deps,
            alwayslink = True,
            target_compatible_with = _only_with("//tools:nvidia_backend"),
        )
        backend_kernels["//tools:nvidia_backend"] = [":%s_nvidia" % name]
    if maca_srcs:
        maca_library(
            name = name + "_metax",
            srcs = kernels["maca"],
            hdrs = kernels["cuh"] + kernels["cu"],
            deps = [":%s_interface" % name, "//ops/common/cuda_dialect:device"] + cuda_deps,
            alwayslink = True,
            target_compatible_with = _only_with("//tools:metax_backend"),
        )
        backend_kernels["//tools:metax_backend"] = [":%s_metax" % name]
    cc_library(
        name = name,
        srcs = srcs,
        deps = [":%s_interface" % name] + select(backend_kernels),
        alwayslink = True,
        visibility = ["//ops:__pkg__"],
    )
    py_library(
        name = "cases",
        srcs = ["cases.py"],
        deps = ["//python:operator_runtime"],
        visibility = ["//visibility:public"],
    )
    test_srcs = test_srcs or ["test_%s.py" % name]

    # The op's tests also run from its subpackages (ops/NAME/tilelang: the same tests on the tilelang backend).
    native.exports_files(test_srcs, visibility = ["//%s:__subpackages__" % native.package_name()])
    for backend, tags, size in [("cpu", [], test_size), ("nvidia", ["gpu"], device_test_size), ("metax", ["metax"], device_test_size)]:
        py_test(
            name = "test_%s" % name + ("" if backend == "cpu" else "_" + backend),
            size = size,
            srcs = test_srcs,
            main = test_srcs[0],
            deps = [":cases", "//python:operator_runtime"],
            env = {"OPRT_TEST_BACKENDS": backend},
            tags = tags,
        )
