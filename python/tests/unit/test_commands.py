"""The command builders refuse what robot-edged would drop or silently change."""
import math
import time

import pytest

from edge.generated.edge_cloud_pb2 import CloudCommand, Mode
from robot_edge import commands


def test_velocity_ranges():
    c = commands.velocity(0.5, -1.0, 2.0)
    assert (c.velocity.vx, c.velocity.vy, c.velocity.vyaw) == (0.5, -1.0, 2.0)
    with pytest.raises(ValueError, match=r"vx 2.5 m/s is outside -2..2 m/s"):
        commands.velocity(2.5)
    with pytest.raises(ValueError, match=r"vy -1.1 m/s is outside -1..1 m/s"):
        commands.velocity(0, -1.1)
    with pytest.raises(ValueError, match=r"vyaw .* rad/s"):
        commands.velocity(0, 0, 3)
    with pytest.raises(ValueError, match="not a finite number"):
        commands.velocity(math.nan)


def test_mode_numbering_is_the_commands_not_firmware_modes():
    assert commands.mode(Mode.MODE_DAMP).mode.mode == 1
    assert commands.mode(Mode.MODE_STAND).mode.mode == 0
    with pytest.raises(ValueError):
        commands.mode(7)


def test_trajectory_shapes_and_gains():
    pose = [0.1] * 25
    c = commands.trajectory(pose)
    assert len(c.trajectory.full.segments) == 1
    assert list(c.trajectory.full.segments[0].positions) == pytest.approx(pose)
    assert len(c.trajectory.full.segments[0].kp) == 0  # robot's defaults
    c = commands.trajectory([pose, pose, pose], kp=[100] * 25, kd=[2] * 25)
    assert len(c.trajectory.full.segments) == 3
    assert list(c.trajectory.full.segments[2].kd) == [2] * 25
    with pytest.raises(ValueError, match="24 values; the robot has 25 joints"):
        commands.trajectory([0.0] * 24)
    with pytest.raises(ValueError, match=r"positions\[3\] is nan"):
        commands.trajectory([0.0] * 3 + [math.nan] + [0.0] * 21)
    with pytest.raises(ValueError, match="kp has 24 values"):  # the robot would use its defaults
        commands.trajectory(pose, kp=[50] * 24)
    with pytest.raises(ValueError, match=r"kp\[0\] 600 N·m/rad is outside 0..500"):
        commands.trajectory(pose, kp=[600] + [50] * 24)
    with pytest.raises(ValueError, match=r"kd\[1\] 6 N·m·s/rad is outside 0..5"):
        commands.trajectory(pose, kd=[1, 6] + [1] * 23)


def test_limits_refuse_what_the_robot_would_clamp():
    limits = [(-1.0, 1.0)] * 25
    names = [f"J{i}" for i in range(25)]
    commands.trajectory([1.0] * 25, limits=limits, names=names)
    with pytest.raises(ValueError, match=r"J4: 1.2000 rad is outside its limits -1..1 rad"):
        commands.trajectory([0.0] * 4 + [1.2] + [0.0] * 20, limits=limits, names=names)


def test_apply_targets():
    names = ["A", "B", "C"]
    assert commands.apply_targets([0, 0, 0], {"B": 0.5, 2: -1}, names) == [0, 0.5, -1]
    with pytest.raises(ValueError, match="unknown joint 'D' \\(joints: A, B, C\\)"):
        commands.apply_targets([0, 0, 0], {"D": 1}, names)
    with pytest.raises(ValueError, match="index 3"):
        commands.apply_targets([0, 0, 0], {3: 1}, names)


def test_sequencer_stamps_increasing_sequences_and_the_wall_clock():
    s = commands.Sequencer()
    a, b = CloudCommand(), CloudCommand()
    assert s.last == 0
    assert s.stamp(a) == 1 and s.stamp(b) == 2 and s.last == 2
    assert abs(a.timestamp_us - time.time() * 1e6) < 2e6
    assert b.timestamp_us >= a.timestamp_us
    assert s.stamp(CloudCommand(), now_us=42) == 3
    w = commands.Sequencer(first=0xFFFFFFFF)
    c = CloudCommand()
    assert w.stamp(c) == 0xFFFFFFFF and w.stamp(c) == 1  # wraps, never 0
