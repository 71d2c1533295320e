"""The entry point of a test file: `raise SystemExit(testing.main(__file__))` runs pytest on it."""

from __future__ import annotations

import os
import sys


def main(path: str, args=()) -> int:
    """Runs pytest on one test file and returns its exit code; under `bazel test` it writes the JUnit
    XML Bazel asks for, so every parametrization is counted, and `--test_filter=EXPR` selects tests as
    pytest's `-k EXPR` does (names, substrings, `and` / `or` / `not`). Usage at the end of test_<op>.py:
        if __name__ == "__main__":
            raise SystemExit(testing.main(__file__))
    """
    import pytest

    argv = [str(path), "-q", "-p", "no:cacheprovider", "-rs" if os.environ.get("OPRT_TEST_VERBOSE") else "-rN"]
    xml = os.environ.get("XML_OUTPUT_FILE")
    if xml:
        argv.append("--junitxml=" + xml)
    only = os.environ.get("TESTBRIDGE_TEST_ONLY")  # bazel test --test_filter=EXPR: pytest's -k EXPR
    if only:
        argv += ["-k", only]
    argv += list(args) + sys.argv[1:]
    code = int(pytest.main(argv))
    if only and code == int(pytest.ExitCode.NO_TESTS_COLLECTED):
        return 0  # a filter that selects nothing here (bazel test //... --test_filter=...): nothing failed
    return code
