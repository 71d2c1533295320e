"""oprt_operator: the one macro an operator's BUILD.bazel calls.

It declares, for operator NAME:
  :NAME_interface  cc_library  the op's internal header(s) (plan, functor, kernel table)
  :NAME_nvidia     cuda_library  nvidia/*.cu   (built only with --config=nvidia)
  :NAME_metax      maca_library  metax/*.maca  (built only with --config=metax)
  :NAME            cc_library  public entry points + CPU reference + the selected backend's kernels
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

def oprt_operator(name, srcs, hdrs, deps = [], cuda_deps = [], test_srcs = None, test_size = "small", device_test_size = "medium"):
    native.package(default_visibility = ["//visibility:private"])
    cuda_srcs = native.glob(["nvidia/*.cu"])
    maca_srcs = native.glob(["metax/*.maca"])
    cc_library(
        name = name + "_interface",
        hdrs = hdrs,
        deps = deps + ["//ops/runtime", "//include:operator_runtime"],
    )
    backend_kernels = {"//conditions:default": []}
    if cuda_srcs:
        cuda_library(
            name = name + "_nvidia",
            srcs = cuda_srcs,
            hdrs = native.glob(["nvidia/*.cuh"]),
            deps = [":%s_interface" % name, "//ops/common/cuda_dialect:device"] + cuda_deps,
            alwayslink = True,
            target_compatible_with = _only_with("//tools:nvidia_backend"),
        )
        backend_kernels["//tools:nvidia_backend"] = [":%s_nvidia" % name]
    if maca_srcs:
        maca_library(
            name = name + "_metax",
            srcs = maca_srcs,
            hdrs = native.glob(["nvidia/*.cuh", "nvidia/*.cu"]),
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
