"""AsyncClient: the asyncio client of robot-edged's API (same API as Client, awaitable).

    async with AsyncClient() as robot:           # /run/robot-edge/api.sock or $ROBOT_EDGE_SOCKET
        await robot.hello(controller="cloud")
        async for t in robot.telemetry():         # EdgeTelemetry + TelemetryExtension, 10 Hz
            print(t.telemetry.fw_mode, t.extension.control_mode)

Tasks: connect() starts one reader task in the running event loop; it keeps the latest telemetry
and the recent events, completes the waits for command results and runs the on_telemetry /
on_event callbacks (plain functions, in the event loop: keep them quick). Use an AsyncClient from
the one event loop it was connected in.
"""
from __future__ import annotations

import asyncio
import ssl
import logging
import time
from typing import AsyncIterator, Callable, List, Mapping, Optional, Sequence, Union

from edge.generated.edge_api_pb2 import (ClientMessage, CommandResult, JointCommand, JointState,
                                         StateStreamRequest, Welcome)
from edge.generated.edge_cloud_pb2 import CloudCommand, Mode

from . import commands
from ._core import (ClientState, ClockOffset, ClockSync, Event, EventCallback, StreamResult, StreamRun, Telemetry,
                    TelemetryCallback, command_message, connect_error, frame_of, make_hello,
                    make_plan, resolve_address, tls_error)
from .errors import (ConnectError, ConnectionClosed, ProtocolError, RobotEdgeError, Timeout)

log = logging.getLogger("robot_edge")


class AsyncClient:
    """An asyncio connection to robot-edged. Arguments as Client's; nothing happens until
    `await connect()` (or `async with`), which raises DaemonNotRunning / ConnectError.

    tls: with tcp, a context from robot_edge.tls_context(ca_file) for the daemon's api.tls;
    tls_name: the name or IP its certificate must carry (default: tcp's host). A failed
    handshake raises ConnectError naming the cause (certificate not trusted, name mismatch, the
    daemon does not speak TLS)."""

    def __init__(self, path: Optional[str] = None, *, tcp: Optional[str] = None,
                 token: Optional[str] = None, timeout: float = 5.0,
                 send_timeout: float = 1.0, tls: Optional[ssl.SSLContext] = None,
                 tls_name: Optional[str] = None) -> None:
        self.address = resolve_address(path, tcp)
        if tls is not None and not self.address.tcp:
            raise ValueError("tls needs tcp='host:port'")
        self._tls = tls
        self._tls_name = tls_name
        self.timeout = timeout
        self._token = token
        self._send_timeout = send_timeout
        self._sequencer = commands.Sequencer()
        self._state = ClientState(str(self.address))
        self._changed: Optional[asyncio.Condition] = None
        self._reader: Optional[asyncio.StreamReader] = None
        self._writer: Optional[asyncio.StreamWriter] = None
        self._task: Optional[asyncio.Task] = None
        self._telemetry_callbacks: List[TelemetryCallback] = []
        self._event_callbacks: List[EventCallback] = []

    # ---- connection ---------------------------------------------------------------------------

    async def connect(self, timeout: Optional[float] = None) -> "AsyncClient":
        timeout = self.timeout if timeout is None else timeout
        a = self.address
        try:
            if a.tcp and self._tls is not None:
                opening = asyncio.open_connection(a.host, a.port, ssl=self._tls,
                                                  server_hostname=self._tls_name or a.host)
            elif a.tcp:
                opening = asyncio.open_connection(a.host, a.port)
            else:
                opening = asyncio.open_unix_connection(a.path)
            reader, writer = await asyncio.wait_for(opening, timeout)
        except asyncio.TimeoutError as e:
            raise connect_error(a, TimeoutError(str(e))) from None
        except ssl.SSLError as e:
            raise tls_error(a, e) from None
        except OSError as e:
            raise connect_error(a, e) from None
        if self._changed is None:
            self._changed = asyncio.Condition()
        self._state.new_connection(str(a))
        self._reader, self._writer = reader, writer
        self._task = asyncio.get_running_loop().create_task(self._read_loop(reader))
        return self

    async def _read_loop(self, reader: asyncio.StreamReader) -> None:
        while True:
            try:
                data = await reader.read(64 * 1024)
            except (OSError, asyncio.IncompleteReadError) as e:
                await self._fail(ConnectionClosed(f"receiving from robot-edged at "
                                                  f"{self.address}: {e}"))
                return
            if not data:
                await self._fail(ConnectionClosed(f"robot-edged at {self.address} closed the "
                                                  "connection without saying why"))
                return
            try:
                items = self._state.feed(data)
            except RobotEdgeError as e:
                await self._fail(e)
                return
            await self._notify()
            for item in items:
                callbacks = (self._telemetry_callbacks if isinstance(item, Telemetry) else
                             self._event_callbacks if isinstance(item, Event) else [])
                for cb in list(callbacks):
                    try:
                        cb(item)
                    except Exception:
                        log.exception("robot_edge: %s callback %r raised",
                                      type(item).__name__, cb)

    async def _notify(self) -> None:
        assert self._changed is not None
        async with self._changed:
            self._changed.notify_all()

    async def _fail(self, error: Exception) -> None:
        if self._state.failure is None:
            self._state.failure = error
        await self._notify()

    def _check(self) -> None:
        if self._state.failure is not None:
            raise self._state.failure

    async def _wait(self, predicate: Callable[[], bool], timeout: float, what: str) -> None:
        """Until predicate() or a failure (raised); Timeout(what) after `timeout` s."""
        if self._changed is None:
            raise ProtocolError("connect() first")
        try:
            async with self._changed:
                await asyncio.wait_for(self._changed.wait_for(
                    lambda: predicate() or self._state.failure is not None), timeout)
        except asyncio.TimeoutError:
            raise Timeout(what) from None
        if not predicate():
            self._check()

    async def close(self) -> None:
        """Closes the connection (a disconnect for the daemon). Idempotent."""
        await self._drop(ConnectionClosed("the client was closed"))

    async def _drop(self, failure: Exception) -> None:
        writer, self._writer = self._writer, None
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            try:
                await task
            except (asyncio.CancelledError, Exception):
                pass
        if writer is not None:
            writer.close()
            try:
                await writer.wait_closed()
            except OSError:
                pass
        if self._changed is not None:
            await self._fail(failure)

    async def __aenter__(self) -> "AsyncClient":
        return await self.connect()

    async def __aexit__(self, *exc) -> None:
        await self.close()

    async def reconnect(self, timeout: Optional[float] = None, retry_for: float = 0.0) -> Welcome:
        """As Client.reconnect: a new connection, the same Hello with resume_after_event = the
        last event seen; retries connecting for `retry_for` s."""
        timeout = self.timeout if timeout is None else timeout
        hello = self._state.hello
        if hello is None:
            raise ProtocolError("reconnect() needs a hello() first")
        await self._drop(ConnectionClosed("reconnecting"))
        deadline = time.monotonic() + retry_for
        while True:
            try:
                await self.connect(timeout)
                break
            except ConnectError:
                if time.monotonic() >= deadline:
                    raise
                await asyncio.sleep(0.2)
        h = make_hello(hello.controller, hello.token, self._state.resume_point,
                       hello.want_command_results, hello.no_telemetry)
        return await self._hello(h, timeout)

    # ---- Hello --------------------------------------------------------------------------------

    async def hello(self, controller: str = "", *, want_command_results: bool = True,
                    resume_after_event: int = 0, no_telemetry: bool = False,
                    token: Optional[str] = None, timeout: Optional[float] = None) -> Welcome:
        """As Client.hello: sends the Hello, returns the Welcome; Refused(reason) / Timeout."""
        h = make_hello(controller, token if token is not None else self._token, resume_after_event,
                       want_command_results, no_telemetry)
        return await self._hello(h, self.timeout if timeout is None else timeout)

    async def _hello(self, h, timeout: float) -> Welcome:
        self._state.on_hello_sent(h)
        await self._send(ClientMessage(hello=h))
        await self._wait(lambda: self._state.welcome is not None, timeout,
                         f"no Welcome from robot-edged at {self.address} within {timeout} s")
        return self._state.welcome  # type: ignore[return-value]

    @property
    def welcome(self) -> Optional[Welcome]:
        return self._state.welcome

    @property
    def joint_names(self) -> List[str]:
        return list(self._need_welcome().joint_names)

    def _need_welcome(self) -> Welcome:
        self._check()  # a refused or closed connection says so, not "hello() first"
        if self._state.welcome is None:
            raise ProtocolError("call hello() first")
        return self._state.welcome

    # ---- sending ------------------------------------------------------------------------------

    async def _send(self, message: ClientMessage) -> None:
        data = frame_of(message)
        self._check_open()
        assert self._writer is not None
        try:
            self._writer.write(data)
            await asyncio.wait_for(self._writer.drain(), self._send_timeout)
        except asyncio.TimeoutError:
            error = Timeout(f"robot-edged at {self.address} did not take {len(data)} bytes "
                            f"within {self._send_timeout} s")
            await self._fail(error)
            raise error from None
        except OSError as e:
            await asyncio.sleep(0.05)  # a Goodbye just before the close says more than EPIPE
            self._check()
            raise ConnectionClosed(f"sending to robot-edged at {self.address}: {e}") from None

    def _check_open(self) -> None:
        if self._writer is None:
            self._check()
            raise ConnectionClosed("the client is not connected")

    def _send_command_nowait(self, command: Union[CloudCommand, JointCommand], register: bool,
                             stamp: bool = True) -> int:
        """Stamps and queues the command's bytes (synchronously: the order of sequences on the
        wire is the order of the calls). Returns its sequence."""
        self._check_open()
        self._check()
        sequence = self._sequencer.stamp(command) if stamp else command.sequence
        if register:
            self._state.results[sequence] = None
        assert self._writer is not None
        self._writer.write(frame_of(command_message(command)))
        return sequence

    def _wants_results(self) -> bool:
        return self._state.hello is not None and self._state.hello.want_command_results

    async def send(self, command: Union[CloudCommand, JointCommand], *, stamp: bool = True,
                   wait: bool = True,
                   timeout: Optional[float] = None) -> Optional[CommandResult]:
        """As Client.send: stamps (sequence, timestamp_us; stamp=False: the command's own),
        sends, returns the CommandResult."""
        self._need_welcome()
        register = wait and self._wants_results()
        sequence = self._send_command_nowait(command, register, stamp)
        try:
            await asyncio.wait_for(self._writer.drain(), self._send_timeout)  # type: ignore
        except asyncio.TimeoutError:
            raise Timeout(f"robot-edged at {self.address} did not take a command within "
                          f"{self._send_timeout} s") from None
        except OSError as e:
            await asyncio.sleep(0.05)
            self._check()
            raise ConnectionClosed(f"sending to robot-edged at {self.address}: {e}") from None
        if not register:
            return None
        timeout = self.timeout if timeout is None else timeout
        try:
            await self._wait(lambda: self._state.results.get(sequence) is not None, timeout,
                             f"no CommandResult for command #{sequence} from robot-edged at "
                             f"{self.address} within {timeout} s")
            return self._state.results[sequence]
        finally:
            self._state.results.pop(sequence, None)

    async def stream_state(self, rate_hz: int, timeout: Optional[float] = None) -> int:
        """As Client.stream_state: the state stream at `rate_hz` (0 stops it); the granted rate."""
        self._need_welcome()
        wait_s = self.timeout if timeout is None else timeout
        answers = self._state.state_stream_answers
        await self._send(ClientMessage(state_stream=StateStreamRequest(rate_hz=rate_hz)))
        await self._wait(lambda: self._state.state_stream_answers > answers, wait_s,
                         f"robot-edged at {self.address} did not answer a StateStreamRequest "
                         f"within {wait_s} s")
        return self._state.state_stream_rate

    def states(self, timeout: Optional[float] = None) -> AsyncIterator[JointState]:
        """As Client.states: the state stream's JointStates in order, from the call on."""
        return self._states_from(self._state.state_count,
                                 self.timeout if timeout is None else timeout)

    async def _states_from(self, index: int, wait_s: float) -> AsyncIterator[JointState]:
        while True:
            state, index = self._state.state_at(index)
            if state is None:
                await self._wait(lambda: self._state.state_count > index, wait_s,
                                 f"no JointState from robot-edged at {self.address} within "
                                 f"{wait_s} s")
                continue
            yield state

    async def sync_clock(self, exchanges: int = 5, timeout: Optional[float] = None) -> ClockOffset:
        """As Client.sync_clock: the robot's clock from the TimeSync exchange with the shortest
        round trip."""
        self._need_welcome()
        wait_s = self.timeout if timeout is None else timeout
        sync = ClockSync(self)
        for i in range(max(exchanges, 1)):
            request_id, message = sync.request(i)
            self._state.time_syncs[request_id] = None
            try:
                await self._send(message)
                await self._wait(lambda: self._state.time_syncs.get(request_id) is not None,
                                 wait_s, f"robot-edged at {self.address} did not answer a "
                                 f"TimeSyncRequest within {wait_s} s")
                sync.take(*self._state.time_syncs[request_id])  # type: ignore[misc]
            finally:
                self._state.time_syncs.pop(request_id, None)
        assert sync.best is not None
        return sync.best

    async def stand(self, timeout: Optional[float] = None) -> Optional[CommandResult]:
        """ModeCommand(STAND): the robot ramps to its stand pose over ~2 s."""
        return await self.send(commands.mode(Mode.MODE_STAND), timeout=timeout)

    async def damp(self, timeout: Optional[float] = None) -> Optional[CommandResult]:
        """ModeCommand(DAMP): motors compliant. Always accepted."""
        return await self.send(commands.mode(Mode.MODE_DAMP), timeout=timeout)

    async def walk(self, vx: float, vy: float = 0.0, vyaw: float = 0.0,
                   timeout: Optional[float] = None) -> Optional[CommandResult]:
        """VelocityCommand: vx, vy in m/s (±2, ±1), vyaw in rad/s (±2); ValueError outside."""
        return await self.send(commands.velocity(vx, vy, vyaw), timeout=timeout)

    async def trajectory(self, positions: Union[Sequence[float], Sequence[Sequence[float]],
                                                Mapping[Union[str, int], float]],
                         kp: Optional[Sequence[float]] = None,
                         kd: Optional[Sequence[float]] = None, *, limits=None,
                         timeout: Optional[float] = None) -> Optional[CommandResult]:
        """As Client.trajectory: one TrajectoryRequest (rad; kp N·m/rad, kd N·m·s/rad)."""
        names = self.joint_names
        if isinstance(positions, Mapping):
            latest = self._state.latest_telemetry or await self.wait_telemetry()
            positions = commands.apply_targets(latest.joint_pos, positions, names)
        cmd = commands.trajectory(positions, kp, kd, joints=len(names), limits=limits,
                                  names=names)
        return await self.send(cmd, timeout=timeout)

    # ---- telemetry and events ----------------------------------------------------------------

    def on_telemetry(self, callback: TelemetryCallback) -> Callable[[], None]:
        """Calls callback(Telemetry) for every frame, in the event loop. Returns a remover."""
        self._telemetry_callbacks.append(callback)
        return lambda: self._telemetry_callbacks.remove(callback)

    def on_event(self, callback: EventCallback) -> Callable[[], None]:
        """Calls callback(Event) for every system event, in the event loop. Returns a remover."""
        self._event_callbacks.append(callback)
        return lambda: self._event_callbacks.remove(callback)

    @property
    def latest_telemetry(self) -> Optional[Telemetry]:
        return self._state.latest_telemetry

    @property
    def last_event_sequence(self) -> int:
        return self._state.resume_point

    @property
    def daemon_restarted(self) -> bool:
        return self._state.daemon_restarted

    async def wait_telemetry(self, timeout: Optional[float] = None,
                             match: Optional[Callable[[Telemetry], bool]] = None) -> Telemetry:
        """The next frame received after this call (satisfying `match`); Timeout."""
        timeout = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        seen = self._state.telemetry_count
        while True:
            left = deadline - time.monotonic()
            await self._wait(lambda: self._state.telemetry_count > seen, max(left, 0.0),
                             f"no matching telemetry from robot-edged at {self.address} within "
                             f"{timeout} s")
            seen = self._state.telemetry_count
            t = self._state.latest_telemetry
            if match is None or match(t):  # type: ignore[arg-type]
                return t  # type: ignore[return-value]

    async def telemetry(self, timeout: Optional[float] = None) -> AsyncIterator[Telemetry]:
        """`async for t in client.telemetry()`: frames as they come (lossy: a slow consumer gets
        the latest). Raises Timeout after `timeout` s without one, or the connection's failure."""
        while True:
            yield await self.wait_telemetry(timeout)

    async def wait_event(self, match: Optional[Callable[[Event], bool]] = None,
                         timeout: Optional[float] = None, after: Optional[int] = None) -> Event:
        """As Client.wait_event."""
        timeout = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        index = 0 if after is not None else self._state.event_count
        while True:
            event, index = self._state.find_event(index, match, after)
            if event is not None:
                return event
            start = index
            await self._wait(lambda: self._state.event_count > start,
                             max(deadline - time.monotonic(), 0.0),
                             f"no matching event from robot-edged at {self.address} within "
                             f"{timeout} s")

    def events(self, timeout: Optional[float] = None) -> AsyncIterator[Event]:
        """`async for e in client.events()`: every event from the call on, in order (reliable).
        Raises Timeout after `timeout` s without one (None: wait forever)."""
        return self._events_from(self._state.event_count, timeout)

    async def _events_from(self, index: int, timeout: Optional[float]) -> AsyncIterator[Event]:
        while True:
            event, index = self._state.find_event(index, None, None)
            if event is not None:
                yield event
                continue
            start = index
            await self._wait(lambda: self._state.event_count > start,
                             1e9 if timeout is None else timeout,
                             f"no event from robot-edged within {timeout} s")

    # ---- trajectory streaming -----------------------------------------------------------------

    async def stream_trajectory(self, target, *, duration: Optional[float] = None,
                                hold: float = 0.0, rate_hz: float = 50.0,
                                kp: Optional[Sequence[float]] = None,
                                kd: Optional[Sequence[float]] = None, max_speed: float = 2.0,
                                limits=None, profile: str = "quintic",
                                result_timeout: Optional[float] = None) -> StreamResult:
        """As Client.stream_trajectory (same arguments, same checks), in the event loop."""
        w = self._need_welcome()
        names = list(w.joint_names)
        start = (await self.wait_telemetry()).joint_pos
        plan = make_plan(target, start, names, w.control_rate_hz, duration, hold, rate_hz,
                         max_speed, limits, profile)
        run = StreamRun(plan, kp, kd, len(names))
        run.result.start_pose = start
        wants = self._wants_results()
        timeout = self.timeout if result_timeout is None else result_timeout
        t0 = time.monotonic()
        try:
            while not run.done():
                self._check()
                run.check(self._state.results)
                left = t0 + run.due_s() - time.monotonic()
                if left > 0:
                    await asyncio.sleep(left)
                    self._check()
                    run.check(self._state.results)
                command = run.command(time.monotonic() - t0)
                run.sent(self._send_command_nowait(command, wants))
                await asyncio.wait_for(self._writer.drain(), self._send_timeout)  # type: ignore
            if wants:
                await self._wait(lambda: bool(run.pending) and
                                 self._state.results.get(run.pending[-1]) is not None,
                                 timeout, f"no answer to the last trajectory packet within "
                                          f"{timeout} s")
                run.check(self._state.results)
        except asyncio.TimeoutError:
            raise Timeout(f"robot-edged at {self.address} did not take a trajectory packet "
                          f"within {self._send_timeout} s") from None
        finally:
            run.forget(self._state.results)
        run.result.duration_s = time.monotonic() - t0
        return run.result
