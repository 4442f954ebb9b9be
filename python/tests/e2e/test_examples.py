"""Each python/examples/ script, run as a user would against a running daemon (--socket)."""
import os
import re
import subprocess
import sys

import pytest

from rig import REPO

EXAMPLES = os.path.join(REPO, "python", "examples")


def run(script, *args, timeout=60):
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python", "src"),
               PYTHONDONTWRITEBYTECODE="1")
    p = subprocess.run([sys.executable, os.path.join(EXAMPLES, script), *args], env=env,
                       capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout + p.stderr


def test_telemetry_example(robot):
    code, out = run("telemetry.py", "--socket", robot.api_socket, "--seconds", "2")
    assert code == 0, out
    assert out.count("Mode: 0") >= 10  # FW_MODE_DAMP, at 10 Hz for 2 s
    assert re.search(r"Joint positions: \[(-?[0-9.e-]+, ){24}-?[0-9.e-]+\]", out)
    assert re.search(r"IMU quaternion: \[", out)
    hz = float(re.search(r"frames in [0-9.]+ s \(([0-9.]+) Hz\)", out).group(1))
    assert 7 < hz < 13, out


def test_trajectory_example(robot):
    code, out = run("trajectory.py", "--socket", robot.api_socket, "--duration", "1.5",
                    "--hold", "0.5")
    assert code == 0, out
    assert re.search(r"sent 101 packets at 50 Hz .* the last accepted", out), out
    assert "L_Elbow: target +1.200 rad" in out
    assert "then: TRAJECTORY_TIMEOUT" in out


def test_walk_example_without_a_policy_reports_the_drop(robot):
    code, out = run("walk.py", "--socket", robot.api_socket, "--seconds", "0.5")
    assert code == 1, out
    assert "STAND: accepted" in out and "telemetry: FW_MODE_STAND" in out
    assert "walk vx=0.5 m/s: dropped (velocity_no_policy)" in out
    assert "DAMP: accepted" in out


def test_examples_say_when_no_daemon_runs(tmp_path):
    for script in ("walk.py", "trajectory.py", "telemetry.py"):
        code, out = run(script, "--socket", str(tmp_path / "none.sock"))
        assert code == 2 and "is robot-edged running?" in out, (script, out)
