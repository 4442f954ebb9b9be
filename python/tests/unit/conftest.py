import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fake_daemon import FakeDaemon  # noqa: E402


@pytest.fixture
def daemon(tmp_path):
    d = FakeDaemon(str(tmp_path / "api.sock"))
    yield d
    d.close()
