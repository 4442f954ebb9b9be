#!/usr/bin/env python3
"""A CAN bridge for the same 25 MIT motors on 5 buses, written the way many humanoid projects
write one in Python: python-can on SocketCAN, one Bus per interface, a loop that sends every
motor its command each period and reads the replies, then sleeps until the next period.

It is the baseline robot-edged is compared with in bench/ (bench_peers): same robot
(robot-edge-sim), same frames (the MIT command layout of can/mit_codec.hpp), same vcan buses.

usage: python_can_bridge.py CONFIG RATE_HZ SECONDS
It says "running" on stderr when its loop starts and runs the loop for SECONDS of wall time,
however many periods it manages. Then it prints one JSON line: rate, periods, replies expected /
received, on time (read before the next period's commands: robot-edged's criterion, which
counts a later reply as missed), missed (periods whose replies did not all arrive before the next
period), period p50 /
p99 / max (us), CPU share (user + system time from os.times(), the kernel's accounting that bench
reads from /proc for robot-edged, over wall time).
"""
import json
import os
import struct
import sys
import time

import can
import yaml


def to_uint(x, lo, hi, bits):
    x = min(max(x, lo), hi)
    return int(round((x - lo) * ((1 << bits) - 1) / (hi - lo)))


def mit_command(p, v, kp, kd, t, r):
    """The 8-byte MIT command: p 16 bit, v 12, kp 12, kd 12, t 12 (big-endian bit fields)."""
    p_i = to_uint(p, -r["p_max"], r["p_max"], 16)
    v_i = to_uint(v, -r["v_max"], r["v_max"], 12)
    kp_i = to_uint(kp, 0.0, r["kp_max"], 12)
    kd_i = to_uint(kd, 0.0, r["kd_max"], 12)
    t_i = to_uint(t, -r["t_max"], r["t_max"], 12)
    return bytes([p_i >> 8, p_i & 0xFF, v_i >> 4, ((v_i & 0xF) << 4) | (kp_i >> 8), kp_i & 0xFF,
                  kd_i >> 4, ((kd_i & 0xF) << 4) | (t_i >> 8), t_i & 0xFF])


def percentile(values, q):
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def cpu_seconds():
    t = os.times()
    return t.user + t.system


def main():
    config_path, rate, seconds = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    with open(config_path) as f:
        config = yaml.safe_load(f)
    buses = {b["name"]: can.Bus(interface="socketcan", channel=b["interface"],
                                receive_own_messages=False)
             for b in config["buses"]}
    for bus in buses.values():
        bus.set_filters([{"can_id": 0, "can_mask": 0x7FF, "extended": False}])  # replies to 0
    motors = []
    for j in config["joints"]:
        r = config["motors"][j["motor"]]
        motors.append((buses[j["bus"]], j["can_id"], j["stand"], j["kp"], j["kd"], r))
    enter = bytes([0xFF] * 7 + [0xFC])
    for bus, can_id, *_ in motors:
        bus.send(can.Message(arbitration_id=can_id, data=enter, is_extended_id=False))
    time.sleep(0.2)
    for bus in buses.values():
        while bus.recv(timeout=0) is not None:
            pass

    period = 1.0 / rate
    starts, received, on_time, missed = [], 0, 0, 0
    all_motors = [(j["bus"], j["can_id"]) for j in config["joints"]]
    waiting = set()  # the motors whose reply to the last commands has not been read
    cpu0, wall0 = cpu_seconds(), time.monotonic()
    print("running", file=sys.stderr, flush=True)  # bench measures the machine from here
    next_start = wall0
    while time.monotonic() - wall0 < seconds:
        now = time.monotonic()
        if next_start > now:
            time.sleep(next_start - now)
        starts.append(time.monotonic())
        got = 0
        for name, bus in buses.items():  # the replies to the previous period's commands
            while (reply := bus.recv(timeout=0)) is not None:
                got += 1
                key = (name, reply.data[0] if reply.data else -1)  # byte 0: the motor's id
                if key in waiting:
                    waiting.discard(key)
                    on_time += 1
        received += got
        if len(starts) > 1 and waiting:
            missed += 1
        waiting = set(all_motors)
        for bus, can_id, stand, kp, kd, r in motors:
            bus.send(can.Message(arbitration_id=can_id,
                                 data=mit_command(stand, 0.0, kp, kd, 0.0, r),
                                 is_extended_id=False))
        next_start += period
    wall = time.monotonic() - wall0
    cpu = cpu_seconds() - cpu0
    periods = len(starts)
    for bus in buses.values():
        bus.shutdown()
    gaps = [(b - a) * 1e6 for a, b in zip(starts, starts[1:])]
    print(json.dumps({
        "rate_hz": rate, "periods": periods, "achieved_hz": periods / wall,
        "replies_expected": (periods - 1) * len(motors), "replies_received": received,
        "replies_on_time": on_time,
        "missed_periods": missed, "period_p50_us": percentile(gaps, 0.5),
        "period_p99_us": percentile(gaps, 0.99), "period_max_us": max(gaps) if gaps else 0.0,
        "cpu_share": cpu / wall,
    }))


if __name__ == "__main__":
    main()
