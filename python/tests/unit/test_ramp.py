"""The trajectory paths and the stream schedule (client/ramp.hpp's scheme)."""
import math

import pytest

from robot_edge.ramp import FunctionPath, Ramp, StreamPlan, Waypoints, smoothstep

NAMES = [f"J{i}" for i in range(25)]


def test_smoothstep():
    assert smoothstep(-1) == 0 and smoothstep(0) == 0 and smoothstep(1) == 1 and smoothstep(2) == 1
    assert smoothstep(0.5) == pytest.approx(0.5)
    h = 1e-6
    assert (smoothstep(0.5 + h) - smoothstep(0.5 - h)) / (2 * h) == pytest.approx(1.875)


def test_ramp_starts_at_start_and_ends_at_goal():
    start, goal = [0.0] * 25, [0.0] * 25
    goal[12] = 1.0
    r = Ramp(start, goal, 2.0)
    assert r.pose_at(0.0) == start and r.pose_at(2.0) == goal and r.pose_at(5.0) == goal
    assert r.pose_at(1.0)[12] == pytest.approx(0.5)
    assert r.peak_speed_rad_s == pytest.approx(1.875 * 1.0 / 2.0)
    assert Ramp(start, goal, 2.0, "linear").pose_at(0.5)[12] == pytest.approx(0.25)
    with pytest.raises(ValueError):
        Ramp(start, goal[:24], 1.0)
    with pytest.raises(ValueError):
        Ramp(start, goal, -1.0)


def test_plan_packets_and_segments():
    start, goal = [0.0] * 25, [0.0] * 25
    goal[12] = 0.5
    plan = StreamPlan(Ramp(start, goal, 2.0), 2.0, rate_hz=50, control_rate_hz=500,
                      names=NAMES)
    assert plan.packet_count == 101  # 0 .. 2.0 s inclusive
    assert plan.segments_per_packet == 10
    first = plan.segments(0)
    assert len(first) == 10 and first[0] == start
    assert plan.segments(100)[0] == goal
    plan.check_all()


def test_plan_refuses_too_fast_and_a_first_target_away_from_the_measured_pose():
    start, goal = [0.0] * 25, [0.0] * 25
    goal[15] = 2.0
    with pytest.raises(ValueError, match=r"J15 would move at .* rad/s .*max_speed_rad_s 1"):
        StreamPlan(Ramp(start, goal, 1.0), 1.0, 50, 500, max_speed_rad_s=1.0,
                   names=NAMES).check_all()
    far = FunctionPath(lambda t: [0.5] * 25, start, NAMES)
    with pytest.raises(ValueError, match="from the measured pose to the first target"):
        StreamPlan(far, 1.0, 50, 500, names=NAMES).segments(0)


def test_plan_checks_limits():
    start, goal = [0.0] * 25, [0.0] * 25
    goal[3] = 1.0
    plan = StreamPlan(Ramp(start, goal, 2.0), 2.0, 50, 500, limits=[(-0.5, 0.5)] * 25,
                      names=NAMES)
    with pytest.raises(ValueError, match="J3: .* outside its limits"):
        plan.check_all()


def test_waypoints_and_function_paths():
    start = [0.0] * 25
    a, b = list(start), list(start)
    a[0], b[0] = 0.4, -0.4
    w = Waypoints(start, [(1.0, a), (3.0, b)])
    assert w.duration_s == 3.0
    assert w.pose_at(1.0)[0] == pytest.approx(0.4) and w.pose_at(2.0)[0] == pytest.approx(0.0)
    assert w.pose_at(9)[0] == pytest.approx(-0.4)
    with pytest.raises(ValueError, match="not after"):
        Waypoints(start, [(1.0, a), (1.0, b)])
    f = FunctionPath(lambda t: {"J1": 0.1 * math.sin(t)}, start, NAMES)
    assert f.pose_at(0.0) == start and f.pose_at(1.0)[1] == pytest.approx(0.1 * math.sin(1))
