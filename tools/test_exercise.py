"""tools/exercise.py as a learner meets it, on a made-up checkout: start writes exercise/ with the marked
regions replaced by TODO lines at their indentation and the OPRT_TODO_LEFT line at the top of kernel.cuh;
list and reset; the refusals (unknown op, no markers, an exercise in progress, a broken marker) are one
line on stderr and exit status 1."""

import os
import pathlib
import subprocess
import sys

import pytest

TOOL = pathlib.Path(__file__).resolve().parent / "exercise.py"

KERNEL = """\
// demo on the device.
// Second comment line.
#ifndef DEMO_KERNEL_CUH_
#define DEMO_KERNEL_CUH_
#include "ops/runtime/todo.h"
inline int launch_demo(int a) {
  OPRT_RETURN_IF_TODO_LEFT();
  // EXERCISE(step 1): double a
  int b = 2 * a;
  // EXERCISE END
  if (a) {
    // EXERCISE(step 2): return b plus one
    return b + 1;
    // EXERCISE END
  }
  return b;
}
#endif
"""


def run(root, *args):
    env = dict(os.environ, BUILD_WORKSPACE_DIRECTORY=str(root))
    r = subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True, env=env)
    return r.returncode, r.stdout, r.stderr


@pytest.fixture
def root(tmp_path):
    (tmp_path / "ops").mkdir()
    (tmp_path / "ops" / "operators.bzl").write_text('OPERATORS = [\n    "//ops/elementwise/demo",\n    "//ops/plain",\n]\n')
    nvidia = tmp_path / "ops" / "elementwise" / "demo" / "nvidia"
    nvidia.mkdir(parents=True)
    (nvidia / "kernel.cuh").write_text(KERNEL)
    (nvidia / "demo_cuda.cu").write_text('#include "kernel.cuh"\n#include "ops/elementwise/demo/nvidia/other.cuh"\n')
    (tmp_path / "ops" / "plain" / "nvidia").mkdir(parents=True)
    (tmp_path / "ops" / "plain" / "nvidia" / "kernel.cuh").write_text("// no markers\n")
    return tmp_path


def test_start_list_reset(root):
    code, out, err = run(root, "start", "demo")
    assert code == 0, err
    exercise = root / "ops" / "elementwise" / "demo" / "exercise"
    kernel = (exercise / "kernel.cuh").read_text()
    assert kernel.splitlines()[2] == ('#define OPRT_TODO_LEFT "demo: kernel not implemented: edit '
                                      'ops/elementwise/demo/exercise/kernel.cuh (2 TODOs), then delete this line"')
    assert "  // TODO(step 1): double a\n  if (a) {\n    // TODO(step 2): return b plus one\n  }\n" in kernel
    assert "EXERCISE" not in kernel and "2 * a" not in kernel and "b + 1" not in kernel
    assert kernel.replace(kernel.splitlines()[2] + "\n", "").startswith("// demo on the device.\n// Second comment line.\n#ifndef")
    # Siblings by bare name stay; a full nvidia/ path is pointed at the copy.
    assert (exercise / "demo_cuda.cu").read_text() == '#include "kernel.cuh"\n#include "ops/elementwise/demo/exercise/other.cuh"\n'
    # The reference is untouched.
    assert (root / "ops" / "elementwise" / "demo" / "nvidia" / "kernel.cuh").read_text() == KERNEL

    code, out, err = run(root, "list")
    assert code == 0, err
    assert out.split("\n")[0].split()[:4] == ["demo", "ops/elementwise/demo", "2", "steps"]
    assert "in progress: ops/elementwise/demo/exercise/" in out
    assert "no exercise" in out.split("\n")[1]

    code, out, err = run(root, "start", "demo")
    assert code == 1 and err.count("\n") == 1 and "exists" in err and "reset demo" in err
    (exercise / "kernel.cuh").write_text("learner's work")
    code, out, err = run(root, "start", "--force", "demo")
    assert code == 0, err
    assert "TODO(step 1)" in (exercise / "kernel.cuh").read_text()

    code, out, err = run(root, "reset", "demo")
    assert code == 0 and not exercise.exists()
    code, out, err = run(root, "reset", "demo")
    assert code == 0 and "no exercise in progress" in out


@pytest.mark.parametrize("args,message", [
    (["start", "nosuch"], "unknown op 'nosuch' (ops: demo, plain)"),
    (["start", "plain"], "plain has no EXERCISE markers"),
    (["reset", "nosuch"], "unknown op 'nosuch'"),
])
def test_refusals_are_one_line(root, args, message):
    code, out, err = run(root, *args)
    assert code == 1 and err.count("\n") == 1 and message in err, err


@pytest.mark.parametrize("text,message", [
    ("// EXERCISE(step 1): x\nint a;\n", "without `// EXERCISE END`"),
    ("int a;\n// EXERCISE END\n", "EXERCISE END without"),
    ("// EXERCISE(step 1): x\n// EXERCISE(step 2): y\n// EXERCISE END\n", "inside the region"),
    ("// EXERCISE(step one): x\n// EXERCISE END\n", "malformed marker"),
])
def test_broken_markers_are_refused(root, text, message):
    (root / "ops" / "elementwise" / "demo" / "nvidia" / "kernel.cuh").write_text(KERNEL + text)
    code, out, err = run(root, "start", "demo")
    assert code == 1 and message in err, err
    assert not (root / "ops" / "elementwise" / "demo" / "exercise").exists()


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
