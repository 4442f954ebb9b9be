"""Client against a scripted daemon: Hello first, refusals, timeouts, stamping, results,
telemetry and events, resume after a reconnect, the trajectory streamer."""
import math
import os
import socket
import threading
import time

import pytest

from edge.generated.edge_api_pb2 import (CommandResult, DiagnosticsExtension, Goodbye,
                                         ServerMessage, TelemetryExtension, Welcome,
                                         CONTROL_MODE_MOVE_TRAJECTORY)
from edge.generated.edge_cloud_pb2 import (EdgeDiagnostics, EdgeError, EdgeEvent, EdgeTelemetry,
                                           Mode)
from fake_daemon import JOINTS, FakeDaemon
from robot_edge import (Client, CommandDropped, DaemonNotRunning, ProtocolError, Refused, Timeout)

POSE = [0.01 * i for i in range(25)]


def telemetry(seq=1, pose=POSE):
    return ServerMessage(telemetry=EdgeTelemetry(sequence=seq, joint_pos=pose),
                         telemetry_extension=TelemetryExtension(last_command_sequence=seq,
                                                                joint_torque=[0.5] * 25))


def event(seq, code="", diagnostics=False):
    if diagnostics:
        return ServerMessage(event=EdgeEvent(sequence=seq, diagnostics=EdgeDiagnostics()),
                             diagnostics_extension=DiagnosticsExtension(loop_rate_hz=500))
    return ServerMessage(event=EdgeEvent(sequence=seq, error=EdgeError(code=code)))


def connected(daemon, **hello):
    c = Client(daemon.address, timeout=2)
    c.hello(**hello)
    while not daemon.next().HasField("hello"):  # what earlier connections sent
        pass
    return c


def test_no_socket_is_daemon_not_running_with_path_and_hint(tmp_path):
    path = str(tmp_path / "nothing.sock")
    with pytest.raises(DaemonNotRunning, match=f"{path}: No such file.*is robot-edged running"):
        Client(path)
    dead = socket.socket(socket.AF_UNIX)
    dead.bind(str(tmp_path / "dead.sock"))  # a socket file nobody listens on
    with pytest.raises(DaemonNotRunning, match="refused.*nobody listens"):
        Client(str(tmp_path / "dead.sock"))
    dead.close()


def test_socket_from_the_environment(daemon, monkeypatch):
    monkeypatch.setenv("ROBOT_EDGE_SOCKET", daemon.address)
    with Client() as c:
        assert c.address.path == daemon.address


def test_hello_is_first_and_returns_the_welcome(daemon):
    daemon.last_event_sequence = 7
    with Client(daemon.address) as c:
        w = c.hello(controller="cloud", resume_after_event=3, no_telemetry=True)
        assert list(w.joint_names) == JOINTS and w.last_event_sequence == 7
        h = daemon.next()
        assert h.WhichOneof("msg") == "hello"
        assert (h.hello.controller, h.hello.resume_after_event, h.hello.want_command_results,
                h.hello.no_telemetry) == ("cloud", 3, True, True)
        assert c.joint_names == JOINTS


def test_goodbye_is_refused_with_the_reason(daemon):
    daemon.on_hello = lambda h: ServerMessage(goodbye=Goodbye(reason="invalid token for 'cloud'"))
    with Client(daemon.address) as c:
        with pytest.raises(Refused, match="refused the connection: invalid token") as e:
            c.hello(controller="cloud", token="wrong")
        assert e.value.reason == "invalid token for 'cloud'"
        with pytest.raises(Refused):  # sticky
            c.stand()


def test_no_welcome_is_a_timeout(daemon):
    daemon.on_hello = lambda h: None
    with Client(daemon.address) as c:
        t0 = time.monotonic()
        with pytest.raises(Timeout, match="no Welcome"):
            c.hello(timeout=0.3)
        assert 0.25 < time.monotonic() - t0 < 2


def test_something_else_before_the_welcome_is_a_protocol_error(daemon):
    daemon.on_hello = lambda h: telemetry()
    with Client(daemon.address) as c:
        with pytest.raises(ProtocolError, match="sent telemetry before its Welcome"):
            c.hello()


def test_oversize_and_undecodable_frames_are_protocol_errors(daemon):
    with connected(daemon) as c:
        daemon.send_raw(b"\x80\x80\x08")  # 131072 bytes announced
        with pytest.raises(ProtocolError, match="over the API's 64 KiB limit"):
            c.wait_telemetry(timeout=2)
    with connected(daemon) as c:
        daemon.send_raw(b"\x02\xff\xff")
        with pytest.raises(ProtocolError, match="undecodable"):
            c.wait_telemetry(timeout=2)


def test_commands_are_stamped_and_return_the_result(daemon):
    daemon.on_command = lambda cmd: CommandResult(
        sequence=cmd.sequence, accepted=cmd.WhichOneof("command") != "velocity",
        reason="velocity_in_damp" if cmd.WhichOneof("command") == "velocity" else "")
    with connected(daemon, controller="cloud") as c:
        t0 = time.time() * 1e6
        assert c.stand().accepted
        r = c.walk(0.3, 0.1, -0.2)
        assert not r.accepted and r.reason == "velocity_in_damp"
        assert c.damp().accepted
        assert c.trajectory(POSE, kp=[100] * 25).accepted
        sent = [daemon.next().command for _ in range(4)]
        assert [s.sequence for s in sent] == [1, 2, 3, 4]
        assert all(t0 - 1e6 < s.timestamp_us < time.time() * 1e6 + 1e6 for s in sent)
        assert sent[0].mode.mode == Mode.MODE_STAND and sent[2].mode.mode == Mode.MODE_DAMP
        assert sent[1].velocity.vx == pytest.approx(0.3) and sent[1].velocity.vyaw == pytest.approx(-0.2)
        assert list(sent[3].trajectory.full.segments[0].kp) == [100] * 25
        with pytest.raises(ValueError):
            c.walk(3.0)  # nothing sent
        assert c.stand().accepted
        assert daemon.next().command.sequence == 5


def test_sequences_increase_across_threads(daemon):
    with connected(daemon, controller="cloud") as c:
        threads = [threading.Thread(target=lambda: [c.stand() for _ in range(20)]) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        seqs = [daemon.next().command.sequence for _ in range(80)]
        assert seqs == list(range(1, 81))  # in wire order: never a stale one for the daemon


def test_no_result_is_a_timeout_and_without_results_commands_return_none(daemon):
    daemon.on_command = lambda cmd: None
    with connected(daemon, controller="cloud") as c:
        with pytest.raises(Timeout, match="no CommandResult for command #1"):
            c.stand(timeout=0.3)
    with connected(daemon, controller="cloud", want_command_results=False) as c:
        assert c.stand() is None


def test_telemetry_callback_iterator_and_extension(daemon):
    with connected(daemon) as c:
        got = []
        remove = c.on_telemetry(got.append)
        threading.Timer(0.1, lambda: daemon.send(telemetry(1))).start()
        t = c.wait_telemetry(timeout=2)  # the next frame after the call
        assert t.telemetry.sequence == 1 and list(t.extension.joint_torque) == [0.5] * 25
        assert t.joint_pos == pytest.approx(POSE)
        threading.Timer(0.1, lambda: daemon.send(telemetry(2))).start()
        assert c.wait_telemetry(timeout=2).telemetry.sequence == 2
        assert [g.telemetry.sequence for g in got] == [1, 2]
        remove()
        threading.Timer(0.1, lambda: daemon.send(telemetry(3))).start()
        assert next(iter(c.telemetry(timeout=2))).telemetry.sequence == 3
        assert len(got) == 2
        with pytest.raises(Timeout):
            c.wait_telemetry(timeout=0.2)


def test_events_with_diagnostics_extension(daemon):
    with connected(daemon) as c:
        seen = []
        c.on_event(seen.append)
        daemon.send(event(1, diagnostics=True))
        daemon.send(event(2, "TRAJECTORY_TIMEOUT"))
        e = c.wait_event(lambda e: e.code == "TRAJECTORY_TIMEOUT", timeout=2, after=0)
        assert e.sequence == 2
        d = c.wait_event(lambda e: e.kind == "diagnostics", timeout=2, after=0)
        assert d.diagnostics.loop_rate_hz == 500
        assert [s.sequence for s in seen] == [1, 2] and seen[1].diagnostics is None
        assert c.last_event_sequence == 2
        events = c.events(timeout=2)
        daemon.send(event(3, "MODE_BLOCKED"))
        assert next(events).code == "MODE_BLOCKED"


def test_a_callback_cannot_wait_for_a_result(daemon):
    with connected(daemon, controller="cloud") as c:
        errors = []

        def cb(t):
            try:
                c.stand()
            except RuntimeError as e:
                errors.append(e)
        c.on_telemetry(cb)
        daemon.send(telemetry())
        # Polled: a wait_telemetry() here could start after the frame arrived and miss it.
        deadline = time.monotonic() + 5
        while not errors and time.monotonic() < deadline:
            time.sleep(0.01)
        assert errors and "callback cannot wait" in str(errors[0])


def test_reconnect_resumes_after_the_last_event(daemon):
    daemon.last_event_sequence = 4
    with connected(daemon, controller="cloud") as c:
        assert c.last_event_sequence == 4  # nothing seen yet: what existed at connection
        daemon.send(event(5, "A"))
        daemon.send(event(6, "B"))
        c.wait_event(lambda e: e.sequence == 6, after=0, timeout=2)
        daemon.drop()
        with pytest.raises(Exception):
            c.wait_telemetry(timeout=2)  # ConnectionClosed
        daemon.last_event_sequence = 8
        w = c.reconnect()
        assert w.last_event_sequence == 8
        h = daemon.next()
        assert h.hello.resume_after_event == 6 and h.hello.controller == "cloud"
        daemon.send(event(7, "C"))  # what the daemon resends
        daemon.send(event(8, "D"))
        assert c.wait_event(lambda e: e.code == "D", timeout=2, after=6).sequence == 8
        assert not c.daemon_restarted
        assert c.stand().accepted


def test_reconnect_notices_a_restarted_daemon(daemon):
    with connected(daemon) as c:
        daemon.send(event(50, "A"))
        c.wait_event(after=0, timeout=2)
        daemon.drop()
        daemon.last_event_sequence = 2  # a new daemon numbers from 1
        c.reconnect()
        assert daemon.next().hello.resume_after_event == 50
        assert c.daemon_restarted and c.last_event_sequence == 2


def test_stream_starts_at_the_measured_pose_holds_50_hz_and_ends_at_the_goal(daemon):
    stop = threading.Event()

    def publish():
        while not stop.is_set():
            daemon.send(telemetry())
            time.sleep(0.05)
    with connected(daemon, controller="cloud") as c:
        threading.Thread(target=publish, daemon=True).start()
        try:
            r = c.stream_trajectory({"L_Shoulder_Pitch": -0.3}, duration=1.0, hold=0.2)
        finally:
            stop.set()
        packets = [(t, m.command) for t, m in daemon.commands() if m.HasField("command")]
    assert r.packets_sent == len(packets) == 61 - r.packets_skipped
    assert r.last_result.accepted and r.start_pose == pytest.approx(POSE)
    first = packets[0][1].trajectory.full.segments
    assert len(first) == 10  # 500 Hz control / 50 Hz packets
    assert list(first[0].positions) == pytest.approx(POSE)  # from the measured pose
    last = list(packets[-1][1].trajectory.full.segments[-1].positions)
    goal = list(POSE)
    goal[12] = -0.3
    assert last == pytest.approx(goal)
    span = packets[-1][0] - packets[0][0]
    rate = (len(packets) - 1 + r.packets_skipped) / span
    assert 45 < rate < 55, f"{rate:.1f} packets/s"
    seqs = [p.sequence for _, p in packets]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)


def test_stream_stops_at_a_dropped_packet(daemon):
    daemon.on_command = lambda cmd: CommandResult(
        sequence=cmd.sequence, accepted=cmd.sequence < 5,
        reason="" if cmd.sequence < 5 else "sent_before_damp",
        control_mode=CONTROL_MODE_MOVE_TRAJECTORY)
    with connected(daemon, controller="cloud") as c:
        threading.Timer(0.05, lambda: daemon.send(telemetry())).start()
        with pytest.raises(CommandDropped, match="#5 dropped by robot-edged: sent_before_damp") as e:
            c.stream_trajectory({"L_Elbow": 0.5}, duration=2.0)
        assert e.value.reason == "sent_before_damp"
        n = len([m for _, m in daemon.commands() if m.HasField("command")])
        assert n < 10  # stopped right there, not after 100 packets


def test_stream_refuses_a_bad_path_before_sending_anything(daemon):
    with connected(daemon, controller="cloud") as c:
        threading.Timer(0.05, lambda: daemon.send(telemetry())).start()
        with pytest.raises(ValueError, match="L_Elbow would move at"):
            c.stream_trajectory({"L_Elbow": 2.0}, duration=0.5, max_speed=1.0)
        assert not [m for _, m in daemon.commands(0.2) if m.HasField("command")]


def test_tcp_sends_the_token():
    d = FakeDaemon(tcp=True)
    try:
        with Client(tcp=d.address, token="s3cret") as c:
            c.hello(controller="cloud")
            assert d.next().hello.token == "s3cret"
    finally:
        d.close()


def test_the_readme_example_runs_as_written(daemon, monkeypatch):
    """python/README.md's five lines, against the scripted daemon ($ROBOT_EDGE_SOCKET)."""
    readme = os.path.join(os.path.dirname(__file__), "..", "..", "README.md")
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    assert len(code.strip().splitlines()) == 5
    monkeypatch.setenv("ROBOT_EDGE_SOCKET", daemon.address)
    stop = threading.Event()

    def publish():  # as robot-edged does: telemetry only after the Welcome
        while not stop.is_set():
            if not daemon.welcomed:
                time.sleep(0.005)
                continue
            try:
                daemon.send(telemetry())
            except (OSError, IndexError):
                pass
            time.sleep(0.05)
    threading.Thread(target=publish, daemon=True).start()
    try:
        exec(compile(code, "README.md", "exec"), {})
    finally:
        stop.set()
    sent = [m for _, m in daemon.commands() if m.HasField("command")]
    assert sent[0].command.mode.mode == Mode.MODE_STAND
    assert 1 < len(sent) <= 1 + 151  # STAND, then 3 s of packets at 50 Hz (a late one skipped)
    assert sent[-1].command.trajectory.full.segments[-1].positions[12] == pytest.approx(-0.8)


def test_joint_commands_share_the_sequence_and_sync_clock_finds_the_offset(daemon):
    from robot_edge import commands
    daemon.clock_offset_us = 7_000_000
    with connected(daemon, controller="cloud") as c:
        offset = c.sync_clock(exchanges=3)
        assert 0 <= offset.round_trip_us < 1_000_000
        assert abs(offset.offset_us - 7_000_000) <= offset.round_trip_us
        syncs = [daemon.next() for _ in range(3)]
        assert all(s.HasField("time_sync") for s in syncs)
        assert c.stand().accepted
        end = offset.to_robot(commands.monotonic_us()) + 20_000
        cmd = commands.joint_command([0.1] * 25, end_time_us=end, kp=[40] * 25, kd=[1] * 25,
                                     torque=[0.5] * 25, user_command_key=9,
                                     velocity_safety_limit=3.0)
        assert c.send(cmd).accepted
        sent = [daemon.next() for _ in range(2)]
        assert sent[0].command.sequence == 1
        j = sent[1].joint_command
        assert j.sequence == 2 and j.timestamp_us > 0
        assert j.end_time_us == end and j.user_command_key == 9
        assert list(j.kp) == [40] * 25 and j.torque[3] == pytest.approx(0.5)
        assert j.velocity_safety_limit == pytest.approx(3.0)


def test_joint_command_refuses_what_the_robot_would_drop():
    from robot_edge import commands
    with pytest.raises(ValueError, match="end_time_us is required"):
        commands.joint_command([0.0] * 25, end_time_us=0)
    with pytest.raises(ValueError, match="kp and kd go together"):
        commands.joint_command([0.0] * 25, end_time_us=5, kp=[1] * 25)
    with pytest.raises(ValueError, match=r"kp\[0\] 600"):
        commands.joint_command([0.0] * 25, end_time_us=5, kp=[600] * 25, kd=[1] * 25)
    with pytest.raises(ValueError, match="velocity has 3 values"):
        commands.joint_command([0.0] * 25, end_time_us=5, velocity=[0.0] * 3)
    with pytest.raises(ValueError, match="not a finite number"):
        commands.joint_command([0.0] * 24 + [math.nan], end_time_us=5)


def test_estimate_offset_is_the_ntp_arithmetic():
    from robot_edge._core import estimate_offset
    e = estimate_offset(10_000, 1_010_300, 1_010_350, 10_650)
    assert e.offset_us == 1_000_000 and e.round_trip_us == 600
    assert e.to_robot(20_000) == 1_020_000


def test_the_state_stream_comes_in_order_and_stops(daemon):
    daemon.states_per_request = 30
    with Client(daemon.address) as c:
        c.hello(controller="")
        states = c.states(timeout=2)  # from now on: the states the request brings
        assert c.stream_state(2000) == 500, "the daemon's cap comes back"
        got = [next(states) for _ in range(30)]
        assert [s.tick for s in got] == list(range(1, 31))
        assert len(got[0].q) == 25
        daemon.states_per_request = 0
        assert c.stream_state(0) == 0
        with pytest.raises(Timeout):
            next(c.states(timeout=0.3))
    requests = [m.state_stream.rate_hz for _, m in daemon.commands() if m.HasField("state_stream")]
    assert requests == [2000, 0]


def test_a_slow_state_reader_skips_to_the_oldest_kept(daemon):
    from robot_edge._core import STATES_KEPT
    daemon.states_per_request = STATES_KEPT + 200
    with Client(daemon.address) as c:
        c.hello(controller="")
        states = c.states(timeout=2)
        c.stream_state(500)
        deadline = time.monotonic() + 5
        while c._state.state_count < STATES_KEPT + 200 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert next(states).tick == 201, "the 200 oldest were dropped, the rest kept in order"
        assert next(states).tick == 202
