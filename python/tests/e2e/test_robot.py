"""The client against the real robot-edged driving robot-edge-sim on vcan buses, in the order a
session goes: Hello, telemetry, refusals in DAMP, STAND, a refused walk without a policy, a 50 Hz
trajectory and its timeout, DAMP, resume after a reconnect. One robot for the module: each test
leaves it in DAMP."""
import time

import pytest

from edge.generated.edge_api_pb2 import (CONTROL_MODE_DAMP, CONTROL_MODE_MOVE_TRAJECTORY,
                                         CONTROL_MODE_STAND)
from edge.generated.edge_cloud_pb2 import FirmwareMode
from robot_edge import AsyncClient, Client
from rig import config_text

JOINTS = ["L_Hip_Pitch", "L_Hip_Roll", "L_Hip_Yaw", "L_Knee", "L_Ankle_A", "L_Ankle_B",
          "R_Hip_Pitch", "R_Hip_Roll", "R_Hip_Yaw", "R_Knee", "R_Ankle_A", "R_Ankle_B",
          "L_Shoulder_Pitch", "L_Shoulder_Roll", "L_Shoulder_Yaw", "L_Elbow", "L_Wrist_Yaw",
          "R_Shoulder_Pitch", "R_Shoulder_Roll", "R_Shoulder_Yaw", "R_Elbow", "R_Wrist_Yaw",
          "Waist_Yaw", "Neck_Pitch", "Neck_Yaw"]


def stand_pose():
    """The config's stand pose (rad), firmware order."""
    pose = []
    for line in config_text().splitlines():
        if line.strip().startswith("- {name:") and "stand:" in line:
            pose.append(float(line.split("stand:")[1].split(",")[0]))
    assert len(pose) == 25
    return pose


def motors_ready(c: Client) -> None:
    c.wait_telemetry(timeout=10, match=lambda t: t.telemetry.fw_age_ms < 100)


def test_hello_and_welcome(robot):
    with Client(robot.api_socket) as c:
        w = c.hello(controller="cloud")
        assert list(w.joint_names) == JOINTS
        assert w.control_rate_hz == 500 and w.telemetry_rate_hz == 10
        assert w.mode == FirmwareMode.FW_MODE_DAMP and w.robot_name == "asimov-sim"


def test_telemetry_at_10_hz_with_the_extension(robot):
    with Client(robot.api_socket) as c:
        c.hello()  # observer
        frames = []
        c.on_telemetry(frames.append)
        time.sleep(3.0)
    assert len(frames) >= 2
    span = frames[-1].received - frames[0].received
    rate = (len(frames) - 1) / span
    assert 7.0 < rate < 13.0, f"{rate:.1f} Hz"  # 10 Hz, with user-mode-linux's jitter
    for f in frames:
        assert len(f.telemetry.joint_pos) == 25
        assert f.extension is not None and len(f.extension.joint_torque) == 25
        assert f.extension.control_mode == CONTROL_MODE_DAMP
    seqs = [f.telemetry.sequence for f in frames]
    assert seqs == sorted(seqs)


def test_state_stream_at_100_hz(robot):
    with Client(robot.api_socket) as c:
        c.hello()  # observer
        states = c.states(timeout=5)
        assert c.stream_state(100) == 100
        got = [next(states) for _ in range(50)]
        assert c.stream_state(0) == 0
    ticks = [s.tick for s in got]
    assert ticks == sorted(ticks)
    gaps = sorted(b - a for a, b in zip(ticks, ticks[1:]))
    assert gaps[len(gaps) // 2] == 5, "100 Hz of 500: every 5th tick"
    for s in got:
        assert len(s.q) == 25 and len(s.motor_status) == 25 and len(s.imu_quat) == 4
        assert s.control_mode == CONTROL_MODE_DAMP


def test_walk_in_damp_is_dropped(robot):
    with Client(robot.api_socket) as c:
        c.hello(controller="cloud")
        r = c.walk(0.3)
        assert not r.accepted and r.reason == "velocity_in_damp"


def test_stand_reaches_the_stand_pose_then_walk_without_policy_then_damp(robot):
    goal = stand_pose()
    with Client(robot.api_socket) as c:
        c.hello(controller="cloud")
        motors_ready(c)
        r = c.stand()
        assert r.accepted, r.reason
        assert r.control_mode == CONTROL_MODE_STAND
        t = c.wait_telemetry(timeout=6, match=lambda t: max(
            abs(a - b) for a, b in zip(t.joint_pos, goal)) < 0.05)
        assert t.telemetry.fw_mode == FirmwareMode.FW_MODE_STAND
        r = c.walk(0.3)
        assert not r.accepted and r.reason == "velocity_no_policy"
        r = c.damp()
        assert r.accepted and r.control_mode == CONTROL_MODE_DAMP
        c.wait_telemetry(timeout=2, match=lambda t: t.telemetry.fw_mode == FirmwareMode.FW_MODE_DAMP)


def test_trajectory_raises_the_arm_then_times_out_to_damp(robot):
    with Client(robot.api_socket) as c:
        c.hello(controller="cloud")
        motors_ready(c)
        before = c.last_event_sequence
        result = c.stream_trajectory({"L_Shoulder_Pitch": -1.0, "L_Elbow": 0.8}, duration=1.5,
                                     hold=0.5, rate_hz=50)
        assert result.last_result.accepted
        assert result.last_result.control_mode == CONTROL_MODE_MOVE_TRAJECTORY
        assert result.packets_sent + result.packets_skipped == 101
        assert result.packets_skipped <= 10, result
        assert result.duration_s < 3.0
        measured = c.latest_telemetry.joint_pos
        assert measured[12] == pytest.approx(-1.0, abs=0.1)
        assert measured[15] == pytest.approx(0.8, abs=0.1)
        # Streaming stopped: 200 ms later the daemon DAMPs and says why.
        e = c.wait_event(lambda e: e.code == "TRAJECTORY_TIMEOUT", timeout=3, after=before)
        assert "200 ms" in e.event.error.message
        t = c.wait_telemetry(timeout=2, match=lambda t: t.telemetry.fw_mode == FirmwareMode.FW_MODE_DAMP)
        assert t.extension.control_mode == CONTROL_MODE_DAMP


def test_events_missed_while_disconnected_arrive_after_reconnect(robot):
    with Client(robot.api_socket) as observer, Client(robot.api_socket) as controller:
        observer.hello()
        controller.hello(controller="cloud")
        motors_ready(controller)
        last_seen = observer.last_event_sequence
        observer.close()
        # While the observer is away: a one-packet stream, so a TRAJECTORY_TIMEOUT event.
        assert controller.trajectory(controller.wait_telemetry().joint_pos).accepted
        missed = controller.wait_event(lambda e: e.code == "TRAJECTORY_TIMEOUT", timeout=3)
        assert missed.sequence > last_seen
        observer.reconnect()
        resent = observer.wait_event(lambda e: e.code == "TRAJECTORY_TIMEOUT", timeout=3,
                                     after=last_seen)
        assert resent.sequence == missed.sequence
        assert resent.event.timestamp_us == missed.event.timestamp_us  # resent, not a new one
        assert not observer.daemon_restarted


def test_damp_is_accepted_from_an_observer(robot):
    with Client(robot.api_socket) as c:
        c.hello()
        assert c.damp().accepted


def test_async_client(robot):
    import asyncio

    async def main():
        async with AsyncClient(robot.api_socket) as c:
            w = await c.hello(controller="cloud")
            assert len(w.joint_names) == 25
            async for t in c.telemetry(timeout=2):
                assert t.extension is not None
                break
            r = await c.walk(0.2)
            assert not r.accepted and r.reason == "velocity_in_damp"
    asyncio.run(asyncio.wait_for(main(), 30))
