"""The exceptions of the client: every failure says what happened and, where it helps, what to check.

    RobotEdgeError                 base of all of them
    ├── ConnectError               cannot reach robot-edged (ConnectionError too)
    │   └── DaemonNotRunning       no socket file / nobody listening: path and hint in the message
    ├── Refused                    robot-edged said Goodbye: .reason is its words
    ├── ConnectionClosed           the connection ended without a Goodbye (ConnectionError too)
    ├── Timeout                    no answer in time (TimeoutError too)
    ├── ProtocolError              what came is not robot-edged's API (oversize, undecodable, ...)
    └── CommandDropped             a streamed packet was dropped: .result is the CommandResult

Invalid arguments (a velocity outside the API's range, 24 positions, NaN) raise ValueError
before anything is sent.
"""
from __future__ import annotations

from typing import Optional


class RobotEdgeError(Exception):
    """Base class of the client's errors."""


class ConnectError(RobotEdgeError, ConnectionError):
    """robot-edged could not be reached (permission, unreachable host, timeout).

    `where` is the socket path or "host:port"."""

    def __init__(self, message: str, where: str = "") -> None:
        super().__init__(message)
        self.where = where


class DaemonNotRunning(ConnectError):
    """No socket file, or nobody accepts on it: robot-edged is not running (or not with api.tcp)."""


class Refused(RobotEdgeError):
    """robot-edged sent a Goodbye and closed the connection.

    `reason` is the daemon's Goodbye.reason, e.g. "invalid token for 'cloud'"."""

    def __init__(self, reason: str, message: Optional[str] = None) -> None:
        super().__init__(message or f"robot-edged refused: {reason}")
        self.reason = reason


class ConnectionClosed(RobotEdgeError, ConnectionError):
    """The connection ended without a Goodbye (the daemon died, a network cut, close())."""


class Timeout(RobotEdgeError, TimeoutError):
    """An answer (Welcome, CommandResult, telemetry, event) did not come in time."""


class ProtocolError(RobotEdgeError):
    """The peer sent something that is not robot-edged's API, or the API was misused
    (a command before hello())."""


class CommandDropped(RobotEdgeError):
    """robot-edged dropped a command of a trajectory stream; the stream stopped.

    `result` is the daemon's CommandResult (`result.reason`, e.g. "sent_before_damp")."""

    def __init__(self, result, message: Optional[str] = None) -> None:  # result: CommandResult
        super().__init__(message or f"command #{result.sequence} dropped: {result.reason}")
        self.result = result
        self.reason: str = result.reason
