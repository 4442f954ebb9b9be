"""Smooth joint-space motion for MOVE/TRAJECTORY streaming (pure: no clock, no I/O).

The robot applies a trajectory's segments one per control tick and holds the last, with no
interpolation of its own (seed 000), and a client must stream packets at ~50 Hz or the robot
DAMPs after 200 ms. A StreamPlan says what to send: packet i goes out at i / rate_hz seconds and
carries the poses of the control ticks until the next packet (Welcome.control_rate_hz / rate_hz
segments: 10 at 500 Hz and 50 Hz), so the motors see a smooth target at the control rate. Same
scheme as the C++ client's client/ramp.hpp.

Paths (every pose in rad, firmware order):
    Ramp(start, goal, duration_s)        quintic smoothstep (zero velocity and acceleration at
                                          both ends) or linear, then goal
    Waypoints(start, [(t_s, pose), ...])  a ramp from each pose to the next, reaching pose k at
                                          t_s k; the last one held
    FunctionPath(fn, start)               fn(t_s) -> pose (25 floats, or {joint: rad} applied to
                                          the start pose), called as the stream goes
"""
from __future__ import annotations

import math
from typing import Callable, List, Optional, Sequence, Tuple, Union

from .commands import Limits, Pose, Targets, apply_targets, check_limits

SMOOTHSTEP_PEAK_SLOPE = 1.875  # max ds/du of the quintic (at u = 1/2)
PROFILES = ("quintic", "linear")


def smoothstep(u: float) -> float:
    """The quintic s(u) = 10u³ − 15u⁴ + 6u⁵ for u in [0, 1]; 0 below, 1 above."""
    if u <= 0.0:
        return 0.0
    if u >= 1.0:
        return 1.0
    return u * u * u * (10.0 + u * (-15.0 + 6.0 * u))


def _check_pose(pose: Sequence[float], what: str) -> List[float]:
    out = [float(q) for q in pose]
    for i, q in enumerate(out):
        if not math.isfinite(q):
            raise ValueError(f"{what}[{i}] is {q}, not a finite number")
    return out


def _check_seconds(value: float, what: str) -> float:
    if not (math.isfinite(value) and value >= 0.0):
        raise ValueError(f"{what} must be a finite number of seconds >= 0, not {value}")
    return float(value)


class Ramp:
    """From `start` to `goal` (rad) over duration_s (s), then `goal`. pose_at(0) is exactly
    `start` (the measured pose: a sensible first target when the robot goes from limp to driven)."""

    def __init__(self, start: Pose, goal: Pose, duration_s: float,
                 profile: str = "quintic") -> None:
        self.start = _check_pose(start, "start")
        self.goal = _check_pose(goal, "goal")
        if not self.start or len(self.start) != len(self.goal):
            raise ValueError(f"start and goal must have the same, non-zero number of joints "
                             f"({len(self.start)} and {len(self.goal)})")
        self.duration_s = _check_seconds(duration_s, "duration")
        if profile not in PROFILES:
            raise ValueError(f"profile must be one of {PROFILES}, not {profile!r}")
        self.profile = profile

    def pose_at(self, t_s: float) -> List[float]:
        if self.duration_s <= 0.0 or t_s >= self.duration_s:
            return list(self.goal)
        if t_s <= 0.0:
            return list(self.start)
        u = t_s / self.duration_s
        s = smoothstep(u) if self.profile == "quintic" else u
        return [a + (b - a) * s for a, b in zip(self.start, self.goal)]

    @property
    def peak_speed_rad_s(self) -> float:
        """Highest joint speed along the ramp (rad/s); inf for a jump (duration 0, start != goal)."""
        delta = max((abs(b - a) for a, b in zip(self.start, self.goal)), default=0.0)
        if delta == 0.0:
            return 0.0
        if self.duration_s <= 0.0:
            return math.inf
        slope = SMOOTHSTEP_PEAK_SLOPE if self.profile == "quintic" else 1.0
        return slope * delta / self.duration_s


class Waypoints:
    """Through `waypoints` [(t_s, pose), ...] (t_s strictly increasing, > 0), starting at `start`
    at t = 0; each leg a Ramp; the last pose held after the last t_s."""

    def __init__(self, start: Pose, waypoints: Sequence[Tuple[float, Pose]],
                 profile: str = "quintic") -> None:
        if not waypoints:
            raise ValueError("no waypoints")
        self._legs: List[Tuple[float, Ramp]] = []
        t_prev, pose_prev = 0.0, _check_pose(start, "start")
        for k, (t_s, pose) in enumerate(waypoints):
            t_s = _check_seconds(t_s, f"waypoint {k} time")
            if t_s <= t_prev:
                raise ValueError(f"waypoint {k} at {t_s} s is not after the previous one "
                                 f"({t_prev} s)")
            leg = Ramp(pose_prev, pose, t_s - t_prev, profile)
            self._legs.append((t_prev, leg))
            t_prev, pose_prev = t_s, leg.goal
        self.start = self._legs[0][1].start
        self.duration_s = t_prev

    def pose_at(self, t_s: float) -> List[float]:
        for t0, leg in reversed(self._legs):
            if t_s >= t0:
                return leg.pose_at(t_s - t0)
        return list(self.start)

    @property
    def peak_speed_rad_s(self) -> float:
        return max(leg.peak_speed_rad_s for _, leg in self._legs)


class FunctionPath:
    """fn(t_s) -> pose: a list of one position per joint (rad), or {joint name or index: rad}
    applied to `start` (the measured pose). Called once per control tick of each packet, from the
    thread (or task) that streams, shortly before the packet is sent."""

    def __init__(self, fn: Callable[[float], Union[Pose, Targets]], start: Pose,
                 names: Sequence[str]) -> None:
        self._fn = fn
        self.start = _check_pose(start, "start")
        self._names = list(names)
        self.duration_s = 0.0

    def pose_at(self, t_s: float) -> List[float]:
        value = self._fn(t_s)
        if hasattr(value, "items"):
            return apply_targets(self.start, value, self._names)  # type: ignore[arg-type]
        pose = _check_pose(value, f"targets_fn({t_s:.3f})")  # type: ignore[arg-type]
        if len(pose) != len(self.start):
            raise ValueError(f"targets_fn({t_s:.3f}) returned {len(pose)} positions for "
                             f"{len(self.start)} joints")
        return pose


Path = Union[Ramp, Waypoints, FunctionPath]


class StreamPlan:
    """What a trajectory stream sends: packet i at packet_time(i) carrying segments(i).

    Checks every pose before it is sent (ValueError naming the joint): finite, within `limits`
    when given (robot-edged would clamp silently), and no joint faster than max_speed_rad_s
    between two control ticks — which also makes the first target the measured pose, give or take
    what max_speed_rad_s allows in one packet period."""

    def __init__(self, path: Path, total_s: float, rate_hz: float = 50.0,
                 control_rate_hz: float = 0.0, max_speed_rad_s: float = 2.0,
                 limits: Optional[Limits] = None, names: Optional[Sequence[str]] = None) -> None:
        if not (math.isfinite(rate_hz) and 0.0 < rate_hz <= 1000.0):
            raise ValueError(f"rate_hz must be in (0, 1000] Hz, not {rate_hz}")
        if not (math.isfinite(control_rate_hz) and
                (control_rate_hz == 0.0 or control_rate_hz >= rate_hz)):
            raise ValueError("the control rate must be 0 (unknown) or at least rate_hz")
        if not (max_speed_rad_s > 0.0):
            raise ValueError(f"max_speed_rad_s must be > 0, not {max_speed_rad_s}")
        self.path = path
        self.total_s = _check_seconds(total_s, "duration")
        self.rate_hz = float(rate_hz)
        self.segments_per_packet = (max(1, round(control_rate_hz / rate_hz))
                                    if control_rate_hz > 0.0 else 1)
        self.tick_s = 1.0 / (self.segments_per_packet * rate_hz)
        self.max_speed_rad_s = float(max_speed_rad_s)
        self.limits = limits
        self.names = list(names) if names is not None else None
        # Packets at 0 .. total_s, the last at or just after total_s (so it is the path's end).
        self.packet_count = int(math.ceil(self.total_s * rate_hz - 1e-9)) + 1

    def packet_time(self, packet: int) -> float:
        return packet / self.rate_hz

    def _name(self, j: int) -> str:
        return self.names[j] if self.names and j < len(self.names) else f"joint {j}"

    def segments(self, packet: int) -> List[List[float]]:
        """The poses of packet `packet` (one per control tick), checked; ValueError otherwise."""
        t0 = self.packet_time(packet)
        previous = (self.path.start if packet == 0 else
                    self.path.pose_at(t0 - self.tick_s))
        # The first target may be one packet period of max speed from the measured pose; then
        # one control tick's worth per segment.
        allowed_dt = 1.0 / self.rate_hz if packet == 0 else self.tick_s
        out = []
        for k in range(self.segments_per_packet):
            t_s = t0 + k * self.tick_s
            pose = self.path.pose_at(t_s)
            if len(pose) != len(previous):
                raise ValueError(f"the pose at {t_s:.3f} s has {len(pose)} positions for "
                                 f"{len(previous)} joints")
            for j, (a, b) in enumerate(zip(previous, pose)):
                if not math.isfinite(b):
                    raise ValueError(f"{self._name(j)}: target at {t_s:.3f} s is {b}")
                speed = abs(b - a) / allowed_dt
                if speed > self.max_speed_rad_s * (1 + 1e-6) + 1e-9:
                    where = ("from the measured pose to the first target" if packet == 0 and k == 0
                             else f"at {t_s:.3f} s")
                    raise ValueError(f"{self._name(j)} would move at {speed:.2f} rad/s {where} "
                                     f"(max_speed_rad_s {self.max_speed_rad_s:g}): give a longer "
                                     "duration or start from the measured pose")
            if self.limits is not None:
                check_limits(pose, self.limits, self.names)
            out.append(pose)
            previous, allowed_dt = pose, self.tick_s
        return out

    def check_all(self) -> None:
        """Checks every packet now (before anything moves); for Ramp and Waypoints paths."""
        for packet in range(self.packet_count):
            self.segments(packet)
