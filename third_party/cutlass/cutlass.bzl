"""@cutlass: CUTLASS/CuTe headers for the CuTe kernel variants, fetched lazily (only a build that needs them).

Source, in order: $OPRT_CUTLASS_ROOT (a CUTLASS checkout or its include/ folder, like the camp's
CAMP_CUTLASS_ROOT); else the nvidia-cutlass wheel on the Python package index, pinned by sha256 (a .whl
is a zip; its headers are under cutlass_library/source/include).

Targets: :cute (the headers; where they cannot be had, a build that needs them fails in one line) and
:cute_if_available (the headers, or nothing), each defining OPRT_HAVE_CUTE=1 or 0 for the kernels.
Which one a build uses is --//tools:cute=auto|on|off (see //tools:BUILD.bazel).
"""

CUTLASS_VERSION = "4.2.0.0"
CUTLASS_WHEEL_URL = ("https://files.pythonhosted.org/packages/21/6b/" +
                     "e86fc2fd536dd4b8bd2209aa31d7002610c501b0802337787eac9c9b328c/" +
                     "nvidia_cutlass-4.2.0.0-py3-none-any.whl")
CUTLASS_WHEEL_SHA256 = "f9599ada45c7bcb6bf53f7d3f0a7d154183e53451c01bfa59eecd37dd4a693f6"

_HEADERS = """
cc_library(
    name = "cute",
    hdrs = glob(["include/cute/**", "include/cutlass/**"]),
    includes = ["include"],
    defines = ["OPRT_HAVE_CUTE=1"],
)
alias(name = "cute_if_available", actual = ":cute")
"""

_MISSING = """
genrule(name = "missing", outs = ["missing.h"], cmd = "echo '{message}' >&2; exit 1")
cc_library(name = "cute", hdrs = [":missing"])
cc_library(name = "cute_if_available", defines = ["OPRT_HAVE_CUTE=0"])
"""

# Checks the download against CUTLASS_WHEEL_SHA256 whichever way it came.
_PYTHON_FETCH = """
import hashlib, sys, urllib.request
data = urllib.request.urlopen(sys.argv[1], timeout=120).read()
if hashlib.sha256(data).hexdigest() != sys.argv[2]:
    sys.exit("sha256 mismatch")
open(sys.argv[3], "wb").write(data)
"""

def _fetch_wheel(rctx):
    """Bazel's downloader first (repository cache, --distdir); python3's urllib where Bazel's JDK has no
    CA certificates (a bootstrapped Bazel), which uses the system's."""
    if rctx.download(CUTLASS_WHEEL_URL, "cutlass.zip", sha256 = CUTLASS_WHEEL_SHA256, allow_fail = True).success:
        return True
    python = rctx.os.environ.get("PYTHON_BIN_PATH") or rctx.which("python3")
    if not python:
        return False
    result = rctx.execute([python, "-c", _PYTHON_FETCH, CUTLASS_WHEEL_URL, CUTLASS_WHEEL_SHA256, "cutlass.zip"],
                          timeout = 300)
    return result.return_code == 0

def _cutlass_impl(rctx):
    header = "cute/tensor.hpp"
    root = rctx.os.environ.get("OPRT_CUTLASS_ROOT")
    if root:
        for include in [root + "/include", root]:
            if rctx.path(include + "/" + header).exists:
                rctx.symlink(include, "include")
                rctx.file("BUILD.bazel", 'package(default_visibility = ["//visibility:public"])\n' + _HEADERS)
                return
        problem = "OPRT_CUTLASS_ROOT=%s has no %s (nor include/%s)" % (root, header, header)
    else:
        if _fetch_wheel(rctx):
            rctx.extract("cutlass.zip", stripPrefix = "cutlass_library/source")
            rctx.delete("cutlass.zip")
            rctx.file("BUILD.bazel", 'package(default_visibility = ["//visibility:public"])\n' + _HEADERS)
            return
        problem = "cannot download nvidia-cutlass %s from the Python package index" % CUTLASS_VERSION
    message = ("ERROR: CUTLASS/CuTe not available (" + problem + "): set OPRT_CUTLASS_ROOT=/path/to/cutlass, " +
               "or build with --//tools:cute=off (or auto) to leave the CuTe variants out")
    rctx.file("BUILD.bazel", 'package(default_visibility = ["//visibility:public"])\n' +
                             _MISSING.format(message = message.replace("'", "")))

cutlass_headers = repository_rule(
    implementation = _cutlass_impl,
    environ = ["OPRT_CUTLASS_ROOT", "PYTHON_BIN_PATH"],
)
