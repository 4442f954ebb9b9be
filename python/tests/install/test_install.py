"""`pip install --no-build-isolation ./python` (the README's offline command) into a fresh venv
made with `/usr/bin/python3 -m venv --system-site-packages`, then the seeds' import from outside
the tree. The package is copied first, so the build's leftovers (build/, *.egg-info) stay out of
the work tree."""
import os
import shutil
import subprocess
import sys

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_pip_install_into_a_fresh_venv(tmp_path):
    shutil.copytree(PYTHON_DIR, tmp_path / "python",
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True)
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("PYTHONPATH", None)
    pip = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-build-isolation",
                          "./python"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    assert "Successfully installed robot-edge-0.1.0" in pip.stdout, pip.stdout
    check = subprocess.run(
        [str(venv / "bin" / "python"), "-c",
         "from edge.generated.edge_cloud_pb2 import CloudCommand; import robot_edge; "
         "from edge.generated import edge_api_pb2; "
         "print(robot_edge.__file__); print(edge_api_pb2.__file__); "
         "print(robot_edge.Client, robot_edge.AsyncClient, CloudCommand(sequence=1).sequence)"],
        cwd="/", env=env, capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    lines = check.stdout.splitlines()
    assert lines[0].startswith(str(venv)) and lines[1].startswith(str(venv)), lines
    show = subprocess.run([str(venv / "bin" / "pip"), "show", "robot-edge"], env=env,
                          capture_output=True, text=True)
    assert "Requires: protobuf" in show.stdout, show.stdout
