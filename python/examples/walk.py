#!/usr/bin/env python3
"""Seed 000's "Velocity (Walk)" and "Mode Switch" examples over robot-edged's socket.

The messages are built exactly as in the seed (CloudCommand with the seed's timestamp and its
monotonic seq() counter); only the transport differs: robot_edge.Client instead of a LiveKit
room. As the seed advises, it sends STAND, waits until telemetry reports FW_MODE_STAND, then
walks at --vx for --seconds, then DAMPs. robot-edged answers each command (CommandResult): a
velocity is dropped without a policy (`velocity_no_policy`) or in DAMP (`velocity_in_damp`).

    python/examples/walk.py --socket /run/robot-edge/api.sock --vx 0.3 --seconds 3

Exit status: 0 every command accepted, 1 one was dropped (its reason printed), 2 no daemon.
"""
import itertools
import sys
import time

from edge.generated.edge_cloud_pb2 import (CloudCommand, FirmwareMode, Mode, ModeCommand,
                                           VelocityCommand)

import robot_edge
from _connect import connect, parser

# Monotonic sequence counter shared by all examples on this page.
_seq = itertools.count(1)


def seq() -> int:
    return next(_seq)


def send(robot: robot_edge.Client, what: str, cmd: CloudCommand) -> bool:
    result = robot.send(cmd, stamp=False)  # the seed's own timestamp and sequence
    print(f"{what}: {'accepted' if result.accepted else 'dropped (' + result.reason + ')'}")
    return result.accepted


def main() -> int:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--vx", type=float, default=0.5, help="forward speed, m/s (seed: 0.5)")
    p.add_argument("--seconds", type=float, default=2.0, help="walking time, s")
    args = p.parse_args()
    robot = connect(args)
    if robot is None:
        return 2
    with robot:
        robot.hello(controller=args.controller)

        # Stand up
        cmd = CloudCommand(
            timestamp_us=int(time.time() * 1e6),
            sequence=seq(),
            mode=ModeCommand(mode=Mode.MODE_STAND)
        )
        ok = send(robot, "STAND", cmd)
        if ok:
            t = robot.wait_telemetry(timeout=10, match=lambda t: t.telemetry.fw_mode in (
                FirmwareMode.FW_MODE_STAND, FirmwareMode.FW_MODE_MOVE))
            print(f"telemetry: {FirmwareMode.Name(t.telemetry.fw_mode)}")
            time.sleep(2.0)  # the ~2 s stand ramp, for a settled pose

        cmd = CloudCommand(
            timestamp_us=int(time.time() * 1e6),
            sequence=seq(),
            velocity=VelocityCommand(vx=args.vx, vy=0.0, vyaw=0.0)
        )
        walking = send(robot, f"walk vx={args.vx} m/s", cmd)
        # The seed's velocity persists, but robot-edged stops a walk whose controller fell silent
        # for api.walking_silence_ms (1 s by default): re-send it every 200 ms.
        end = time.monotonic() + args.seconds
        while walking and time.monotonic() < end:
            time.sleep(min(0.2, max(0.0, end - time.monotonic())))
            again = CloudCommand(timestamp_us=int(time.time() * 1e6), sequence=seq(),
                                 velocity=VelocityCommand(vx=args.vx, vy=0.0, vyaw=0.0))
            walking = robot.send(again, stamp=False).accepted
        ok = ok and walking

        # Emergency stop (damp)
        cmd = CloudCommand(
            timestamp_us=int(time.time() * 1e6),
            sequence=seq(),
            mode=ModeCommand(mode=Mode.MODE_DAMP)
        )
        ok = send(robot, "DAMP", cmd) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
