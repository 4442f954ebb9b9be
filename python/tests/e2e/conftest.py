import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from rig import Robot  # noqa: E402


def pytest_configure(config):
    if not os.environ.get("ROBOT_EDGE_VCAN_HARNESS"):
        raise pytest.UsageError(
            "the end-to-end tests need vcan0..vcan4: run them inside tests/vcan/run (CTest's "
            "vcan.python does)")


@pytest.fixture(scope="module")
def robot():
    r = Robot()
    yield r
    r.stop()


@pytest.fixture(autouse=True)
def logs_on_failure(request):
    yield
    rep = getattr(request.node, "rep_call", None)
    r = request.node.funcargs.get("robot")
    if rep is not None and rep.failed and r is not None:
        print(r.logs())


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if rep.when == "call":
        item.rep_call = rep
