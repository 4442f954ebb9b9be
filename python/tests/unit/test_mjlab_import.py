"""robot-edge-policy import of mjlab exports: a torch actor exported to ONNX the way mjlab's
_OnnxPolicyExporter does, its metadata attached the way mjlab's attach_onnx_metadata writes it
(src/mjlab/tasks/velocity/rl/exporter.py), imported, and checked against torch's own outputs and
the metadata's numbers (needs Debian's python3-torch, python3-onnx, python3-yaml)."""
import json

import numpy as np
import onnx
import pytest
import torch
import yaml

from robot_edge import isaaclab_import, mjlab_import, policy_import

# A 12-joint legged robot's joints, in mjlab's joint order (the network's).
JOINTS = [f"{side}_{j}_joint" for side in ("left", "right")
          for j in ("hip_pitch", "hip_roll", "hip_yaw", "knee", "ankle_pitch", "ankle_roll")]
N = len(JOINTS)
# mjlab's velocity policy group without base_lin_vel, in its order.
OBSERVATION = ["base_ang_vel", "projected_gravity", "joint_pos", "joint_vel", "actions", "command"]
WIDTH = 3 + 3 + 3 * N + 3


def list_to_csv_str(arr, *, decimals=3, delimiter=","):
    """mjlab's, as its exporter formats a list: numbers with 3 decimals, strings as they are."""
    fmt = f"{{:.{decimals}f}}"
    return delimiter.join(fmt.format(x) if isinstance(x, (int, float)) else str(x) for x in arr)


class Normalizer(torch.nn.Module):
    """An observation normalizer inside the exported graph (rsl_rl's EmpiricalNormalization's
    forward), as mjlab's exporter includes it with actor_obs_normalization."""

    def __init__(self, width):
        super().__init__()
        self.register_buffer("mean", torch.randn(width) * 0.1)
        self.register_buffer("std", torch.rand(width) + 0.5)

    def forward(self, x):
        return (x - self.mean) / (self.std + 1e-2)


class Exporter(torch.nn.Module):
    """_OnnxPolicyExporter's MLP path: actor(normalizer(obs))."""

    def __init__(self, actor, normalizer):
        super().__init__()
        self.actor, self.normalizer = actor, normalizer

    def forward(self, x):
        return self.actor(self.normalizer(x))


def metadata(observation=OBSERVATION, action_scale=None, **overrides):
    """What attach_onnx_metadata gathers for the robot above (numbers with more decimals than
    the CSV keeps, as an env's are)."""
    stiffness = [40.17923 if "hip" in j else 99.09842 if "knee" in j else 28.50124 for j in JOINTS]
    damping = [2.55779 if "hip" in j else 6.30880 if "knee" in j else 1.81444 for j in JOINTS]
    effort = [88.0 if "hip" in j else 139.0 if "knee" in j else 50.0 for j in JOINTS]
    meta = {
        "run_path": "2025-10-18_g1_velocity",
        "joint_names": JOINTS,
        "joint_stiffness": stiffness,
        "joint_damping": damping,
        "default_joint_pos": [-0.312 if "hip_pitch" in j else 0.669 if "knee" in j
                              else -0.363 if "ankle_pitch" in j else 0.0 for j in JOINTS],
        "command_names": ["twist"],
        "observation_names": list(observation),
        # G1_ACTION_SCALE: 0.25 × effort / stiffness per joint (a tensor's row: a list)
        "action_scale": [0.25 * e / s for e, s in zip(effort, stiffness)]
        if action_scale is None else action_scale,
    }
    meta.update(overrides)
    return meta


def export(path, width=WIDTH, outputs=N, meta=None, seed=7):
    """The actor exported as mjlab does (opset 11, obs -> actions), the metadata attached as
    attach_onnx_metadata writes it. Returns the torch module."""
    torch.manual_seed(seed)
    actor = torch.nn.Sequential(torch.nn.Linear(width, 64), torch.nn.ELU(),
                                torch.nn.Linear(64, 32), torch.nn.ELU(),
                                torch.nn.Linear(32, outputs))
    module = Exporter(actor, Normalizer(width)).eval()
    torch.onnx.export(module, torch.zeros(1, width), str(path), export_params=True,
                      opset_version=11, input_names=["obs"], output_names=["actions"],
                      dynamic_axes={})
    model = onnx.load(str(path))
    for k, v in (metadata() if meta is None else meta).items():
        entry = onnx.StringStringEntryProto()
        entry.key = k
        entry.value = list_to_csv_str(v) if isinstance(v, list) else str(v)
        model.metadata_props.append(entry)
    onnx.save(model, str(path))
    return module


def run(tmp_path, policy, *args):
    out, section = tmp_path / "walk.onnx", tmp_path / "walk.yaml"
    rc = policy_import.main(["import", str(policy), *map(str, args), "--out", str(out),
                             "--yaml", str(section)])
    return rc, out, section


def test_the_import_keeps_the_network_and_takes_the_exporters_numbers(tmp_path, capsys):
    module = export(tmp_path / "policy.onnx")
    rc, out, section = run(tmp_path, tmp_path / "policy.onnx", "--mjlab", "--rate-hz", 50)
    assert rc == 0, capsys.readouterr().err
    assert "mjlab export (run 2025-10-18_g1_velocity), 12 joints at 50 Hz, 6 observation terms" \
        in capsys.readouterr().err
    # The written model gives torch's actions (the normalizer included) on random inputs.
    model = onnx.load(str(out))
    rng = np.random.default_rng(3)
    for _ in range(5):
        obs = rng.standard_normal((1, WIDTH)).astype(np.float32)
        got = policy_import.evaluate_onnx(model, {"obs": obs})["actions"]
        with torch.no_grad():
            want = module(torch.from_numpy(obs)).numpy()
        assert np.abs(got - want).max() < 1e-5
    # The section's numbers are the metadata's, as the exporter wrote them (3 decimals).
    written = {p.key: p.value for p in model.metadata_props}
    csv = {k: [float(v) for v in written[k].split(",")] for k in
           ("joint_stiffness", "joint_damping", "default_joint_pos", "action_scale")}
    s = yaml.safe_load(section.read_text())["policy"]
    assert s["joints"] == JOINTS == written["joint_names"].split(",")
    assert s["kp"] == csv["joint_stiffness"] and s["kp"][0] == 40.179 and s["kp"][3] == 99.098
    assert s["kd"] == csv["joint_damping"] and s["kd"][3] == 6.309
    assert s["default_pose"] == csv["default_joint_pos"] and s["default_pose"][3] == 0.669
    assert s["action_scale"] == csv["action_scale"]
    assert s["action_scale"][0] == round(0.25 * 88 / 40.17923, 3)
    assert s["rate_hz"] == 50.0 and s["model"] == "walk.onnx"
    assert s["observation"] == [{"term": t} for t in ("base_ang_vel", "projected_gravity",
                                                      "joint_pos", "joint_vel", "last_action",
                                                      "command")]
    assert "history" not in s and "action_offset" not in s
    # robot_edge.* metadata beside the exporter's own keys, which stay.
    assert json.loads(written["robot_edge.kp"]) == s["kp"]
    assert json.loads(written["robot_edge.observation"]) == s["observation"]
    assert json.loads(written["robot_edge.rate_hz"]) == 50.0
    assert written["observation_names"] == ",".join(OBSERVATION)


def test_found_by_its_metadata_with_one_action_scale_and_a_config(tmp_path, capsys):
    """Without --mjlab the metadata is recognised; a scalar action_scale (str(float)) is one
    number; --config maps the model's joint names to the config's."""
    export(tmp_path / "policy.onnx", meta=metadata(action_scale=0.5))
    config = tmp_path / "robot.yaml"
    config.write_text(yaml.safe_dump({
        "joints": [{"name": f"J{i}"} for i in range(N)],
        "sim": {"joint_names": {f"J{i}": j for i, j in enumerate(JOINTS)}}}))
    rc, out, section = run(tmp_path, tmp_path / "policy.onnx", "--rate-hz", 50, "--config",
                           config)
    assert rc == 0, capsys.readouterr().err
    s = yaml.safe_load(section.read_text())["policy"]
    assert s["action_scale"] == 0.5
    assert s["joints"] == [f"J{i}" for i in range(N)]


def refused(tmp_path, capsys, *args, width=WIDTH, outputs=N, **meta):
    export(tmp_path / "policy.onnx", width=width, outputs=outputs, meta=metadata(**meta))
    rc, out, section = run(tmp_path, tmp_path / "policy.onnx", *args)
    assert rc == 1
    assert not out.exists() and not section.exists()
    return capsys.readouterr().err


def test_base_lin_vel_is_refused_naming_it(tmp_path, capsys):
    # mjlab's velocity task's default policy group: base_lin_vel first.
    err = refused(tmp_path, capsys, "--rate-hz", 50, width=WIDTH + 3,
                  observation=["base_lin_vel"] + OBSERVATION)
    assert "observation base_lin_vel: the base's linear velocity" in err
    assert "a robot measures no such thing" in err


def test_an_unknown_term_is_refused_naming_it(tmp_path, capsys):
    err = refused(tmp_path, capsys, "--rate-hz", 50, width=WIDTH + 2,
                  observation=OBSERVATION + ["foot_contact"])
    assert "observation foot_contact is not a term robot-edged knows" in err


def test_an_input_width_other_than_the_terms_is_refused_saying_why(tmp_path, capsys):
    # e.g. a policy trained with history_length 3 on every term: the metadata does not say so.
    err = refused(tmp_path, capsys, "--rate-hz", 50, width=WIDTH * 3)
    assert (f"the network takes {WIDTH * 3} inputs; the metadata's terms give base_ang_vel 3 + "
            f"projected_gravity 3 + joint_pos 12 + joint_vel 12 + actions 12 + command 3 = "
            f"{WIDTH}") in err
    assert "carries no scale, clip or history" in err


def test_without_rate_hz_it_asks_for_it(tmp_path, capsys):
    err = refused(tmp_path, capsys, "--mjlab")
    assert "mjlab's metadata has no control rate: give --rate-hz" in err


def test_other_refusals_name_what(tmp_path, capsys):
    err = refused(tmp_path, capsys, "--rate-hz", 50, outputs=N - 1)
    assert "the network gives 11 actions; metadata joint_names has 12 joints" in err
    err = refused(tmp_path, capsys, "--rate-hz", 50, command_names=["twist", "heading"])
    assert "command_names ['twist', 'heading']" in err
    err = refused(tmp_path, capsys, "--rate-hz", 50, joint_damping=[1.0] * (N - 1))
    assert "metadata joint_damping has 11 values for 12 joint_names" in err
    err = refused(tmp_path, capsys, "--rate-hz", 50, observation_scales=[1.0])
    assert "metadata observation_scales: not what mjlab's velocity exporter writes" in err
    err = refused(tmp_path, capsys, "--rate-hz", 50, "--joints", ",".join(JOINTS))
    assert "--joints and --mjcf do not apply" in err


def test_the_section_is_a_pure_function_of_the_metadata():
    meta = {k: list_to_csv_str(v) if isinstance(v, list) else str(v)
            for k, v in metadata(action_scale=0.25).items()}
    s = mjlab_import.section(meta, "m.onnx", 50, (WIDTH, N))
    assert s["action_scale"] == 0.25 and len(s["kp"]) == N
    with pytest.raises(isaaclab_import.Refused):
        mjlab_import.section(meta, "m.onnx", None, (WIDTH, N))
    assert mjlab_import.is_mjlab(meta) and not mjlab_import.is_mjlab({"joint_names": "a"})
