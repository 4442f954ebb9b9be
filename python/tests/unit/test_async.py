"""AsyncClient against the scripted daemon."""
import asyncio

import pytest

from edge.generated.edge_api_pb2 import CommandResult, Goodbye, ServerMessage
from fake_daemon import JOINTS
from robot_edge import AsyncClient, DaemonNotRunning, Refused, Timeout
from test_client import POSE, event, telemetry


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 20))


def test_not_running(tmp_path):
    async def main():
        with pytest.raises(DaemonNotRunning, match="is robot-edged running"):
            await AsyncClient(str(tmp_path / "none.sock")).connect()
    run(main())


def test_hello_commands_telemetry_and_events(daemon):
    daemon.on_command = lambda cmd: CommandResult(
        sequence=cmd.sequence, accepted=cmd.WhichOneof("command") == "mode",
        reason="" if cmd.WhichOneof("command") == "mode" else "velocity_no_policy")

    async def main():
        async with AsyncClient(daemon.address) as c:
            w = await c.hello(controller="cloud")
            assert list(w.joint_names) == JOINTS
            assert (await c.stand()).accepted
            r = await c.walk(0.2)
            assert not r.accepted and r.reason == "velocity_no_policy"
            got = []
            c.on_telemetry(got.append)
            loop = asyncio.get_running_loop()
            loop.call_later(0.05, daemon.send, telemetry(1))
            async for t in c.telemetry(timeout=2):
                assert t.telemetry.sequence == 1 and len(t.extension.joint_torque) == 25
                break
            assert len(got) == 1
            loop.call_later(0.05, daemon.send, event(1, "TRAJECTORY_TIMEOUT"))
            async for e in c.events(timeout=2):
                assert e.code == "TRAJECTORY_TIMEOUT"
                break
            with pytest.raises(Timeout):
                await c.wait_telemetry(timeout=0.2)
    run(main())
    msgs = [m for _, m in daemon.commands()]
    assert msgs[0].HasField("hello")
    assert [m.command.sequence for m in msgs[1:]] == [1, 2]


def test_refused(daemon):
    daemon.on_hello = lambda h: ServerMessage(goodbye=Goodbye(reason="'ble' cannot connect over TCP"))

    async def main():
        async with AsyncClient(daemon.address) as c:
            with pytest.raises(Refused) as e:
                await c.hello(controller="ble")
            assert e.value.reason == "'ble' cannot connect over TCP"
    run(main())


def test_stream_and_reconnect(daemon):
    async def main():
        async with AsyncClient(daemon.address) as c:
            await c.hello(controller="cloud")
            asyncio.get_running_loop().call_later(0.05, daemon.send, telemetry())
            r = await c.stream_trajectory([(0.3, {"Neck_Yaw": 0.1}), (0.6, {"Neck_Yaw": 0.0})])
            assert r.last_result.accepted and r.packets_sent + r.packets_skipped == 31
            daemon.send(event(3, "X"))
            await c.wait_event(after=0, timeout=2)
            daemon.drop()
            await asyncio.sleep(0.1)
            daemon.last_event_sequence = 3
            await c.reconnect()
    run(main())
    hellos = [m.hello for _, m in daemon.commands() if m.HasField("hello")]
    assert [h.resume_after_event for h in hellos] == [0, 3]


def test_joint_commands_and_sync_clock(daemon):
    from robot_edge import commands
    daemon.clock_offset_us = -3_000_000

    async def main():
        async with AsyncClient(daemon.address) as c:
            await c.hello(controller="cloud")
            offset = await c.sync_clock(exchanges=2)
            assert 0 <= offset.round_trip_us < 1_000_000
            assert abs(offset.offset_us + 3_000_000) <= offset.round_trip_us
            end = offset.to_robot(commands.monotonic_us()) + 20_000
            cmd = commands.joint_command([0.2] * 25, end_time_us=end, kp=[30] * 25,
                                         kd=[1] * 25, user_command_key=4)
            assert (await c.send(cmd)).accepted
    run(main())
    msgs = [m for _, m in daemon.commands()]
    assert [m.WhichOneof("msg") for m in msgs] == ["hello", "time_sync", "time_sync",
                                                    "joint_command"]
    j = msgs[3].joint_command
    assert j.sequence == 1 and j.user_command_key == 4 and list(j.kp) == [30] * 25


def test_the_state_stream_as_an_async_iterator(daemon):
    daemon.states_per_request = 10

    async def main():
        async with AsyncClient(daemon.address) as c:
            await c.hello(controller="")
            states = c.states(timeout=2)
            assert await c.stream_state(100) == 100
            ticks = []
            async for s in states:
                ticks.append(s.tick)
                if len(ticks) == 10:
                    break
            assert ticks == list(range(1, 11))
    run(main())
