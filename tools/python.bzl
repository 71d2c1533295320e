"""Pins the Python interpreter used by py_binary/py_test to the one with numpy, pytest and absl-py.

./bazelw passes --repo_env=PYTHON_BIN_PATH; otherwise python3 on PATH at fetch time. Without this,
--incompatible_strict_action_env would make tests run /usr/bin/python3, which may lack those packages.
"""

def _local_python_impl(rctx):
    py = rctx.os.environ.get("PYTHON_BIN_PATH") or rctx.which("python3")
    if not py:
        fail("no python3 on PATH; set --repo_env=PYTHON_BIN_PATH=/path/to/python3")
    res = rctx.execute([py, "-c", "import sys; print(sys.executable)"])
    if res.return_code != 0:
        fail("cannot run %s: %s" % (py, res.stderr))
    rctx.file("BUILD.bazel", """
load("@rules_python//python:defs.bzl", "py_runtime", "py_runtime_pair")
py_runtime(name = "py3", interpreter_path = "{exe}", python_version = "PY3")
py_runtime_pair(name = "pair", py3_runtime = ":py3")
toolchain(
    name = "toolchain",
    toolchain = ":pair",
    toolchain_type = "@bazel_tools//tools/python:toolchain_type",
)
""".format(exe = res.stdout.strip()))

local_python = repository_rule(
    implementation = _local_python_impl,
    environ = ["PYTHON_BIN_PATH"],
    local = True,
)
