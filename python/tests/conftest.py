"""Shared helpers of the Python tests (python/tests).

The tests import the installed package `tessel` (scripts/test.sh installs the
freshly built wheel into build/python/site and puts it on PYTHONPATH).  The
parity tests also run the command line: $TESSEL_CLI, else build/*/tessel.
"""
import glob
import os

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.path.join(ROOT, "tests", "data")


def read_cases(name):
    """(expression, expected) of a TAB-separated file of tests/data, skipping blank and '#' lines."""
    cases = []
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            expr, _, expected = line.partition("\t")
            cases.append((expr, expected))
    return cases


def find_cli():
    path = os.environ.get("TESSEL_CLI")
    if path:
        return path if os.access(path, os.X_OK) else None
    for candidate in sorted(glob.glob(os.path.join(ROOT, "build", "*", "tessel"))):
        if os.access(candidate, os.X_OK) and os.path.isfile(candidate):
            return candidate
    return None


@pytest.fixture(scope="session")
def cli():
    path = find_cli()
    if path is None:
        pytest.skip("no tessel command line built (set TESSEL_CLI or build build/<preset>/tessel): parity not checked")
    return path


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A call that a one-instance build (TESSEL_GEMM_INSTANCES=one) does not hold is a skip, not a failure:
    the library's GemmError says so ("this build holds the step for ..."), and an `all` build runs it."""
    outcome = yield
    report = outcome.get_result()
    excinfo = call.excinfo
    if (call.when == "call" and excinfo is not None and excinfo.typename == "GemmError"
            and "this build holds the step for" in str(excinfo.value)):
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1] or 0, "one-instance build: " + str(excinfo.value))
