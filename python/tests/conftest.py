"""Shared by the unit and end-to-end tests: the package from this tree (python/src), and no
silent skips (a skipped test fails, saying why)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = (f"{item.nodeid} was skipped ({call.excinfo.value if call.excinfo else ''}"
                           "); these tests are never skipped: a missing dependency is a failure "
                           "(run scripts/bootstrap)")
