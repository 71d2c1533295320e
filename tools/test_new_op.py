"""new_op without Bazel: the names it refuses (one line, exit 2), what it writes for each kind, and that the
only file it changes outside the new folder is ops/operators.bzl, by one sorted line. (tools/new_op_build_test.sh
builds generated operators in a scratch clone: CI runs it.)"""

import pathlib
import shutil
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import new_op  # noqa: E402


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    """A fake checkout: ops/operators.bzl and the existing op folders' BUILD files."""
    (tmp_path / "ops" / "copy").mkdir(parents=True)
    (tmp_path / "ops" / "copy" / "BUILD.bazel").write_text("")
    (tmp_path / "ops" / "elementwise" / "relu").mkdir(parents=True)
    (tmp_path / "ops" / "elementwise" / "relu" / "BUILD.bazel").write_text("")
    (tmp_path / "ops" / "operators.bzl").write_text(
        '"""The registry."""\n\nOPERATORS = [\n    "//ops/copy",\n    "//ops/elementwise/relu",\n]\n')
    monkeypatch.setenv("BUILD_WORKSPACE_DIRECTORY", str(tmp_path))
    return tmp_path


@pytest.mark.parametrize("name,why", [
    ("Gelu", "not a valid operator name"), ("2x", "not a valid operator name"), ("my-op", "not a valid operator name"),
    ("a__b", "not a valid operator name"), ("gelu_", "not a valid operator name"), ("x" * 41, "not a valid operator name"),
    ("", "not a valid operator name"), ("lambda", "reserved"), ("backend", "reserved"),
    ("copy", "already exists"), ("relu", "already exists"), ("log_softmax", "already exists"),
])
def test_refuses_with_one_line(workspace, capsys, name, why):
    before = (workspace / "ops" / "operators.bzl").read_text()
    assert new_op.main(["--name", name, "--kind", "unary"]) == 2
    err = capsys.readouterr().err.strip()
    assert why in err and "\n" not in err, err
    assert (workspace / "ops" / "operators.bzl").read_text() == before
    assert sorted(p.name for p in (workspace / "ops").iterdir()) == ["copy", "elementwise", "operators.bzl"]


def test_refuses_an_unknown_kind(workspace):
    with pytest.raises(SystemExit) as exit_info:
        new_op.main(["--name", "gelu", "--kind", "ternary"])
    assert exit_info.value.code == 2


@pytest.mark.parametrize("kind", new_op.KINDS)
def test_writes_the_folder_and_one_registry_line(workspace, kind):
    assert new_op.main(["--name", "my_op", "--kind", kind]) == 0
    files = sorted(str(p.relative_to(workspace)) for p in (workspace / "ops" / "my_op").rglob("*") if p.is_file())
    for expected in ["BUILD.bazel", "cases.py", "include/my_op.h", "my_op.cc", "my_op.h", "my_op.py",
                     "test_my_op.py", "cpu/my_op_cpu.cc", "nvidia/kernel.cuh", "nvidia/my_op_cuda.cu",
                     "metax/my_op_metax.maca"]:
        assert "ops/my_op/" + expected in files, files
    for path in files:
        text = (workspace / path).read_text()
        assert "{{op}}" not in text and "{{Op}}" not in text and "{{OP}}" not in text, path
    assert "MyOp" in (workspace / "ops/my_op/my_op.h").read_text()
    registry = (workspace / "ops" / "operators.bzl").read_text().split("\n")
    assert registry[3:6] == ['    "//ops/copy",', '    "//ops/elementwise/relu",', '    "//ops/my_op",'], registry
    # Generated sources are valid Python.
    for path in files:
        if path.endswith(".py"):
            compile((workspace / path).read_text(), path, "exec")


def test_template_kernels_refuse_until_written():
    """Every kind's kernels start with the TODO check, and its reference raises: nothing passes vacuously."""
    for kind in new_op.KINDS:
        source = new_op.TEMPLATES / kind
        assert "OPRT_TODO_LEFT" in (source / "{{op}}.h.tmpl").read_text() or \
            "OPRT_TODO_LEFT" in (source / "nvidia" / "kernel.cuh.tmpl").read_text(), kind
        assert "OPRT_RETURN_IF_TODO_LEFT()" in (source / "cpu" / "{{op}}_cpu.cc.tmpl").read_text(), kind
        assert "OPRT_RETURN_IF_TODO_LEFT()" in (source / "nvidia" / "kernel.cuh.tmpl").read_text(), kind
        assert "raise NotImplementedError" in (source / "cases.py.tmpl").read_text(), kind


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
