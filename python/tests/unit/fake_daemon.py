"""A scripted robot-edged for the unit tests: a Unix (or TCP) listener in a thread that speaks the
API's framing, records every ClientMessage with its arrival time, answers Hello with a Welcome
(or a Goodbye) and commands with a CommandResult, and sends whatever a test tells it to."""
from __future__ import annotations

import queue
import socket
import threading
import time
from typing import Callable, List, Optional, Tuple

from edge.generated.edge_api_pb2 import (ClientMessage, CommandResult, Goodbye, JointState,
                                         ServerMessage, StateStreamResult, TimeSyncResult,
                                         Welcome, CONTROL_MODE_STAND)
from robot_edge.framing import FrameDecoder, encode_frame

JOINTS = ["L_Hip_Pitch", "L_Hip_Roll", "L_Hip_Yaw", "L_Knee", "L_Ankle_A", "L_Ankle_B",
          "R_Hip_Pitch", "R_Hip_Roll", "R_Hip_Yaw", "R_Knee", "R_Ankle_A", "R_Ankle_B",
          "L_Shoulder_Pitch", "L_Shoulder_Roll", "L_Shoulder_Yaw", "L_Elbow", "L_Wrist_Yaw",
          "R_Shoulder_Pitch", "R_Shoulder_Roll", "R_Shoulder_Yaw", "R_Elbow", "R_Wrist_Yaw",
          "Waist_Yaw", "Neck_Pitch", "Neck_Yaw"]


def frame(message: ServerMessage) -> bytes:
    return encode_frame(message.SerializeToString())


class FakeDaemon:
    """on_hello(hello) -> ServerMessage (Welcome or Goodbye) or None (no answer);
    on_command(command) -> CommandResult or None (no answer), for CloudCommands and
    JointCommands; a TimeSyncRequest is answered with the daemon's monotonic clock plus
    `clock_offset_us`; a StateStreamRequest with its rate capped at 500 Hz, then (rate above 0)
    `states_per_request` JointStates with ticks 1, 2, ..."""

    def __init__(self, path: Optional[str] = None, tcp: bool = False) -> None:
        if tcp:
            self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self.server.bind(("127.0.0.1", 0))
            self.address = "127.0.0.1:%d" % self.server.getsockname()[1]
        else:
            self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.server.bind(path)
            self.address = path
        self.server.listen(4)
        self.received: "queue.Queue[Tuple[int, float, ClientMessage]]" = queue.Queue()
        self.connections: List[socket.socket] = []
        self.welcomed: set = set()  # indexes of the connections sent a Welcome
        self.last_event_sequence = 0
        self.on_hello: Callable = self._welcome
        self.on_command: Callable = lambda c: CommandResult(
            sequence=c.sequence, accepted=True, control_mode=CONTROL_MODE_STAND)
        self.clock_offset_us = 0
        self.states_per_request = 0
        self._stop = False
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _welcome(self, hello) -> ServerMessage:
        return ServerMessage(welcome=Welcome(version="0.1.0", joint_names=JOINTS,
                                             control_rate_hz=500, telemetry_rate_hz=10,
                                             last_event_sequence=self.last_event_sequence,
                                             controllers=["ble", "cloud"]))

    def _accept(self) -> None:
        while not self._stop:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            self.connections.append(conn)
            index = len(self.connections) - 1
            threading.Thread(target=self._serve, args=(conn, index), daemon=True).start()

    def _serve(self, conn: socket.socket, index: int) -> None:
        decoder = FrameDecoder()
        while True:
            try:
                data = conn.recv(65536)
            except OSError:
                return
            if not data:
                return
            decoder.feed(data)
            while (payload := decoder.next()) is not None:
                m = ClientMessage()
                m.ParseFromString(payload)
                self.received.put((index, time.monotonic(), m))
                answer = None
                if m.HasField("hello"):
                    answer = self.on_hello(m.hello)
                elif m.HasField("command") or m.HasField("joint_command"):
                    r = self.on_command(getattr(m, m.WhichOneof("msg")))
                    answer = ServerMessage(command_result=r) if r is not None else None
                elif m.HasField("time_sync"):
                    now = time.monotonic_ns() // 1000 + self.clock_offset_us
                    answer = ServerMessage(time_sync_result=TimeSyncResult(
                        request_id=m.time_sync.request_id,
                        client_send_us=m.time_sync.client_send_us, robot_receive_us=now,
                        robot_send_us=now + 5))
                elif m.HasField("state_stream"):
                    rate = min(m.state_stream.rate_hz, 500)
                    states = [frame(ServerMessage(joint_state=JointState(
                        tick=t, q=[0.01 * t] * len(JOINTS))))
                        for t in range(1, self.states_per_request + 1)] if rate > 0 else []
                    answer_bytes = frame(ServerMessage(
                        state_stream_result=StateStreamResult(rate_hz=rate)))
                    try:
                        conn.sendall(answer_bytes + b"".join(states))
                    except OSError:
                        return
                if answer is not None:
                    try:
                        conn.sendall(frame(answer))
                    except OSError:
                        return
                    if answer.HasField("welcome"):
                        self.welcomed.add(index)
                    if answer.HasField("goodbye"):
                        conn.close()
                        return

    def wait_connections(self, n: int, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        while len(self.connections) < n and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(self.connections) >= n, f"{len(self.connections)} connections, not {n}"

    def send(self, message: ServerMessage, connection: int = -1) -> None:
        self.send_raw(frame(message), connection)

    def send_raw(self, data: bytes, connection: int = -1) -> None:
        self.wait_connections(1 if connection == -1 else connection + 1)
        self.connections[connection].sendall(data)

    def drop(self, connection: int = -1) -> None:
        """Closes a connection without a Goodbye."""
        c = self.connections[connection]
        try:
            c.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        c.close()

    def next(self, timeout: float = 5.0) -> ClientMessage:
        return self.received.get(timeout=timeout)[2]

    def next_timed(self, timeout: float = 5.0) -> Tuple[int, float, ClientMessage]:
        return self.received.get(timeout=timeout)

    def commands(self, timeout: float = 0.5) -> List[Tuple[float, ClientMessage]]:
        """Every message received so far (and within `timeout`), with arrival times."""
        out = []
        while True:
            try:
                _, t, m = self.received.get(timeout=timeout)
            except queue.Empty:
                return out
            out.append((t, m))

    def close(self) -> None:
        self._stop = True
        self.server.close()
        for c in self.connections:
            try:
                c.close()
            except OSError:
                pass
