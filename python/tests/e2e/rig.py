"""The robot of the Python end-to-end tests: robot-edge-sim and robot-edged as real processes on
real vcan buses (run inside tests/vcan/run), as tests/common/robot_rig.cpp starts them.

The config is config/robot-edge.yaml with /tmp socket paths and the rig's user-mode-linux slack
(motor reply timeout 150 ms, IMU timeout 300 ms, CONTROL_LOOP_SLOW at 10 %, the supervisor's
control-stall bound 100 ms: a loaded host can hold the user-mode kernel for 20 ms); the trajectory
timeout (200 ms) is never changed. The simulator is ready when it prints "ready", the daemon when
it sends READY=1 to the NOTIFY_SOCKET the rig listens on.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from typing import Dict, List, Optional, Sequence, Tuple

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DEFAULT_CONFIG = os.path.join(REPO, "config", "robot-edge.yaml")

SLACK_FILE = os.path.join(REPO, "scripts", "emulator-slack.tsv")


def emulator_slack(path: str = SLACK_FILE) -> List[Tuple[str, str]]:
    """The timeouts relaxed under user-mode-linux: (text, replacement) pairs, shared with the C++
    rig and the demo scripts."""
    edits = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f.read().split("\n"), 1):
            if not line or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != 2 or not parts[0]:
                raise RuntimeError(f"{path}:{number}: not \"text<TAB>replacement\": {line!r}")
            edits.append((parts[0], parts[1]))
    return edits


def program(env_name: str) -> str:
    """The program CTest passes in `env_name` (ROBOT_EDGED, ROBOT_EDGE_SIM, ROBOT_EDGECTL)."""
    path = os.environ.get(env_name, "")
    if not path or not os.access(path, os.X_OK):
        raise RuntimeError(
            f"${env_name} is {path!r}, not an executable: run these tests through CTest "
            "(ctest --test-dir BUILD -R python) after building robot-edged, robot-edge-sim and "
            "robot-edgectl, or set it")
    return path


POLICY_CONFIG = os.path.join(REPO, "config", "examples", "sim-with-policy.yaml")
POLICY_MARKER = "# ---- Everything above is config/robot-edge.yaml, verbatim"


def policy_section() -> str:
    """config/examples/sim-with-policy.yaml's policy section (MOVE/POLICY with the demo network),
    its model path made absolute."""
    with open(POLICY_CONFIG, encoding="utf-8") as f:
        text = f.read()
    section = text[text.index(POLICY_MARKER):]
    model = os.path.join(REPO, "config", "policies", "demo-walk.onnx")
    return section.replace("model: ../policies/demo-walk.onnx", f"model: {model}", 1)


def config_text(edits: Sequence[Tuple[str, str]] = (), slack: bool = True,
                policy: bool = False) -> str:
    with open(DEFAULT_CONFIG, encoding="utf-8") as f:
        yaml = f.read()
    if policy:
        yaml += "\n" + policy_section()
    for old, new in emulator_slack() if slack else []:  # every occurrence, where there is one
        yaml = yaml.replace(old, new)
    for old, new in edits:
        if old not in yaml:
            raise RuntimeError(f"config edit: {old!r} not found in {DEFAULT_CONFIG}")
        yaml = yaml.replace(old, new, 1)
    return yaml


def _wait(predicate, timeout_s: float, interval_s: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval_s)
    return predicate()


class Robot:
    """A fresh simulated robot and daemon. `api_socket` is the daemon's Unix socket."""

    def __init__(self, edits: Sequence[Tuple[str, str]] = (), files: Optional[Dict[str, str]] = None,
                 emulator_slack: bool = True, policy: bool = False) -> None:
        self.dir = tempfile.mkdtemp(prefix="robot-edge-py.")
        self.api_socket = os.path.join(self.dir, "api.sock")
        self.sim_socket = os.path.join(self.dir, "sim.sock")
        self.config = os.path.join(self.dir, "robot-edge.yaml")
        self._procs: List[subprocess.Popen] = []
        self._logs: Dict[str, str] = {}
        try:
            for name, content in (files or {}).items():
                path = os.path.join(self.dir, name)
                with open(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600), "w",
                          encoding="utf-8") as f:  # tokens: readable by their owner only
                    f.write(content)
            with open(self.config, "w", encoding="utf-8") as f:
                f.write(config_text(edits, emulator_slack, policy))
            self._notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            self._notify.bind(os.path.join(self.dir, "notify.sock"))
            self._notify.settimeout(0.1)
            self.sim = self._start("sim", [program("ROBOT_EDGE_SIM"), "--config", self.config,
                                           "--control", self.sim_socket, "--quiet"])
            if not _wait(lambda: "ready" in self._read("sim.out") or self.sim.poll() is not None,
                         20):
                raise RuntimeError("robot-edge-sim did not print ready within 20 s")
            if self.sim.poll() is not None:
                raise RuntimeError(f"robot-edge-sim exited with {self.sim.returncode}")
            env = dict(os.environ, NOTIFY_SOCKET=os.path.join(self.dir, "notify.sock"))
            self.daemon = self._start("daemon", [program("ROBOT_EDGED"), "--config", self.config,
                                                 "--api-socket", self.api_socket,
                                                 "--log-level", "debug"], env)
            if not self._wait_ready(20):
                raise RuntimeError("robot-edged did not report READY=1 within 20 s")
        except BaseException as e:
            logs = self.logs()
            self.stop()
            raise RuntimeError(f"{e}\n{logs}") from None

    def _start(self, name: str, argv: List[str], env=None) -> subprocess.Popen:
        out = open(os.path.join(self.dir, f"{name}.out"), "wb")
        err = open(os.path.join(self.dir, f"{name}.err"), "wb")
        p = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env)
        out.close()
        err.close()
        self._procs.append(p)
        return p

    def _read(self, name: str) -> str:
        try:
            with open(os.path.join(self.dir, name), encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError:
            return self._logs.get(name, "")

    def _wait_ready(self, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.daemon.poll() is not None:
                return False
            try:
                if b"READY=1" in self._notify.recv(4096):
                    return True
            except socket.timeout:
                pass
        return False

    def sim_command(self, line: str) -> str:
        """One line to the simulator's control socket; its reply."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(5)
            s.connect(self.sim_socket)
            s.sendall(line.encode() + b"\n")
            reply = b""
            while not reply.endswith(b"\n"):
                chunk = s.recv(1024)
                if not chunk:
                    break
                reply += chunk
        return reply.decode().strip()

    def daemon_log(self) -> str:
        return self._read("daemon.err")

    def logs(self, lines: int = 40) -> str:
        def tail(text: str) -> str:
            return "\n".join(text.splitlines()[-lines:])
        return (f"---- robot-edged (tail) ----\n{tail(self._read('daemon.err'))}\n"
                f"---- robot-edge-sim (tail) ----\n{tail(self._read('sim.err'))}")

    def stop(self) -> None:
        for p in reversed(self._procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        self._procs.clear()
        for name in ("daemon.err", "sim.err", "sim.out"):
            self._logs[name] = self._read(name)
        if getattr(self, "_notify", None) is not None:
            self._notify.close()
            self._notify = None
        shutil.rmtree(self.dir, ignore_errors=True)
