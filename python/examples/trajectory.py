#!/usr/bin/env python3
"""Seed 000's "Trajectory (Direct Joint Control)" example over robot-edged's socket.

The seed seeds the 25 positions from the latest telemetry and overrides L_Shoulder_Pitch (0.5),
L_Shoulder_Roll (-0.2) and L_Elbow (1.2); its message is built here exactly as there. Since the
robot applies each packet as an instantaneous PD target and DAMPs after 200 ms without one, the
example sends that message at 50 Hz (robot-edged's socket instead of a LiveKit room), the three
joints moving there smoothly over --duration s (the seed leaves smoothing to the client), holds
for --hold s, then stops streaming: the robot DAMPs 200 ms later (TRAJECTORY_TIMEOUT).

    python/examples/trajectory.py --socket /run/robot-edge/api.sock --duration 2 --hold 1

Exit status: 0 every packet accepted and the joints reached the targets, 1 otherwise, 2 no daemon.
"""
import itertools
import sys
import time

from edge.generated.edge_cloud_pb2 import (CloudCommand, EdgeTelemetry, FullTrajectory,
                                           JointSegment, TrajectoryRequest)

import robot_edge
from robot_edge.ramp import smoothstep
from _connect import connect, parser

_seq = itertools.count(1)


def seq() -> int:
    return next(_seq)


# Keep a reference to the latest telemetry frame; update it from your
# telemetry subscription handler (see "Telemetry" below).
latest_telemetry: "EdgeTelemetry | None" = None


def on_telemetry(t: robot_edge.Telemetry) -> None:  # runs on the client's reader thread
    global latest_telemetry
    latest_telemetry = t.telemetry


def main() -> int:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--duration", type=float, default=2.0, help="move time, s")
    p.add_argument("--hold", type=float, default=1.0, help="hold time, s")
    p.add_argument("--rate", type=float, default=50.0, help="packets per second")
    args = p.parse_args()
    robot = connect(args)
    if robot is None:
        return 2
    with robot:
        robot.hello(controller=args.controller)
        robot.on_telemetry(on_telemetry)
        robot.wait_telemetry(timeout=5)

        # ... once `latest_telemetry` has been populated by your subscription handler:
        assert latest_telemetry is not None, "wait for the first telemetry frame"
        # Seed positions from the latest telemetry pose so unspecified joints
        # hold their current value; override only the ones you're driving.
        positions = list(latest_telemetry.joint_pos)  # 25 floats
        start = list(positions)
        positions[12] = 0.5  # L_Shoulder_Pitch
        positions[13] = -0.2  # L_Shoulder_Roll
        positions[15] = 1.2  # L_Elbow
        goal = positions

        packets = int((args.duration + args.hold) * args.rate) + 1
        events_before = robot.last_event_sequence
        last = None
        t0 = time.monotonic()
        for i in range(packets):
            time.sleep(max(0.0, t0 + i / args.rate - time.monotonic()))
            s = smoothstep((i / args.rate) / args.duration)
            positions = [a + (b - a) * s for a, b in zip(start, goal)]
            cmd = CloudCommand(
                timestamp_us=int(time.time() * 1e6),
                sequence=seq(),
                trajectory=TrajectoryRequest(
                    full=FullTrajectory(segments=[
                        JointSegment(positions=positions)
                    ])
                )
            )
            # Every packet's answer is awaited only at the end: streaming must not stall.
            last = robot.send(cmd, stamp=False, wait=(i == packets - 1))
        print(f"sent {packets} packets at {args.rate:g} Hz over {time.monotonic() - t0:.2f} s; "
              f"the last {'accepted' if last.accepted else 'dropped (' + last.reason + ')'}")
        measured = robot.wait_telemetry(timeout=2).joint_pos
        worst = 0.0
        for j, name in ((12, "L_Shoulder_Pitch"), (13, "L_Shoulder_Roll"), (15, "L_Elbow")):
            print(f"{name}: target {goal[j]:+.3f} rad, measured {measured[j]:+.3f} rad")
            worst = max(worst, abs(measured[j] - goal[j]))
        event = robot.wait_event(lambda e: e.code == "TRAJECTORY_TIMEOUT", timeout=3,
                                 after=events_before)
        print(f"then: {event.code}: {event.event.error.message}")
    return 0 if last.accepted and worst < 0.1 else 1


if __name__ == "__main__":
    sys.exit(main())
