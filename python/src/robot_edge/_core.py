"""What Client and AsyncClient share, without I/O: where to connect, the messages' dispatch and
bookkeeping (Welcome, telemetry, events and their resume point, command results), and the
trajectory stream's schedule. The clients add the sockets, the waiting and the threads or tasks.
"""
from __future__ import annotations

import errno
import math
import os
import socket
import ssl
import time
from collections import deque
from dataclasses import dataclass, field
from typing import (Callable, Deque, Dict, List, Mapping, Optional, Sequence, Tuple, Union)

from edge.generated.edge_api_pb2 import (ClientMessage, CommandResult, DiagnosticsExtension,
                                         Hello, JointCommand, JointState, ServerMessage,
                                         TelemetryExtension, TimeSyncRequest, TimeSyncResult,
                                         Welcome)
from edge.generated.edge_cloud_pb2 import CloudCommand, EdgeEvent, EdgeTelemetry

from . import commands
from .errors import (ConnectError, DaemonNotRunning, ProtocolError, Refused)
from .framing import FrameDecoder, encode_frame
from .ramp import FunctionPath, Path, Ramp, StreamPlan, Waypoints

DEFAULT_SOCKET = "/run/robot-edge/api.sock"
SOCKET_ENV = "ROBOT_EDGE_SOCKET"
EVENTS_KEPT = 4096  # events a client keeps for wait_event() / events() (the daemon keeps 1024)
STATES_KEPT = 1000  # JointStates a client keeps for states(): 2 s at 500 Hz


# ---- Where -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Address:
    """A Unix socket path, or a TCP host and port."""
    path: Optional[str] = None
    host: Optional[str] = None
    port: int = 0

    @property
    def tcp(self) -> bool:
        return self.path is None

    def __str__(self) -> str:
        if self.path is not None:
            return self.path
        return f"[{self.host}]:{self.port}" if ":" in (self.host or "") else f"{self.host}:{self.port}"


def resolve_address(path: Optional[str], tcp: Optional[str]) -> Address:
    """`tcp` "host:port" (or "[v6]:port") when given, else the Unix socket `path`, else
    $ROBOT_EDGE_SOCKET, else /run/robot-edge/api.sock."""
    if tcp:
        if path:
            raise ValueError("give either a socket path or tcp='host:port', not both")
        host, sep, port = tcp.rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"tcp must be 'host:port', not {tcp!r}")
        return Address(host=host.strip("[]"), port=int(port))
    return Address(path=path or os.environ.get(SOCKET_ENV) or DEFAULT_SOCKET)


def _hint(error: int, tcp: bool) -> str:
    if error == errno.ENOENT:
        return " — is robot-edged running? (no socket file; --socket or $ROBOT_EDGE_SOCKET " \
               "selects another)"
    if error == errno.ECONNREFUSED:
        return (" — is robot-edged running with api.tcp set?" if tcp else
                " — is robot-edged running? (the socket file exists but nobody listens)")
    if error in (errno.EACCES, errno.EPERM):
        return " — is your user in the group robot-edge?"
    if error == errno.ETIMEDOUT:
        return " — is the robot reachable?"
    return ""


def connect_error(address: Address, error: OSError) -> ConnectError:
    """The exception for a failed connect(): DaemonNotRunning for no socket / refused."""
    code = error.errno if error.errno is not None else (
        errno.ETIMEDOUT if isinstance(error, (socket.timeout, TimeoutError)) else 0)
    text = os.strerror(code) if code else str(error)
    message = f"cannot connect to robot-edged at {address}: {text}{_hint(code, address.tcp)}"
    if code in (errno.ENOENT, errno.ECONNREFUSED):
        return DaemonNotRunning(message, str(address))
    return ConnectError(message, str(address))


def tls_context(ca_file: str, certificate: Optional[str] = None,
                private_key: Optional[str] = None) -> ssl.SSLContext:
    """A client TLS context for robot-edged's api.tls: trusts `ca_file` only, checks the
    certificate's name, TLS 1.2 at least; `certificate` / `private_key` for api.tls.client_ca."""
    context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=ca_file)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    if certificate:
        context.load_cert_chain(certificate, private_key)
    return context


def tls_error(address: Address, error: ssl.SSLError) -> ConnectError:
    """The exception for a failed TLS handshake, naming the cause."""
    where = f"TLS with robot-edged at {address}"
    if isinstance(error, ssl.SSLCertVerificationError):
        if error.verify_code in (62, 64):  # X509_V_ERR_HOSTNAME_MISMATCH, _IP_ADDRESS_MISMATCH
            return ConnectError(f"{where}: name mismatch: {error.verify_message}", str(address))
        return ConnectError(f"{where}: certificate not trusted: {error.verify_message}",
                            str(address))
    if error.reason in ("WRONG_VERSION_NUMBER", "PACKET_LENGTH_TOO_LONG", "RECORD_LAYER_FAILURE"):
        return ConnectError(f"{where}: the daemon does not speak TLS there (api.tls is not set?)",
                            str(address))
    return ConnectError(f"{where}: handshake failed: {error}", str(address))


def open_socket(address: Address, timeout_s: float) -> socket.socket:
    """A connected blocking socket (TCP with TCP_NODELAY). Raises ConnectError."""
    try:
        if address.tcp:
            sock = socket.create_connection((address.host, address.port), timeout=timeout_s)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        else:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(timeout_s)
            try:
                sock.connect(address.path)
            except BaseException:
                sock.close()
                raise
    except OSError as e:
        raise connect_error(address, e) from None
    return sock


# ---- What comes -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Telemetry:
    """One 10 Hz telemetry frame: seed 001's EdgeTelemetry and robot-edge's TelemetryExtension
    (control_mode, last_command_sequence, joint_torque in N·m) sent beside it.

    `telemetry.joint_pos` is in rad, `joint_vel` rad/s, `joint_current` A, `joint_temp` °C,
    `timestamp_us` the edge's wall clock (µs). `received` is time.monotonic() at arrival (s)."""
    telemetry: EdgeTelemetry
    extension: Optional[TelemetryExtension]
    received: float

    @property
    def joint_pos(self) -> List[float]:
        return list(self.telemetry.joint_pos)

    @property
    def fw_mode(self) -> int:
        return self.telemetry.fw_mode


@dataclass(frozen=True)
class Event:
    """One system event (reliable, numbered from 1): seed 001's EdgeEvent (error, diagnostics or
    controller) and, with diagnostics, robot-edge's DiagnosticsExtension."""
    event: EdgeEvent
    diagnostics: Optional[DiagnosticsExtension]
    received: float

    @property
    def sequence(self) -> int:
        return self.event.sequence

    @property
    def kind(self) -> str:
        """"error", "diagnostics", "controller" (or "" for none)."""
        return self.event.WhichOneof("event") or ""

    @property
    def code(self) -> str:
        """EdgeError.code ("TRAJECTORY_TIMEOUT", "MODE_BLOCKED", ...) or "" for other kinds."""
        return self.event.error.code if self.kind == "error" else ""


TelemetryCallback = Callable[[Telemetry], None]
EventCallback = Callable[[Event], None]


def make_hello(controller: str, token: Optional[str], resume_after_event: int,
               want_command_results: bool, no_telemetry: bool) -> Hello:
    return Hello(controller=controller, token=token or "", resume_after_event=resume_after_event,
                 want_command_results=want_command_results, no_telemetry=no_telemetry)


def frame_of(message: ClientMessage) -> bytes:
    """The bytes on the wire. Raises ProtocolError over 64 KiB."""
    try:
        return encode_frame(message.SerializeToString())
    except ValueError as e:
        raise ProtocolError(str(e)) from None


class ClientState:
    """The connection's state as the received messages make it. Not thread-safe: Client calls it
    under its lock, AsyncClient from the event loop.

    Event resume: `resume_point` is the sequence of the last event this client has seen (or, with
    none seen, the Welcome's last_event_sequence: what existed when it connected); a reconnect
    passes it as Hello.resume_after_event and the daemon resends the newer events it still keeps."""

    def __init__(self, peer: str) -> None:
        self.peer = peer
        self.decoder = FrameDecoder()
        self.welcome: Optional[Welcome] = None
        self.hello: Optional[Hello] = None  # the last Hello sent (reused by reconnect)
        self.latest_telemetry: Optional[Telemetry] = None
        self.telemetry_count = 0
        self.events: Deque[Tuple[int, Event]] = deque(maxlen=EVENTS_KEPT)  # (index, event)
        self.event_count = 0  # index of the next event received (0, 1, ...; across reconnects)
        self.resume_point = 0
        self.daemon_restarted = False
        self.results: Dict[int, Optional[CommandResult]] = {}  # awaited sequences -> result
        # Awaited TimeSync request ids -> (answer, client_receive_us).
        self.time_syncs: Dict[int, Optional[Tuple[TimeSyncResult, int]]] = {}
        # The state stream: the last STATES_KEPT JointStates, how many came in all, and the
        # StateStreamResults (how many, the last granted rate).
        self.states: Deque[JointState] = deque(maxlen=STATES_KEPT)
        self.state_count = 0
        self.state_stream_answers = 0
        self.state_stream_rate = 0
        self.failure: Optional[Exception] = None

    def new_connection(self, peer: str) -> None:
        self.peer = peer
        self.decoder = FrameDecoder()
        self.welcome = None
        self.failure = None
        self.results.clear()

    def on_hello_sent(self, hello: Hello) -> None:
        self.hello = hello
        if hello.resume_after_event > 0:
            self.resume_point = hello.resume_after_event

    def feed(self, data: bytes) -> List[Union[Welcome, Telemetry, Event, CommandResult, ServerMessage]]:
        """Decodes `data` and updates the state. Returns what the clients deliver, in order:
        Welcome, Telemetry, Event, CommandResult, or the raw ServerMessage (maintenance results).
        Raises Refused at a Goodbye and ProtocolError on a bad frame (after the state has taken
        the messages before it into account; they are lost to callbacks)."""
        self.decoder.feed(data)
        out: List = []
        while True:
            try:
                payload = self.decoder.next()
            except ProtocolError as e:
                raise ProtocolError(f"robot-edged at {self.peer} sent {e}: connection dropped") \
                    from None
            if payload is None:
                return out
            message = ServerMessage()
            try:
                message.ParseFromString(payload)
            except Exception:  # google.protobuf.message.DecodeError
                raise ProtocolError(f"robot-edged at {self.peer} sent an undecodable "
                                    f"{len(payload)}-byte message: connection dropped") from None
            item = self._take(message)
            if item is not None:
                out.append(item)

    def _take(self, m: ServerMessage):
        kind = m.WhichOneof("msg")
        now = time.monotonic()
        if kind == "goodbye":
            reason = m.goodbye.reason
            what = ("refused the connection" if self.welcome is None else "closed the connection")
            raise Refused(reason, f"robot-edged at {self.peer} {what}: {reason}")
        if self.welcome is None and kind != "welcome":
            raise ProtocolError(f"robot-edged at {self.peer} sent {kind} before its Welcome")
        if kind == "welcome":
            self.welcome = m.welcome
            asked = self.hello.resume_after_event if self.hello is not None else 0
            last = m.welcome.last_event_sequence
            if self.resume_point > last:  # a fresh daemon numbers its events from 1 again
                self.daemon_restarted = True
                self.resume_point = last
            elif asked == 0:
                self.resume_point = max(self.resume_point, last)
            return m.welcome
        if kind == "telemetry":
            t = Telemetry(m.telemetry,
                          m.telemetry_extension if m.HasField("telemetry_extension") else None, now)
            self.latest_telemetry = t
            self.telemetry_count += 1
            return t
        if kind == "event":
            e = Event(m.event,
                      m.diagnostics_extension if m.HasField("diagnostics_extension") else None, now)
            self.resume_point = e.sequence
            self.events.append((self.event_count, e))
            self.event_count += 1
            return e
        if kind == "joint_state":
            self.states.append(m.joint_state)
            self.state_count += 1
            return None
        if kind == "state_stream_result":
            self.state_stream_rate = m.state_stream_result.rate_hz
            self.state_stream_answers += 1
            return None
        if kind == "time_sync_result":
            r = m.time_sync_result
            if r.request_id in self.time_syncs:
                self.time_syncs[r.request_id] = (r, time.monotonic_ns() // 1000)
            return None
        if kind == "command_result":
            r = m.command_result
            if r.sequence in self.results:
                self.results[r.sequence] = r
            return r
        return m

    def state_at(self, index: int) -> Tuple[Optional[JointState], int]:
        """The kept JointState with index >= `index` (the oldest kept when `index` is older), and
        the index to look from next time; None when none came yet."""
        oldest = self.state_count - len(self.states)
        index = max(index, oldest)
        if index >= self.state_count:
            return None, index
        return self.states[index - oldest], index + 1

    def find_event(self, first_index: int, match: Optional[Callable[[Event], bool]],
                   after_sequence: Optional[int]) -> Tuple[Optional[Event], int]:
        """The first kept event with index >= first_index (and sequence > after_sequence) that
        matches; and the index to look from next time."""
        for index, e in self.events:
            if index < first_index:
                continue
            if after_sequence is not None and e.sequence <= after_sequence:
                continue
            if match is None or match(e):
                return e, index + 1
        return None, self.event_count


# ---- Commands and streams ---------------------------------------------------------------------

def command_message(command: Union[CloudCommand, JointCommand]) -> ClientMessage:
    if isinstance(command, JointCommand):
        return ClientMessage(joint_command=command)
    return ClientMessage(command=command)


@dataclass(frozen=True)
class ClockOffset:
    """The robot's clock as this client sees it (TimeSync): robot time = client time + offset_us.
    The error is at most round_trip_us / 2. Client time is time.monotonic_ns() // 1000."""
    offset_us: int
    round_trip_us: int

    def to_robot(self, client_us: int) -> int:
        return client_us + self.offset_us


def estimate_offset(client_send_us: int, robot_receive_us: int, robot_send_us: int,
                    client_receive_us: int) -> ClockOffset:
    """NTP's estimate of one exchange (the same arithmetic as client/time_sync.hpp)."""
    round_trip = (client_receive_us - client_send_us) - (robot_send_us - robot_receive_us)
    offset = (robot_receive_us - client_send_us + robot_send_us - client_receive_us) // 2
    return ClockOffset(offset, round_trip)


class ClockSync:
    """The bookkeeping of one sync_clock() (Client's and AsyncClient's): each exchange's request,
    and the estimate with the shortest round trip so far. The clients send, wait and read the
    answers from ClientState.time_syncs."""

    def __init__(self, owner: object) -> None:
        self._owner = id(owner)
        self.best: Optional[ClockOffset] = None

    def request(self, i: int) -> Tuple[int, ClientMessage]:
        """Exchange `i`'s request id, and its message stamped with the client's clock now."""
        request_id = (self._owner + i) & 0xFFFFFFFF or 1
        return request_id, ClientMessage(time_sync=TimeSyncRequest(
            request_id=request_id, client_send_us=commands.monotonic_us()))

    def take(self, answer: TimeSyncResult, received_us: int) -> None:
        e = estimate_offset(answer.client_send_us, answer.robot_receive_us,
                            answer.robot_send_us, received_us)
        if self.best is None or e.round_trip_us < self.best.round_trip_us:
            self.best = e


def is_waypoints(target) -> bool:
    return (isinstance(target, (list, tuple)) and len(target) > 0 and
            isinstance(target[0], (list, tuple)) and len(target[0]) == 2 and
            isinstance(target[0][0], (int, float)) and
            (isinstance(target[0][1], Mapping) or
             (isinstance(target[0][1], (list, tuple)) and len(target[0][1]) > 2)))


def make_plan(target, start: Sequence[float], names: Sequence[str], control_rate_hz: float,
              duration: Optional[float], hold: float, rate_hz: float, max_speed: float,
              limits, profile: str) -> StreamPlan:
    """The StreamPlan of Client.stream_trajectory's arguments (see its docstring). Paths known in
    advance (a goal, waypoints) are checked whole here: nothing is sent when one pose is bad."""
    hold = float(hold)
    if not (math.isfinite(hold) and hold >= 0.0):
        raise ValueError(f"hold must be >= 0 s, not {hold}")
    path: Path
    if callable(target):
        if duration is None:
            raise ValueError("a targets function needs duration= (s)")
        path = FunctionPath(target, start, names)
        total = float(duration) + hold
    elif is_waypoints(target):
        if duration is not None:
            raise ValueError("waypoints carry their own times: no duration=")
        legs = [(t, commands.apply_targets(start, p, names) if isinstance(p, Mapping) else p)
                for t, p in target]
        path = Waypoints(start, legs, profile)
        total = path.duration_s + hold
    else:
        goal = (commands.apply_targets(start, target, names) if isinstance(target, Mapping)
                else list(target))
        d = 2.0 if duration is None else float(duration)
        path = Ramp(start, goal, d, profile)
        total = d + hold
    plan = StreamPlan(path, total, rate_hz=rate_hz, control_rate_hz=control_rate_hz,
                      max_speed_rad_s=max_speed, limits=limits, names=names)
    if not isinstance(path, FunctionPath):
        plan.check_all()
    return plan


@dataclass
class StreamResult:
    """How a trajectory stream went. The robot holds the last target, then DAMPs 200 ms after the
    last packet unless it gets another command (stand(), another stream)."""
    packets_sent: int = 0
    packets_skipped: int = 0  # skipped because the sender was late by a packet period or more
    last_result: Optional[CommandResult] = None  # the daemon's answer to the last packet
    start_pose: List[float] = field(default_factory=list)  # measured, rad
    final_target: List[float] = field(default_factory=list)  # last pose sent, rad
    duration_s: float = 0.0  # from the first packet to the last answer


class StreamRun:
    """The schedule of one stream: which packet to send when, and the answers so far."""

    def __init__(self, plan: StreamPlan, kp, kd, joints: int) -> None:
        self.plan = plan
        self.kp, self.kd, self.joints = kp, kd, joints
        self.next_packet = 0
        self.pending: Deque[int] = deque()  # sequences sent, answers not yet looked at
        self.result = StreamResult()

    def done(self) -> bool:
        return self.next_packet >= self.plan.packet_count

    def due_s(self) -> float:
        """When (s after the start) the next packet is due."""
        return self.plan.packet_time(self.next_packet)

    def command(self, elapsed_s: float) -> CloudCommand:
        """The next packet's command; late by a packet period or more, the packet for now (never
        instead of packet 0: the first target is the measured pose)."""
        on_time = min(int(elapsed_s * self.plan.rate_hz), self.plan.packet_count - 1)
        if self.next_packet > 0 and on_time > self.next_packet:
            self.result.packets_skipped += on_time - self.next_packet
            self.next_packet = on_time
        segments = self.plan.segments(self.next_packet)
        self.next_packet += 1
        self.result.final_target = segments[-1]
        return commands.trajectory(segments, self.kp, self.kd, joints=self.joints)

    def sent(self, sequence: int) -> None:
        self.pending.append(sequence)
        self.result.packets_sent += 1

    def check(self, results: Dict[int, Optional[CommandResult]]) -> None:
        """Takes the answers that came (in order); raises CommandDropped at a dropped packet."""
        from .errors import CommandDropped
        while self.pending and results.get(self.pending[0]) is not None:
            r = results.pop(self.pending.popleft())
            self.result.last_result = r
            if not r.accepted:
                raise CommandDropped(r, f"trajectory packet #{r.sequence} dropped by robot-edged: "
                                        f"{r.reason}; streaming stopped (the robot DAMPs 200 ms "
                                        "after the last accepted packet)")

    def forget(self, results: Dict[int, Optional[CommandResult]]) -> None:
        for s in self.pending:
            results.pop(s, None)
        self.pending.clear()
