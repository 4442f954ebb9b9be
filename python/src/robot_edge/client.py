"""Client: a blocking client of robot-edged's API, over its Unix socket or TCP.

    with Client() as robot:                      # /run/robot-edge/api.sock or $ROBOT_EDGE_SOCKET
        welcome = robot.hello(controller="cloud")
        print(robot.stand())                     # CommandResult(accepted=True, ...)
        robot.stream_trajectory({"L_Shoulder_Pitch": -0.8}, duration=2.0, hold=1.0)
        robot.damp()

Threads: the constructor starts one reader thread ("robot-edge-reader") that owns the receiving
side of the socket. It keeps the latest telemetry and the recent events, hands command results to
the thread waiting for them, and runs the on_telemetry / on_event callbacks (so a callback must be
quick, and must not wait for a command's result: it would wait for its own thread — that raises
RuntimeError). Every public method may be called from any thread; sends are serialized under one
lock, which also keeps the sequence numbers in the order they go on the wire.
"""
from __future__ import annotations

import logging
import socket
import threading
import time
from typing import Callable, Iterator, List, Mapping, Optional, Sequence, Union

from edge.generated.edge_api_pb2 import (ClientMessage, CommandResult, JointCommand, JointState,
                                         StateStreamRequest, Welcome)
from edge.generated.edge_cloud_pb2 import CloudCommand, Mode

from . import commands
from ._core import (Address, ClientState, ClockOffset, ClockSync, Event, EventCallback, StreamResult, StreamRun,
                    Telemetry, TelemetryCallback, command_message, frame_of, make_hello, make_plan,
                    open_socket, resolve_address)
from .errors import ConnectionClosed, ConnectError, ProtocolError, RobotEdgeError, Timeout

log = logging.getLogger("robot_edge")

_RECV_BYTES = 64 * 1024
_POLL_S = 0.2  # the reader's recv timeout: how soon it notices close()


class Client:
    """A blocking connection to robot-edged. See the module docstring for threads.

    Args:
        path: the Unix socket (default $ROBOT_EDGE_SOCKET, else /run/robot-edge/api.sock).
        tcp: "host:port" of the daemon's api.tcp listener instead of the Unix socket.
        token: the controller's token, needed over TCP (sent in the Hello).
        timeout: seconds to connect (and the default wait for answers).
        send_timeout: seconds a send may wait for the socket to take the bytes.

    Raises DaemonNotRunning (no socket file, nobody listening) or ConnectError right away.
    """

    def __init__(self, path: Optional[str] = None, *, tcp: Optional[str] = None,
                 token: Optional[str] = None, timeout: float = 5.0,
                 send_timeout: float = 1.0) -> None:
        self.address: Address = resolve_address(path, tcp)
        self.timeout = timeout
        self._token = token
        self._send_timeout = send_timeout
        self._sequencer = commands.Sequencer()
        self._send_lock = threading.Lock()  # stamping + sending
        self._cond = threading.Condition()  # guards _state; notified on every message / failure
        self._state = ClientState(str(self.address))  # reader thread writes, others read (_cond)
        self._telemetry_callbacks: List[TelemetryCallback] = []
        self._event_callbacks: List[EventCallback] = []
        self._sock: Optional[socket.socket] = None
        self._reader: Optional[threading.Thread] = None
        self._closed = False
        self._open(timeout)

    # ---- connection ---------------------------------------------------------------------------

    def _open(self, timeout: float) -> None:
        sock = open_socket(self.address, timeout)
        sock.settimeout(self._send_timeout)  # sendall's limit; the reader loops on recv timeouts
        with self._cond:
            self._state.new_connection(str(self.address))
        self._sock = sock
        self._reader = threading.Thread(target=self._read_loop, args=(sock,),
                                        name="robot-edge-reader", daemon=True)
        self._reader.start()

    def _read_loop(self, sock: socket.socket) -> None:
        """The reader thread: until the connection ends or close()."""
        while True:
            try:
                data = sock.recv(_RECV_BYTES)
            except socket.timeout:
                if self._sock is not sock:
                    return
                continue
            except OSError as e:
                if self._sock is not sock:
                    return
                self._fail(ConnectionClosed(f"receiving from robot-edged at {self.address}: {e}"))
                return
            if not data:
                if self._sock is sock:
                    self._fail(ConnectionClosed(f"robot-edged at {self.address} closed the "
                                                "connection without saying why"))
                return
            try:
                with self._cond:
                    items = self._state.feed(data)
                    self._cond.notify_all()
            except RobotEdgeError as e:  # Refused (Goodbye) or ProtocolError
                self._fail(e)
                return
            self._run_callbacks(items)

    def _run_callbacks(self, items) -> None:
        for item in items:
            if isinstance(item, Telemetry):
                callbacks = list(self._telemetry_callbacks)
            elif isinstance(item, Event):
                callbacks = list(self._event_callbacks)
            else:
                continue
            for cb in callbacks:
                try:
                    cb(item)
                except Exception:  # a callback's bug must not stop the reader
                    log.exception("robot_edge: %s callback %r raised", type(item).__name__, cb)

    def _fail(self, error: Exception) -> None:
        with self._cond:
            if self._state.failure is None:
                self._state.failure = error
            self._cond.notify_all()

    def _check(self) -> None:
        """Raises the connection's failure, if any (caller holds _cond)."""
        if self._state.failure is not None:
            raise self._state.failure

    def close(self) -> None:
        """Closes the connection (the daemon treats it as a disconnect: a controller's walking
        velocity goes to zero, a trajectory stream DAMPs after 200 ms). Idempotent."""
        self._closed = True
        self._drop_socket(ConnectionClosed("the client was closed"))

    def _drop_socket(self, failure: Exception) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()
        reader = self._reader
        if reader is not None and reader is not threading.current_thread():
            reader.join(timeout=2 * _POLL_S + 1.0)
        self._fail(failure)

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def reconnect(self, timeout: Optional[float] = None, retry_for: float = 0.0) -> Welcome:
        """Opens a new connection and sends the same Hello again, with resume_after_event set to
        the last event seen, so the events missed in between arrive first (those the daemon
        still keeps: api.event_history). Retries connecting for `retry_for` seconds (a daemon
        restarting). Returns the new Welcome; `daemon_restarted` tells whether the daemon's event
        numbering started over (events of the new daemon before the Welcome are then not resent).
        """
        timeout = self.timeout if timeout is None else timeout
        with self._cond:
            hello = self._state.hello
        if hello is None:
            raise ProtocolError("reconnect() needs a hello() first")
        self._drop_socket(ConnectionClosed("reconnecting"))
        self._closed = False
        deadline = time.monotonic() + retry_for
        while True:
            try:
                self._open(timeout)
                break
            except ConnectError:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(0.2)
        with self._cond:
            resume = self._state.resume_point
        h = make_hello(hello.controller, hello.token, resume, hello.want_command_results,
                       hello.no_telemetry)
        return self._hello(h, timeout)

    # ---- Hello --------------------------------------------------------------------------------

    def hello(self, controller: str = "", *, want_command_results: bool = True,
              resume_after_event: int = 0, no_telemetry: bool = False,
              token: Optional[str] = None, timeout: Optional[float] = None) -> Welcome:
        """Sends the Hello (first message of every connection) and returns the daemon's Welcome
        (version, joint_names in firmware order, control_rate_hz, mode, last_event_sequence, ...).

        controller: "cloud", "ble" or another name of the config's api.controllers to command;
            "" to observe (an observer may still send DAMP).
        want_command_results: the daemon answers each command with a CommandResult (commands
            then return it; without, they return None).
        resume_after_event: resend the kept events with a greater sequence (0: none).
        no_telemetry: do not send this client the 10 Hz telemetry.
        token: the controller's token over TCP (default: the constructor's).
        Raises Refused(reason) when the daemon refuses (wrong token, controller not allowed, ...),
        Timeout, ProtocolError."""
        h = make_hello(controller, token if token is not None else self._token, resume_after_event,
                       want_command_results, no_telemetry)
        return self._hello(h, self.timeout if timeout is None else timeout)

    def _hello(self, h, timeout: float) -> Welcome:
        with self._cond:
            self._state.on_hello_sent(h)
        self._send(ClientMessage(hello=h))
        with self._cond:
            if not self._cond.wait_for(
                    lambda: self._state.welcome is not None or self._state.failure is not None,
                    timeout):
                raise Timeout(f"no Welcome from robot-edged at {self.address} within {timeout} s")
            self._check()
            return self._state.welcome  # type: ignore[return-value]

    @property
    def welcome(self) -> Optional[Welcome]:
        """The Welcome of the current connection (None before hello())."""
        with self._cond:
            return self._state.welcome

    @property
    def joint_names(self) -> List[str]:
        """Firmware order, from the Welcome."""
        return list(self._need_welcome().joint_names)

    def _need_welcome(self) -> Welcome:
        with self._cond:
            self._check()  # a refused or closed connection says so, not "hello() first"
        w = self.welcome
        if w is None:
            raise ProtocolError("call hello() first")
        return w

    # ---- sending ------------------------------------------------------------------------------

    def _send(self, message: ClientMessage) -> None:
        data = frame_of(message)
        sock = self._sock
        if sock is None:
            raise ConnectionClosed("the client is closed")
        try:
            sock.sendall(data)
        except socket.timeout:
            error: Exception = Timeout(f"robot-edged at {self.address} did not take "
                                       f"{len(data)} bytes within {self._send_timeout} s")
            self._fail(error)
            raise error from None
        except OSError as e:
            # The daemon may have said Goodbye just before closing: its reason beats EPIPE.
            time.sleep(0.05)
            with self._cond:
                self._check()
            raise ConnectionClosed(f"sending to robot-edged at {self.address}: {e}") from None

    def send(self, command: Union[CloudCommand, JointCommand], *, stamp: bool = True, wait: bool = True,
             timeout: Optional[float] = None) -> Optional[CommandResult]:
        """Stamps `command` (sequence: this client's next; timestamp_us: the wall clock, µs),
        sends it, and returns the daemon's CommandResult (`accepted`, `reason` such as
        "velocity_in_damp", `control_mode`). None when wait=False or the Hello did not ask for
        results. Raises Timeout when no result comes within `timeout` s.

        stamp=False sends the command's own sequence and timestamp_us (a command built as in
        the seeds' examples); they must then increase on this connection, as the daemon drops
        stale and replayed ones — do not mix with stamped commands."""
        w = self._need_welcome()
        if wait and threading.current_thread() is self._reader:
            raise RuntimeError("a callback cannot wait for a command's result (it runs on the "
                               "reader thread that would deliver it): use wait=False")
        with self._cond:
            wants = self._state.hello is not None and self._state.hello.want_command_results
        with self._send_lock:
            sequence = self._sequencer.stamp(command) if stamp else command.sequence
            if wait and wants:
                with self._cond:
                    self._state.results[sequence] = None
            self._send(command_message(command))
        if not (wait and wants):
            return None
        del w
        return self._wait_result(sequence, self.timeout if timeout is None else timeout)

    def _wait_result(self, sequence: int, timeout: float) -> CommandResult:
        with self._cond:
            try:
                if not self._cond.wait_for(lambda: self._state.results.get(sequence) is not None
                                           or self._state.failure is not None, timeout):
                    raise Timeout(f"no CommandResult for command #{sequence} from robot-edged at "
                                  f"{self.address} within {timeout} s")
                result = self._state.results.get(sequence)
                if result is None:
                    self._check()
                return result  # type: ignore[return-value]
            finally:
                self._state.results.pop(sequence, None)

    def sync_clock(self, exchanges: int = 5, timeout: Optional[float] = None) -> ClockOffset:
        """The robot's clock (TimeSync): `exchanges` round trips, the shortest kept. Robot time
        (robot-edged's monotonic clock, µs) is what JointCommand.end_time_us and
        reference_time_us are in: offset.to_robot(commands.monotonic_us()). Raises Timeout."""
        self._need_welcome()
        wait_s = self.timeout if timeout is None else timeout
        sync = ClockSync(self)
        for i in range(max(exchanges, 1)):
            request_id, message = sync.request(i)
            with self._cond:
                self._state.time_syncs[request_id] = None
            try:
                with self._send_lock:
                    self._send(message)
                with self._cond:
                    if not self._cond.wait_for(
                            lambda: self._state.time_syncs.get(request_id) is not None
                            or self._state.failure is not None, wait_s):
                        raise Timeout(f"robot-edged at {self.address} did not answer a "
                                      f"TimeSyncRequest within {wait_s} s")
                    self._check()
                    sync.take(*self._state.time_syncs[request_id])  # type: ignore[misc]
            finally:
                with self._cond:
                    self._state.time_syncs.pop(request_id, None)
        assert sync.best is not None
        return sync.best

    def stream_state(self, rate_hz: int, timeout: Optional[float] = None) -> int:
        """Asks for the state stream (edge_api.proto JointState) at `rate_hz`, up to the control
        rate; 0 stops it. Returns the granted rate. The states then come through states().
        Raises Timeout."""
        self._need_welcome()
        wait_s = self.timeout if timeout is None else timeout
        with self._cond:
            answers = self._state.state_stream_answers
        with self._send_lock:
            self._send(ClientMessage(state_stream=StateStreamRequest(rate_hz=rate_hz)))
        with self._cond:
            if not self._cond.wait_for(lambda: self._state.state_stream_answers > answers
                                       or self._state.failure is not None, wait_s):
                raise Timeout(f"robot-edged at {self.address} did not answer a "
                              f"StateStreamRequest within {wait_s} s")
            self._check()
            return self._state.state_stream_rate

    def states(self, timeout: Optional[float] = None) -> Iterator[JointState]:
        """Yields the state stream's JointStates in order, from the call on. A consumer slower
        than the stream skips to the oldest of the last STATES_KEPT. Raises Timeout after
        `timeout` s without one (None: the client's timeout), or the connection's failure."""
        with self._cond:
            index = self._state.state_count  # now, not at the first next()
        return self._states_from(index, self.timeout if timeout is None else timeout)

    def _states_from(self, index: int, wait_s: float) -> Iterator[JointState]:
        while True:
            with self._cond:
                state, index = self._state.state_at(index)
                if state is None:
                    if not self._cond.wait_for(lambda: self._state.state_count > index
                                               or self._state.failure is not None, wait_s):
                        raise Timeout(f"no JointState from robot-edged at {self.address} "
                                      f"within {wait_s} s")
                    self._check()
                    continue
            yield state

    def stand(self, timeout: Optional[float] = None) -> Optional[CommandResult]:
        """ModeCommand(STAND): the robot ramps to its stand pose over ~2 s (stand_ramp_s)."""
        return self.send(commands.mode(Mode.MODE_STAND), timeout=timeout)

    def damp(self, timeout: Optional[float] = None) -> Optional[CommandResult]:
        """ModeCommand(DAMP): motors compliant. Always accepted, from every client."""
        return self.send(commands.mode(Mode.MODE_DAMP), timeout=timeout)

    def walk(self, vx: float, vy: float = 0.0, vyaw: float = 0.0,
             timeout: Optional[float] = None) -> Optional[CommandResult]:
        """VelocityCommand: vx forward / backward (m/s, ±2), vy left / right (m/s, ±1), vyaw
        (rad/s, ±2). ValueError outside those ranges or not finite. The robot keeps walking at it
        until another command. Dropped (`velocity_in_damp`, `velocity_no_policy`, ...) as the
        CommandResult says."""
        return self.send(commands.velocity(vx, vy, vyaw), timeout=timeout)

    def trajectory(self, positions: Union[Sequence[float], Sequence[Sequence[float]],
                                          Mapping[Union[str, int], float]],
                   kp: Optional[Sequence[float]] = None, kd: Optional[Sequence[float]] = None,
                   *, limits=None, timeout: Optional[float] = None) -> Optional[CommandResult]:
        """One TrajectoryRequest, applied at once (no interpolation: see stream_trajectory for
        smooth motion). `positions`: one position per joint (rad, firmware order), a list of
        such poses (one per control tick), or {joint name: rad} applied to the latest measured
        pose. kp (N·m/rad, 0..500) / kd (N·m·s/rad, 0..5): None for the robot's defaults, else one
        per joint. `limits`: per joint (min, max) rad, to refuse what the robot would clamp.
        The robot DAMPs 200 ms later unless more packets follow."""
        names = self.joint_names
        if isinstance(positions, Mapping):
            latest = self.latest_telemetry or self.wait_telemetry()
            positions = commands.apply_targets(latest.joint_pos, positions, names)
        cmd = commands.trajectory(positions, kp, kd, joints=len(names), limits=limits,
                                  names=names)
        return self.send(cmd, timeout=timeout)

    # ---- telemetry and events ----------------------------------------------------------------

    def on_telemetry(self, callback: TelemetryCallback) -> Callable[[], None]:
        """Calls callback(Telemetry) for every frame, on the reader thread. Returns a function
        that removes it."""
        self._telemetry_callbacks.append(callback)
        return lambda: self._telemetry_callbacks.remove(callback)

    def on_event(self, callback: EventCallback) -> Callable[[], None]:
        """Calls callback(Event) for every system event, on the reader thread (resent ones after
        a reconnect included). Returns a function that removes it."""
        self._event_callbacks.append(callback)
        return lambda: self._event_callbacks.remove(callback)

    @property
    def latest_telemetry(self) -> Optional[Telemetry]:
        with self._cond:
            return self._state.latest_telemetry

    @property
    def last_event_sequence(self) -> int:
        """The sequence reconnect() resumes after: the last event seen (or the Welcome's
        last_event_sequence when none was)."""
        with self._cond:
            return self._state.resume_point

    @property
    def daemon_restarted(self) -> bool:
        """True once a reconnect found a daemon whose events start over (a restart)."""
        with self._cond:
            return self._state.daemon_restarted

    def wait_telemetry(self, timeout: Optional[float] = None,
                       match: Optional[Callable[[Telemetry], bool]] = None) -> Telemetry:
        """The next telemetry frame received after this call (that satisfies `match`). Raises
        Timeout."""
        timeout = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        with self._cond:
            seen = self._state.telemetry_count
            while True:
                if self._state.telemetry_count > seen:
                    seen = self._state.telemetry_count
                    t = self._state.latest_telemetry
                    if match is None or match(t):  # type: ignore[arg-type]
                        return t  # type: ignore[return-value]
                self._check()
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Timeout(f"no matching telemetry from robot-edged at {self.address} "
                                  f"within {timeout} s")
                self._cond.wait(left)

    def telemetry(self, timeout: Optional[float] = None) -> Iterator[Telemetry]:
        """Yields frames as they come (lossy: a slow loop gets the latest frame, not a backlog).
        Raises Timeout after `timeout` s without one, or the connection's failure."""
        while True:
            yield self.wait_telemetry(timeout)

    def wait_event(self, match: Optional[Callable[[Event], bool]] = None,
                   timeout: Optional[float] = None, after: Optional[int] = None) -> Event:
        """The first event satisfying `match` that arrives after this call, or, with `after`,
        the first kept one with a sequence above `after` (so nothing sent in between is missed).
        Raises Timeout."""
        timeout = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        with self._cond:
            index = 0 if after is not None else self._state.event_count
            while True:
                event, index = self._state.find_event(index, match, after)
                if event is not None:
                    return event
                self._check()
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Timeout(f"no matching event from robot-edged at {self.address} within "
                                  f"{timeout} s")
                self._cond.wait(left)

    def events(self, timeout: Optional[float] = None) -> Iterator[Event]:
        """Yields every event from now on, in order (reliable). Raises Timeout after `timeout` s
        without one (None: wait forever), or the connection's failure. Events from the call
        on (not from the first next()) are included."""
        with self._cond:
            index = self._state.event_count
        return self._events_from(index, timeout)

    def _events_from(self, index: int, timeout: Optional[float]) -> Iterator[Event]:
        while True:
            with self._cond:
                deadline = None if timeout is None else time.monotonic() + timeout
                while True:
                    event, index = self._state.find_event(index, None, None)
                    if event is not None:
                        break
                    self._check()
                    left = None if deadline is None else deadline - time.monotonic()
                    if left is not None and left <= 0:
                        raise Timeout(f"no event from robot-edged within {timeout} s")
                    self._cond.wait(left)
            yield event

    # ---- trajectory streaming -----------------------------------------------------------------

    def stream_trajectory(self, target, *, duration: Optional[float] = None, hold: float = 0.0,
                          rate_hz: float = 50.0, kp: Optional[Sequence[float]] = None,
                          kd: Optional[Sequence[float]] = None, max_speed: float = 2.0,
                          limits=None, profile: str = "quintic",
                          result_timeout: Optional[float] = None) -> StreamResult:
        """Streams a smooth joint-space motion at `rate_hz` (~50 Hz), from the measured pose (the
        next telemetry frame), and returns when the last packet is answered.

        target:
            {joint name or index: rad}  those joints ramp there, the others hold their measured
                                        position; over `duration` s (default 2), then `hold` s
            [25 floats]                 the goal pose (rad, firmware order), likewise
            [(t_s, pose), ...]          waypoints (pose as above), each reached at t_s; then hold
            fn(t_s) -> pose             called for each control tick, for `duration` s (required);
                                        a pose or {joint: rad} over the measured pose
        profile: "quintic" (zero velocity and acceleration at both ends) or "linear".
        kp / kd: per-joint gains for every packet (N·m/rad, N·m·s/rad), None = robot's defaults.
        max_speed: rad/s no joint may exceed between two control ticks (the first target must
            be within one packet period of it from the measured pose): ValueError otherwise.
        limits: per-joint (min, max) rad; a target beyond them is ValueError (the robot would
            clamp it without telling).
        Poses known in advance are all checked before the first packet; a function's as it goes.
        Each packet carries Welcome.control_rate_hz / rate_hz segments (one per control tick).
        A packet more than a period late is skipped for the one due.

        Raises CommandDropped (the daemon's reason) at the first dropped packet, Timeout when the
        last answer does not come. Afterwards the robot holds the last target, then DAMPs 200 ms
        after the last packet unless it gets a new command (e.g. stand())."""
        w = self._need_welcome()
        names = list(w.joint_names)
        start = self.wait_telemetry().joint_pos
        plan = make_plan(target, start, names, w.control_rate_hz, duration, hold, rate_hz,
                         max_speed, limits, profile)
        run = StreamRun(plan, kp, kd, len(names))
        run.result.start_pose = start
        timeout = self.timeout if result_timeout is None else result_timeout
        with self._cond:
            wants = self._state.hello is not None and self._state.hello.want_command_results
        t0 = time.monotonic()
        try:
            while not run.done():
                due = t0 + run.due_s()
                with self._cond:
                    while True:
                        self._check()
                        run.check(self._state.results)
                        left = due - time.monotonic()
                        if left <= 0:
                            break
                        self._cond.wait(left)
                command = run.command(time.monotonic() - t0)
                with self._send_lock:
                    sequence = self._sequencer.stamp(command)
                    if wants:
                        with self._cond:
                            self._state.results[sequence] = None
                    self._send(command_message(command))
                run.sent(sequence)
            if wants:
                deadline = time.monotonic() + timeout
                with self._cond:
                    while run.pending:
                        self._check()
                        run.check(self._state.results)
                        left = deadline - time.monotonic()
                        if not run.pending:
                            break
                        if left <= 0:
                            raise Timeout(f"no answer to trajectory packet #{run.pending[-1]} "
                                          f"within {timeout} s")
                        self._cond.wait(left)
        finally:
            with self._cond:
                run.forget(self._state.results)
        run.result.duration_s = time.monotonic() - t0
        return run.result
