"""robot_edge: the Python client of robot-edged, the edge control daemon of a 25-joint humanoid.

    from robot_edge import Client
    with Client() as robot:                   # /run/robot-edge/api.sock, $ROBOT_EDGE_SOCKET, or
        robot.hello(controller="cloud")       # Client(tcp="robot:7433", token="...")
        print(robot.stand())                  # the daemon's CommandResult
        robot.stream_trajectory({"L_Shoulder_Pitch": -0.8}, duration=2.0, hold=1.0)

Client is blocking (one reader thread of its own), AsyncClient the same API for asyncio. The
messages are protobuf classes from edge.generated.edge_cloud_pb2 (seed 001) and
edge.generated.edge_api_pb2 (the socket envelope and robot-edge's additions). python/README.md
has the rest.
"""
from ._core import (DEFAULT_SOCKET, SOCKET_ENV, ClockOffset, Event, StreamResult, Telemetry,
                    tls_context)
from .aio import AsyncClient
from .client import Client
from .errors import (CommandDropped, ConnectError, ConnectionClosed, DaemonNotRunning,
                     ProtocolError, Refused, RobotEdgeError, Timeout)

__version__ = "0.1.0"

__all__ = [
    "AsyncClient", "Client", "ClockOffset", "CommandDropped", "ConnectError", "ConnectionClosed",
    "DaemonNotRunning", "DEFAULT_SOCKET", "Event", "ProtocolError", "Refused", "RobotEdgeError",
    "SOCKET_ENV", "StreamResult", "Telemetry", "Timeout", "tls_context",
]
