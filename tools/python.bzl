"""@local_python: the Python interpreter for py_binary/py_test and its C headers.

The interpreter is the one with numpy, pytest and absl-py: ./bazelw passes --repo_env=PYTHON_BIN_PATH;
otherwise python3 on PATH at fetch time. Without this, --incompatible_strict_action_env would make
tests run /usr/bin/python3, which may lack those packages.

:python_headers are that same interpreter's headers (sysconfig's "include"), for the _fastcall
extension. Without them the repository still exists and building the extension fails in one line.
"""

def _local_python_impl(rctx):
    py = rctx.os.environ.get("PYTHON_BIN_PATH") or rctx.which("python3")
    if not py:
        fail("no python3 on PATH; set --repo_env=PYTHON_BIN_PATH=/path/to/python3")
    query = "import sys, sysconfig; print(sys.executable); print(sysconfig.get_paths()['include'])"
    res = rctx.execute([py, "-c", query])
    if res.return_code != 0:
        fail("cannot run %s: %s" % (py, res.stderr))
    exe, include = res.stdout.strip().split("\n")
    if rctx.path(include + "/Python.h").exists:
        rctx.symlink(include, "include")
        headers = 'cc_library(name = "python_headers", hdrs = glob(["include/**/*.h"]), includes = ["include"])'
    else:
        message = ("ERROR: no Python.h in %s (the headers of %s): install them (Debian: apt-get install " +
                   "python3-dev) to build the operator_runtime._fastcall extension") % (include, exe)
        headers = """
genrule(name = "missing_headers", outs = ["Python.h"], cmd = "echo '{message}' >&2; exit 1")
cc_library(name = "python_headers", hdrs = [":missing_headers"])
""".format(message = message.replace("'", ""))  # one single-quoted shell word
    rctx.file("BUILD.bazel", """
load("@rules_python//python:defs.bzl", "py_runtime", "py_runtime_pair")
package(default_visibility = ["//visibility:public"])
py_runtime(name = "py3", interpreter_path = "{exe}", python_version = "PY3")
py_runtime_pair(name = "pair", py3_runtime = ":py3")
toolchain(
    name = "toolchain",
    toolchain = ":pair",
    toolchain_type = "@bazel_tools//tools/python:toolchain_type",
)
{headers}
""".format(exe = exe, headers = headers))

local_python = repository_rule(
    implementation = _local_python_impl,
    environ = ["PYTHON_BIN_PATH"],
    local = True,
)
