"""Builders of the commands a client sends (pure: no I/O; the clock only in wall_clock_us()).

Seed 000 tells clients to validate before sending because the robot drops bad commands silently
and clamps or replaces some values without saying so. These builders refuse, with ValueError
naming the value, what robot-edged would drop or silently change: non-finite numbers, a velocity
outside the API's ranges (clamped by the robot), a pose of the wrong length (dropped), KP/KD of
another count than one per joint (replaced by the defaults) or outside 0..500 / 0..5 (clamped),
and, when the caller knows the joint limits, a position beyond them (clamped).
Same rules as the C++ client's client/commands.hpp.
"""
from __future__ import annotations

import math
import time
from typing import Mapping, Optional, Sequence, Tuple, Union

from edge.generated.edge_api_pb2 import JointCommand
from edge.generated.edge_cloud_pb2 import (CloudCommand, FullTrajectory, JointSegment, Mode,
                                           ModeCommand, TrajectoryRequest, VelocityCommand)

# The API's ranges (seed 000).
VX_MAX = 2.0     # m/s, |vx|
VY_MAX = 1.0     # m/s, |vy|
VYAW_MAX = 2.0   # rad/s, |vyaw|
KP_MAX = 500.0   # N·m/rad
KD_MAX = 5.0     # N·m·s/rad
JOINT_COUNT = 25  # seed 000's firmware order; Welcome.joint_names says what the robot has

Pose = Sequence[float]
# Joint targets by name ("L_Elbow") or firmware index, in rad.
Targets = Mapping[Union[str, int], float]
# Per joint (min_rad, max_rad), firmware order.
Limits = Sequence[Tuple[float, float]]

_SEQUENCE_MODULO = 1 << 32


def wall_clock_us() -> int:
    """The wall clock in µs since the Unix epoch: what CloudCommand.timestamp_us carries (the
    seeds' `int(time.time() * 1e6)`). robot-edged drops commands without one."""
    return time.time_ns() // 1000


def check_velocity(vx: float, vy: float, vyaw: float) -> str:
    """"" when vx, vy (m/s) and vyaw (rad/s) are finite and within the API's ranges, else why not,
    e.g. "vx 2.5 m/s is outside -2..2 m/s"."""
    for name, value, limit, unit in (("vx", vx, VX_MAX, "m/s"), ("vy", vy, VY_MAX, "m/s"),
                                     ("vyaw", vyaw, VYAW_MAX, "rad/s")):
        if not math.isfinite(value):
            return f"{name} {value} is not a finite number"
        if abs(value) > limit:
            return f"{name} {value:g} {unit} is outside -{limit:g}..{limit:g} {unit}"
    return ""


def velocity(vx: float, vy: float = 0.0, vyaw: float = 0.0) -> CloudCommand:
    """A VelocityCommand: vx forward, vy left (m/s), vyaw counter-clockwise (rad/s). Raises
    ValueError outside the API's ranges (the robot would clamp) or when not finite (dropped).
    Sequence and timestamp are 0: see Sequencer."""
    why = check_velocity(vx, vy, vyaw)
    if why:
        raise ValueError(why)
    return CloudCommand(velocity=VelocityCommand(vx=vx, vy=vy, vyaw=vyaw))


def mode(which: int) -> CloudCommand:
    """A ModeCommand: Mode.MODE_STAND or Mode.MODE_DAMP (the command numbering, not
    FirmwareMode's)."""
    if which not in (Mode.MODE_STAND, Mode.MODE_DAMP):
        raise ValueError(f"mode {which} is neither MODE_STAND ({Mode.MODE_STAND}) nor MODE_DAMP "
                         f"({Mode.MODE_DAMP})")
    return CloudCommand(mode=ModeCommand(mode=which))


def _check_values(values: Sequence[float], what: str, joints: int, low: float = -math.inf,
                  high: float = math.inf, unit: str = "") -> None:
    if len(values) != joints:
        raise ValueError(f"{what} has {len(values)} values; the robot has {joints} joints "
                         "(firmware order, seed 000)")
    for i, v in enumerate(values):
        if not math.isfinite(v):
            raise ValueError(f"{what}[{i}] is {v}, not a finite number")
        if not low <= v <= high:
            raise ValueError(f"{what}[{i}] {v:g} {unit} is outside {low:g}..{high:g} {unit}".rstrip())


def check_limits(pose: Pose, limits: Limits, names: Optional[Sequence[str]] = None) -> None:
    """Raises ValueError naming the first joint of `pose` (rad) outside its (min, max) in
    `limits`: robot-edged would clamp it to the limit without telling the client."""
    if len(limits) != len(pose):
        raise ValueError(f"limits has {len(limits)} entries for {len(pose)} joints")
    for i, (q, (low, high)) in enumerate(zip(pose, limits)):
        if not low <= q <= high:
            name = names[i] if names is not None and i < len(names) else f"joint {i}"
            raise ValueError(f"{name}: {q:.4f} rad is outside its limits {low:g}..{high:g} rad "
                             "(robot-edged would clamp it)")


def trajectory(segments: Union[Pose, Sequence[Pose]], kp: Optional[Sequence[float]] = None,
               kd: Optional[Sequence[float]] = None, joints: int = JOINT_COUNT,
               limits: Optional[Limits] = None,
               names: Optional[Sequence[str]] = None) -> CloudCommand:
    """A TrajectoryRequest: one pose (`joints` positions in rad, firmware order) or a list of
    poses, which the robot applies one per control tick and holds the last.

    kp (N·m/rad, 0..500) and kd (N·m·s/rad, 0..5): None for the robot's per-joint defaults, or
    exactly one value per joint, used for every segment. With `limits`, positions beyond a joint's
    limits are refused too. Raises ValueError naming the offending value."""
    if len(segments) > 0 and not isinstance(segments[0], (int, float)):
        poses = [list(s) for s in segments]  # several segments
    else:
        poses = [list(segments)]
    if not poses:
        raise ValueError("a trajectory needs at least one segment")
    for k, pose in enumerate(poses):
        _check_values(pose, f"segment {k} positions" if len(poses) > 1 else "positions", joints)
        if limits is not None:
            check_limits(pose, limits, names)
    if kp is not None:
        _check_values(list(kp), "kp", joints, 0.0, KP_MAX, "N·m/rad")
    if kd is not None:
        _check_values(list(kd), "kd", joints, 0.0, KD_MAX, "N·m·s/rad")
    full = FullTrajectory(segments=[JointSegment(positions=p, kp=kp or [], kd=kd or [])
                                    for p in poses])
    return CloudCommand(trajectory=TrajectoryRequest(full=full))


def apply_targets(base: Pose, targets: Targets, names: Sequence[str]) -> list:
    """`base` (rad, firmware order) with the joints named in `targets` (by name or index) set.
    Raises ValueError for an unknown name or index (listing the known names) or a non-finite
    target."""
    pose = [float(q) for q in base]
    for key, value in targets.items():
        if isinstance(key, int):
            if not 0 <= key < len(pose):
                raise ValueError(f"joint index {key} is outside 0..{len(pose) - 1}")
            index = key
        else:
            try:
                index = list(names).index(key)
            except ValueError:
                raise ValueError(f"unknown joint '{key}' (joints: {', '.join(names)})") from None
        if not math.isfinite(value):
            raise ValueError(f"target of {key} is {value}, not a finite number")
        pose[index] = float(value)
    return pose


def monotonic_us() -> int:
    """The client's clock for TimeSync (CLOCK_MONOTONIC, µs), as the C++ client's."""
    return time.monotonic_ns() // 1000


def joint_command(position: Pose, *, end_time_us: int, velocity: Optional[Pose] = None,
                  torque: Optional[Pose] = None, kp: Optional[Sequence[float]] = None,
                  kd: Optional[Sequence[float]] = None, reference_time_us: int = 0,
                  extrapolation_duration_us: int = 0, user_command_key: int = 0,
                  velocity_safety_limit: float = 0.0) -> JointCommand:
    """A JointCommand (robot-edge's joint stream, edge_api.proto): position (rad) one per joint;
    velocity (rad/s), torque (N·m feed-forward), kp (0..500) and kd (0..5) None or one per joint,
    kp and kd together (required on a stream's first command). end_time_us is robot time
    (Client.sync_clock()) and > 0. ValueError for what the robot would drop."""
    joints = len(position)
    if joints == 0:
        raise ValueError("a joint command needs positions")
    _check_values(position, "position", joints)
    for name, values in (("velocity", velocity), ("torque", torque)):
        if values is not None:
            _check_values(values, name, joints)
    if (kp is None) != (kd is None):
        raise ValueError("kp and kd go together: give both or neither")
    if kp is not None and kd is not None:
        _check_values(kp, "kp", joints, 0.0, KP_MAX)
        _check_values(kd, "kd", joints, 0.0, KD_MAX)
    if end_time_us <= 0:
        raise ValueError("end_time_us is required (robot time: Client.sync_clock())")
    if reference_time_us < 0:
        raise ValueError("reference_time_us is negative")
    if not math.isfinite(velocity_safety_limit) or velocity_safety_limit < 0:
        raise ValueError(f"velocity_safety_limit {velocity_safety_limit} is not a finite number >= 0")
    return JointCommand(position=position, velocity=velocity or [], torque=torque or [],
                        kp=kp or [], kd=kd or [], end_time_us=end_time_us,
                        reference_time_us=reference_time_us,
                        extrapolation_duration_us=extrapolation_duration_us,
                        user_command_key=user_command_key,
                        velocity_safety_limit=velocity_safety_limit)


class Sequencer:
    """Stamps commands with increasing sequence numbers (1, 2, 3, ...; modulo 2^32, never 0) and
    the wall clock. robot-edged drops a command whose sequence is not above the last one it
    accepted on the connection (`sequence_not_increasing`) or that has no timestamp.

    Not thread-safe on its own: the clients call stamp() under their send lock."""

    def __init__(self, first: int = 1) -> None:
        self._next = first % _SEQUENCE_MODULO or 1
        self._last = 0

    def stamp(self, command: Union[CloudCommand, JointCommand], now_us: Optional[int] = None) -> int:
        """Sets command.sequence to the next number and command.timestamp_us to `now_us` (µs since
        the Unix epoch; default the wall clock now). Returns the sequence."""
        command.sequence = self._last = self._next
        command.timestamp_us = wall_clock_us() if now_us is None else now_us
        self._next = (self._next + 1) % _SEQUENCE_MODULO or 1
        return self._last

    @property
    def last(self) -> int:
        """The sequence given last (0 before the first)."""
        return self._last
