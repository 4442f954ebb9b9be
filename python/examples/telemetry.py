#!/usr/bin/env python3
"""Seed 001's telemetry example over robot-edged's socket.

The seed reads frames from a LiveKit DataTrack and decodes each with EdgeTelemetry.FromString;
here AsyncClient.telemetry() yields them (decoded, with robot-edge's TelemetryExtension beside
each), and the seed's printing is unchanged. Runs for --seconds (the seed: 10), then prints the
rate it saw.

    python/examples/telemetry.py --socket /run/robot-edge/api.sock --seconds 10

Exit status: 0 telemetry arrived, 1 none did, 2 no daemon.
"""
import asyncio
import sys
import time

from edge.generated.edge_cloud_pb2 import EdgeTelemetry

import robot_edge
from _connect import parser

frames = 0


async def read_telemetry(robot: robot_edge.AsyncClient):
    global frames
    async for frame in robot.telemetry():
        t: EdgeTelemetry = frame.telemetry
        frames += 1
        print(f"Mode: {t.fw_mode}")
        print(f"Joint positions: {list(t.joint_pos)}")
        print(f"IMU quaternion: {list(t.imu_quat)}")


async def main(args) -> int:
    try:
        robot = await robot_edge.AsyncClient(args.socket, tcp=args.tcp, token=args.token).connect()
    except robot_edge.ConnectError as e:
        print(e, file=sys.stderr)
        return 2
    async with robot:
        await robot.hello(controller=args.controller)  # "" : an observer
        start = time.monotonic()
        task = asyncio.create_task(read_telemetry(robot))
        await asyncio.sleep(args.seconds)
        task.cancel()
        elapsed = time.monotonic() - start
    print(f"{frames} frames in {elapsed:.1f} s ({frames / elapsed:.1f} Hz)")
    return 0 if frames > 0 else 1


if __name__ == "__main__":
    p = parser(__doc__.splitlines()[0])
    p.set_defaults(controller="")
    p.add_argument("--seconds", type=float, default=10.0, help="how long to read, s")
    sys.exit(asyncio.run(main(p.parse_args())))
