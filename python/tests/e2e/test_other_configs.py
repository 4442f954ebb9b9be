"""Robots with another config than the default, each started for its test (one robot-edged at a
time may drive the vcan buses: these run after the modules sharing a default robot)."""
import pytest

from robot_edge import Client, Refused
from rig import Robot
from test_examples import run


def test_tcp_with_a_wrong_token_is_refused_with_the_daemons_reason():
    r = Robot(edits=[('tcp: ""', 'tcp: "127.0.0.1:7433"'),
                     ("access: {}", "access: {cloud: {token_file: cloud.token}}")],
              files={"cloud.token": "s3cret-s3cret-s3cret\n"})  # as tests/e2e/api_test.cpp
    try:
        with Client(tcp="127.0.0.1:7433", token="wrong") as c:
            with pytest.raises(Refused) as e:
                c.hello(controller="cloud")
        assert e.value.reason == "invalid token for 'cloud'"
        with Client(tcp="127.0.0.1:7433", token="s3cret-s3cret-s3cret") as c:
            assert len(c.hello(controller="cloud").joint_names) == 25
            assert c.damp().accepted
        assert "s3cret-s3cret-s3cret" not in r.daemon_log()
    finally:
        r.stop()


def test_walk_example_with_the_demo_policy_walks():
    r = Robot(policy=True)
    try:
        code, out = run("walk.py", "--socket", r.api_socket, "--vx", "0.3", "--seconds", "1")
        assert code == 0, out + r.logs()
        assert "walk vx=0.3 m/s: accepted" in out and "DAMP: accepted" in out
    finally:
        r.stop()
