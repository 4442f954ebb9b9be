"""robot-edge-policy import: TorchScript actors (rsl_rl's export_policy_as_jit) to ONNX, checked step
by step, and the policy: section (needs Debian's python3-torch, python3-onnx, python3-yaml)."""
import copy
import json
import os

import numpy as np
import onnx
import pytest
import torch
import yaml

from robot_edge import policy_import

HERE = os.path.dirname(os.path.abspath(__file__))
H1 = os.path.join(HERE, "..", "..", "..", "examples", "unitree-h1")
H1_JOINTS = ("left_hip_yaw_joint,left_hip_roll_joint,left_hip_pitch_joint,left_knee_joint,"
             "left_ankle_joint,right_hip_yaw_joint,right_hip_roll_joint,right_hip_pitch_joint,"
             "right_knee_joint,right_ankle_joint")


class PolicyExporterLSTM(torch.nn.Module):
    """rsl_rl / unitree_rl_gym's (legged_gym/utils/helpers.py), verbatim in structure."""

    def __init__(self, actor, memory, scale=1.0):
        super().__init__()
        self.actor = copy.deepcopy(actor)
        self.memory = copy.deepcopy(memory)
        self.register_buffer("hidden_state", torch.zeros(self.memory.num_layers, 1,
                                                         self.memory.hidden_size))
        self.register_buffer("cell_state", torch.zeros(self.memory.num_layers, 1,
                                                       self.memory.hidden_size))
        self.scale = scale  # 1: faithful; else a forward the weights alone do not describe

    def forward(self, x):
        out, (h, c) = self.memory(x.unsqueeze(0), (self.hidden_state, self.cell_state))
        self.hidden_state[:] = h
        self.cell_state[:] = c
        return self.actor(out.squeeze(0)) * self.scale

    @torch.jit.export
    def reset_memory(self):
        self.hidden_state[:] = 0.
        self.cell_state[:] = 0.


def small_actor(n_obs=15, n_act=2, seed=3):
    torch.manual_seed(seed)
    actor = torch.nn.Sequential(torch.nn.Linear(16, 8), torch.nn.ELU(), torch.nn.Linear(8, n_act))
    memory = torch.nn.LSTM(n_obs, 16, 1)
    return actor, memory


def deploy_yaml(tmp_path, n=2):
    path = tmp_path / "deploy.yaml"
    path.write_text(yaml.safe_dump({"kps": [100.0] * n, "kds": [2.0] * n,
                                    "default_angles": [0.1] * n, "simulation_dt": 0.005,
                                    "control_decimation": 4}))
    return path


def run(tmp_path, *args):
    out = tmp_path / "p.onnx"
    rc = policy_import.main(["import", *map(str, args), "--out", str(out),
                             "--yaml", str(tmp_path / "p.yaml")])
    return rc, out, tmp_path / "p.yaml"


def test_lstm_actor_matches_over_steps_with_state(tmp_path, capsys):
    actor, memory = small_actor()
    path = tmp_path / "a.pt"
    torch.jit.script(PolicyExporterLSTM(actor, memory)).save(str(path))
    rc, out, y = run(tmp_path, path, "--joints", "A,B", "--deploy", deploy_yaml(tmp_path))
    assert rc == 0, capsys.readouterr().err
    model = onnx.load(str(out))
    assert [i.name for i in model.graph.input] == ["obs", "h_in", "c_in"]
    assert [o.name for o in model.graph.output] == ["actions", "h_out", "c_out"]
    assert {n.op_type for n in model.graph.node} <= {"Constant", "Unsqueeze", "Squeeze", "LSTM",
                                                      "Gemm", "Elu"}
    # The ONNX, its state fed back, follows torch's own LSTM step after step.
    h = c = np.zeros((1, 1, 16))
    th = tc = torch.zeros(1, 1, 16)
    for step in range(5):
        obs = torch.randn(1, 15)
        got = policy_import.evaluate_onnx(model, {"obs": obs.numpy(), "h_in": h, "c_in": c})
        with torch.no_grad():
            o, (th, tc) = memory(obs.unsqueeze(0), (th, tc))
            want = actor(o.squeeze(0)).numpy()
        assert np.abs(got["actions"] - want).max() < 1e-5, step
        h, c = got["h_out"], got["c_out"]
    section = yaml.safe_load(y.read_text())["policy"]
    assert section["recurrent_state"] == {"h_in": "h_out", "c_in": "c_out"}
    assert section["joints"] == ["A", "B"]
    # 15 = 9 + 3 x 2 observations: legged_gym's, no gait clock
    assert [t["term"] for t in section["observation"]] == [
        "base_ang_vel", "projected_gravity", "command", "joint_pos", "joint_vel", "last_action"]


def test_mlp_actor(tmp_path, capsys):
    torch.manual_seed(1)
    mlp = torch.nn.Sequential(torch.nn.Linear(17, 32), torch.nn.ELU(), torch.nn.Linear(32, 16),
                              torch.nn.ReLU(), torch.nn.Linear(16, 2))
    path = tmp_path / "mlp.pt"
    torch.jit.script(mlp).save(str(path))  # export_policy_as_jit without memory
    rc, out, y = run(tmp_path, path, "--joints", "A,B", "--deploy", deploy_yaml(tmp_path))
    assert rc == 0, capsys.readouterr().err
    model = onnx.load(str(out))
    assert [i.name for i in model.graph.input] == ["obs"]
    obs = np.random.default_rng(0).standard_normal((1, 17)).astype(np.float32)
    got = policy_import.evaluate_onnx(model, {"obs": obs})["actions"]
    with torch.no_grad():
        assert np.abs(got - mlp(torch.from_numpy(obs)).numpy()).max() < 1e-5
    section = yaml.safe_load(y.read_text())["policy"]
    assert section["observation"][-1] == {"term": "phase", "period_s": 0.8}  # 17 = 9 + 6 + 2
    assert "recurrent_state" not in section


def test_a_module_the_onnx_does_not_reproduce_is_refused(tmp_path, capsys):
    actor, memory = small_actor()
    path = tmp_path / "odd.pt"
    torch.jit.script(PolicyExporterLSTM(actor, memory, scale=1.001)).save(str(path))
    rc, out, y = run(tmp_path, path, "--joints", "A,B", "--deploy", deploy_yaml(tmp_path))
    err = capsys.readouterr().err
    assert rc == 1
    assert "differs from the TorchScript module" in err and "> 0.0001" in err
    assert not out.exists() and not y.exists()


def test_unmapped_joints_are_named(tmp_path, capsys):
    actor, memory = small_actor()
    path = tmp_path / "a.pt"
    torch.jit.script(PolicyExporterLSTM(actor, memory)).save(str(path))
    config = tmp_path / "robot.yaml"
    config.write_text(yaml.safe_dump({
        "joints": [{"name": "L_Knee", "stand": 0.3, "kp": 100, "kd": 2},
                   {"name": "R_Knee", "stand": 0.3, "kp": 100, "kd": 2}],
        "sim": {"joint_names": {"L_Knee": "left_knee_joint"}}}))
    rc, _, _ = run(tmp_path, path, "--joints", "left_knee_joint,right_knee_joint", "--config",
                   config)
    assert rc == 1
    last = capsys.readouterr().err.splitlines()[-1]
    assert "not config joints" in last and last.endswith(": right_knee_joint")
    rc, _, y = run(tmp_path, path, "--joints", "left_knee_joint,R_Knee", "--config", config)
    assert rc == 0
    section = yaml.safe_load(y.read_text())["policy"]
    assert section["joints"] == ["L_Knee", "R_Knee"]  # the model name mapped back
    assert section["default_pose"] == [0.3, 0.3] and section["kp"] == [100, 100]


def test_unmapped_joint_message_names_it(tmp_path, capsys):
    actor, memory = small_actor()
    path = tmp_path / "a.pt"
    torch.jit.script(PolicyExporterLSTM(actor, memory)).save(str(path))
    config = tmp_path / "robot.yaml"
    config.write_text(yaml.safe_dump({"joints": [{"name": "L_Knee"}, {"name": "R_Knee"}]}))
    rc, _, _ = run(tmp_path, path, "--joints", "L_Knee,right_knee", "--config", config)
    assert rc == 1
    assert capsys.readouterr().err.strip().endswith(": right_knee")


def test_without_joint_names_it_asks_for_them(tmp_path, capsys):
    actor, memory = small_actor()
    path = tmp_path / "a.pt"
    torch.jit.script(PolicyExporterLSTM(actor, memory)).save(str(path))
    assert run(tmp_path, path)[0] == 1
    assert "give --joints" in capsys.readouterr().err


def test_unitree_h1_reproduces_the_checked_in_onnx(tmp_path, capsys):
    """Unitree's own H1 actor (deploy/pre_train/h1/motion.pt) with its deploy yaml: the example's
    ONNX and policy section are what the import makes of it today."""
    rc, out, y = run(tmp_path, os.path.join(H1, "policy", "motion.pt"), "--deploy",
                     os.path.join(H1, "policy", "deploy_mujoco_h1.yaml"), "--joints", H1_JOINTS)
    assert rc == 0, capsys.readouterr().err
    made, shipped = onnx.load(str(out)), onnx.load(os.path.join(H1, "h1-walk.onnx"))
    obs = np.random.default_rng(5).standard_normal((1, 41))
    s_made = {"h_in": np.zeros((1, 1, 64)), "c_in": np.zeros((1, 1, 64))}
    s_ship = dict(s_made)
    for _ in range(3):
        a = policy_import.evaluate_onnx(made, dict(obs=obs, **s_made))
        b = policy_import.evaluate_onnx(shipped, dict(obs=obs, **s_ship))
        assert np.abs(a["actions"] - b["actions"]).max() < 1e-6
        s_made = {"h_in": a["h_out"], "c_in": a["c_out"]}
        s_ship = {"h_in": b["h_out"], "c_in": b["c_out"]}
    meta = {p.key: p.value for p in shipped.metadata_props}
    assert json.loads(meta["robot_edge.joint_names"]) == H1_JOINTS.split(",")
    assert json.loads(meta["robot_edge.kp"]) == [150, 150, 150, 200, 40, 150, 150, 150, 200, 40]
    assert json.loads(meta["robot_edge.rate_hz"]) == 50
    section = yaml.safe_load(y.read_text())["policy"]
    assert section["default_pose"] == [0, 0, -0.1, 0.3, -0.2, 0, 0, -0.1, 0.3, -0.2]
    assert section["observation"][-1] == {"term": "phase", "period_s": 0.8}
    assert len(section["observation"]) == 7


def test_joint_order_from_the_mjcf(tmp_path, capsys):
    """legged_gym's dof order is the model's joint order: --mjcf reads it (the free joint and the
    <default> joints left out), and --config then maps the names."""
    rc, _, y = run(tmp_path, os.path.join(H1, "policy", "motion.pt"), "--deploy",
                   os.path.join(H1, "policy", "deploy_mujoco_h1.yaml"), "--mjcf",
                   os.path.join(H1, "h1.xml"), "--config", os.path.join(H1, "h1.yaml"))
    assert rc == 0, capsys.readouterr().err
    assert yaml.safe_load(y.read_text())["policy"]["joints"] == H1_JOINTS.split(",")
    assert policy_import.mjcf_joints(os.path.join(H1, "h1.xml")) == H1_JOINTS.split(",")


# legged_gym's dof order for Unitree's 12-joint G1 and H1_2 (their MJCF files' joint order:
# resources/robots/g1_description/g1_12dof.xml, resources/robots/h1_2/h1_2_12dof.xml).
G1_JOINTS = [f"{side}_{j}_joint" for side in ("left", "right")
             for j in ("hip_pitch", "hip_roll", "hip_yaw", "knee", "ankle_pitch", "ankle_roll")]
H1_2_JOINTS = [f"{side}_{j}_joint" for side in ("left", "right")
               for j in ("hip_yaw", "hip_pitch", "hip_roll", "knee", "ankle_pitch", "ankle_roll")]
UNITREE = os.path.join(HERE, "unitree_rl_gym")


@pytest.mark.parametrize("robot,joints", [("g1", G1_JOINTS), ("h1_2", H1_2_JOINTS)])
def test_unitree_g1_and_h1_2_import_and_match_torch_step_by_step(tmp_path, capsys, robot, joints):
    """Unitree's other two walking actors (LSTM 47 -> 64, then an MLP to 12 actions) import as H1's
    does: the ONNX carries the LSTM's state, and reproduces the TorchScript module over several
    steps of the same observations (checked here again, independently of the import's check)."""
    pt = os.path.join(UNITREE, robot, "motion.pt")
    deploy = os.path.join(UNITREE, robot, f"deploy_mujoco_{robot}.yaml")
    rc, out, y = run(tmp_path, pt, "--deploy", deploy, "--joints", ",".join(joints))
    assert rc == 0, capsys.readouterr().err
    model = onnx.load(str(out))
    module = torch.jit.load(pt)
    module.reset_memory()
    state = {"h_in": np.zeros((1, 1, 64), np.float32), "c_in": np.zeros((1, 1, 64), np.float32)}
    rng = np.random.default_rng(11)
    for _ in range(5):
        obs = rng.standard_normal((1, 47)).astype(np.float32)
        got = policy_import.evaluate_onnx(model, dict(obs=obs, **state))
        with torch.no_grad():
            want = module(torch.from_numpy(obs)).numpy()
        assert np.abs(got["actions"] - want).max() < 1e-5
        state = {"h_in": got["h_out"], "c_in": got["c_out"]}
    with open(deploy, encoding="utf-8") as f:
        unitree = yaml.safe_load(f)
    section = yaml.safe_load(y.read_text())["policy"]
    assert section["joints"] == joints
    assert section["default_pose"] == pytest.approx(unitree["default_angles"])
    assert section["rate_hz"] == pytest.approx(
        1.0 / (unitree["simulation_dt"] * unitree["control_decimation"]))
    assert section["observation"][-1] == {"term": "phase", "period_s": 0.8}
