"""oprt_tilelang: the BUILD.bazel of an operator's tilelang/ package (ops/<op>/tilelang).

It declares, for operator NAME (its package one level up):
  :tilelang             py_library  kernel.py (the TileLang program) + launcher.py
  :test_NAME_tilelang   py_test     the op's own test_NAME.py on OPRT_TEST_BACKENDS=tilelang, with its cases.py;
                                    tagged `gpu` and `tilelang`, so a plain `bazel test //...` (which filters out
                                    `gpu`) never runs it.
tilelang itself is not a Bazel dependency: it is an optional pip package (`pip install tilelang`, or the
`tilelang` extra of pyproject.toml) taken from the Python that runs the test; the test skips its cases when
the backend is unavailable (no tilelang, no CUDA GPU).
"""

load("@rules_python//python:defs.bzl", "py_library", "py_test")

def oprt_tilelang(name, test_size = "large"):
    op_package = "//" + native.package_name().rsplit("/", 1)[0]
    py_library(
        name = "tilelang",
        srcs = ["kernel.py", "launcher.py"],
        deps = ["//python:operator_runtime"],
        visibility = ["//visibility:public"],
    )
    test_src = "%s:test_%s.py" % (op_package, name)
    py_test(
        name = "test_%s_tilelang" % name,
        size = test_size,
        srcs = [test_src],
        main = test_src,
        deps = [":tilelang", op_package + ":cases", "//python:operator_runtime"],
        env = {"OPRT_TEST_BACKENDS": "tilelang"},
        tags = ["gpu", "tilelang"],
    )
