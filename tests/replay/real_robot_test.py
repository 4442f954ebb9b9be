#!/usr/bin/env python3
"""robot-edge-replay drive refuses a robot-edged on real CAN buses.

A stand-in for robot-edged on a Unix socket (the tool's logic only: the real daemon's answer on
vcan is checked by the e2e replay test) welcomes each connection with Welcome.simulated as told
and counts the connections and the commands that arrive. Driving it:
  - simulated false: exit 1, the refusal names the flag, one connection (the check), no command;
  - simulated false with --real-robot: the commands are sent.
Usage: real_robot_test.py ROBOT_EDGE_REPLAY RECORDING PYTHON_SRC
"""
import os
import socket
import subprocess
import sys
import tempfile
import threading

replay, recording, python_src = sys.argv[1:4]
sys.path.insert(0, python_src)
from edge.generated import edge_api_pb2  # noqa: E402


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


class StandIn:
    def __init__(self, path, simulated):
        self.connections = 0
        self.bytes_after_hello = 0
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen(16)
        message = edge_api_pb2.ServerMessage()
        message.welcome.robot_name = "stand-in"
        message.welcome.simulated = simulated
        payload = message.SerializeToString()
        self.welcome = varint(len(payload)) + payload
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self.talk, args=(conn,), daemon=True).start()

    def talk(self, conn):
        first = conn.recv(65536)  # the Hello
        if not first:
            return
        conn.sendall(self.welcome)
        while True:
            data = conn.recv(65536)
            if not data:
                return
            self.bytes_after_hello += len(data)


def drive(path, *extra):
    return subprocess.run([replay, "drive", recording, "--socket", path, *extra],
                          capture_output=True, text=True, timeout=60)


failures = []
with tempfile.TemporaryDirectory() as tmp:
    real = StandIn(os.path.join(tmp, "real.sock"), simulated=False)
    r = drive(os.path.join(tmp, "real.sock"))
    if r.returncode != 1:
        failures.append(f"real robot: exit {r.returncode}, expected 1: {r.stdout}{r.stderr}")
    if "drives real CAN buses" not in r.stderr or "--real-robot" not in r.stderr:
        failures.append(f"real robot: the refusal does not say why and how: {r.stderr}")
    if real.connections != 1 or real.bytes_after_hello != 0:
        failures.append(f"real robot: {real.connections} connections and "
                        f"{real.bytes_after_hello} bytes after the Hello: something was sent")

    forced = StandIn(os.path.join(tmp, "forced.sock"), simulated=False)
    r = drive(os.path.join(tmp, "forced.sock"), "--real-robot")
    if forced.bytes_after_hello == 0:
        failures.append(f"--real-robot: no command was sent: {r.stdout}{r.stderr}")

for f in failures:
    print("FAIL:", f)
if failures:
    sys.exit(1)
print("real_robot_test: ok")
