"""robot-edge-policy import of Isaac Lab exports: unitree_rl_lab's own G1 29-DoF deploy.yaml, read
as its exporter writes it, mapped as its deploy loop runs it, and every field robot-edged does
not implement refused by name (needs Debian's python3-onnx and python3-yaml)."""
import json
import os

import onnx
import pytest
import yaml
from onnx import TensorProto, helper

from robot_edge import isaaclab_import, policy_import

HERE = os.path.dirname(os.path.abspath(__file__))
G1_DEPLOY = os.path.join(HERE, "unitree_rl_lab", "g1", "deploy.yaml")

# The G1 29-DoF's joints in SDK order (unitree_mujoco's g1_29dof.xml, document order; the
# motor indices of g1_joint_index_dds.md).
G1_SDK = [
    "left_hip_pitch_joint", "left_hip_roll_joint", "left_hip_yaw_joint", "left_knee_joint",
    "left_ankle_pitch_joint", "left_ankle_roll_joint", "right_hip_pitch_joint",
    "right_hip_roll_joint", "right_hip_yaw_joint", "right_knee_joint", "right_ankle_pitch_joint",
    "right_ankle_roll_joint", "waist_yaw_joint", "waist_roll_joint", "waist_pitch_joint",
    "left_shoulder_pitch_joint", "left_shoulder_roll_joint", "left_shoulder_yaw_joint",
    "left_elbow_joint", "left_wrist_roll_joint", "left_wrist_pitch_joint", "left_wrist_yaw_joint",
    "right_shoulder_pitch_joint", "right_shoulder_roll_joint", "right_shoulder_yaw_joint",
    "right_elbow_joint", "right_wrist_roll_joint", "right_wrist_pitch_joint",
    "right_wrist_yaw_joint",
]


def g1_deploy():
    with open(G1_DEPLOY) as f:
        return isaaclab_import.load_deploy(f.read())


def network(path, inputs, outputs):
    """A one-layer network of the export's shape ([1, inputs] -> [1, outputs])."""
    w = helper.make_tensor("w", TensorProto.FLOAT, [inputs, outputs], [0.001] * (inputs * outputs))
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["obs", "w"], ["actions"])], "g",
        [helper.make_tensor_value_info("obs", TensorProto.FLOAT, [1, inputs])],
        [helper.make_tensor_value_info("actions", TensorProto.FLOAT, [1, outputs])], [w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return str(path)


def test_the_slice_tag_is_read_and_nothing_else_is_constructed():
    d = g1_deploy()
    assert d["actions"]["JointPositionAction"]["joint_ids"] == slice(None, None, None)
    with pytest.raises(Exception) as e:
        isaaclab_import.load_deploy("x: !!python/object/apply:os.system ['touch /tmp/pwned']\n")
    assert "python/object/apply:os.system" in str(e.value)
    assert not os.path.exists("/tmp/pwned")


def test_g1_maps_as_unitree_rl_labs_deploy_loop_runs_it():
    d = g1_deploy()
    s = isaaclab_import.section(d, G1_SDK, "g1.onnx", (480, 29))
    ids = d["joint_ids_map"]
    # The network's joint i is the SDK joint joint_ids_map[i].
    assert s["joints"] == [G1_SDK[i] for i in ids]
    assert s["joints"][:3] == ["left_hip_pitch_joint", "right_hip_pitch_joint", "waist_yaw_joint"]
    # Gains come in SDK order and are reordered; the default pose is in the network's order.
    assert s["kp"] == [d["stiffness"][i] for i in ids]
    assert s["kd"] == [d["damping"][i] for i in ids]
    assert s["kp"][2] == 200.0 and s["kp"][9] == 150.0  # waist yaw, left knee
    assert s["default_pose"] == d["default_joint_pos"]
    assert s["default_pose"][9] == 0.3 and s["default_pose"][21] == 0.97  # left knee, elbow
    assert s["rate_hz"] == 50.0
    assert s["action_scale"] == 0.25
    assert s["history"] == 5 and s["history_layout"] == "term_major"
    assert s["observation"] == [
        {"term": "base_ang_vel", "scale": 0.2},
        {"term": "projected_gravity"},
        {"term": "command", "clip": [[-0.5, 1.0], [-0.3, 0.3], [-0.2, 0.2]]},
        {"term": "joint_pos"},
        {"term": "joint_vel", "scale": 0.05},
        {"term": "last_action"},
    ]


def refusal(edit, io=(480, 29), sdk=G1_SDK):
    d = g1_deploy()
    edit(d)
    with pytest.raises(isaaclab_import.Refused) as e:
        isaaclab_import.section(d, sdk, "g1.onnx", io)
    return str(e.value)


def test_what_robot_edged_does_not_implement_is_refused_by_name():
    def add_term(name, cfg):
        return lambda d: d["observations"].update({name: cfg})

    cases = [
        (add_term("base_lin_vel", {"scale": [2, 2, 2], "clip": None, "history_length": 5}),
         "observation base_lin_vel: the base's linear velocity"),
        (add_term("height_scan", {"history_length": 5}), "observation height_scan: a height scan"),
        (add_term("feet_contact", {"history_length": 5}),
         "observation feet_contact is not implemented"),
        (lambda d: d["actions"]["JointPositionAction"].update(clip=[[-1, 1]] * 29),
         "actions.JointPositionAction.clip"),
        (lambda d: d["actions"]["JointPositionAction"].update(joint_ids=slice(0, 12, None)),
         "joint_ids slice(0, 12, None)"),
        (lambda d: d["commands"]["base_velocity"]["ranges"].update(heading=[-3.14, 3.14]),
         "ranges.heading"),
        (lambda d: d.update(foot_height=0.1), "deploy.yaml's foot_height is not implemented"),
        (lambda d: d["observations"]["joint_pos_rel"].update(
            params={"asset_cfg": {"joint_ids": [0, 1]}}),
         "observations.joint_pos_rel.params ['asset_cfg']"),
        (lambda d: d["observations"]["base_ang_vel"].update(scale=[1, 2]),
         "observations.base_ang_vel.scale has 2 values; 3 expected"),
        (lambda d: d.update(joint_ids_map=d["joint_ids_map"][:12],
                            default_joint_pos=d["default_joint_pos"][:12]),
         "stiffness covers left_ankle_pitch_joint, left_ankle_roll_joint"),
        (lambda d: d["joint_ids_map"].__setitem__(0, 40), "joint_ids_map[0] is 40"),
        (lambda d: d.update(actions={"JointVelocityAction": {}}), "one JointPositionAction"),
    ]
    for edit, expected in cases:
        assert expected in refusal(edit), expected
    assert "the network takes 470 inputs; the export declares 96 values × history 5 = 480" in \
        refusal(lambda d: None, io=(470, 29))
    assert "the network gives 23 actions" in refusal(lambda d: None, io=(480, 23))


def test_terms_with_different_history_length_get_their_own_history():
    """Isaac Lab's per-term history (term-major): each term's own length, no policy-level one."""
    d = g1_deploy()
    d["observations"]["joint_vel_rel"]["history_length"] = 1
    d["observations"]["base_ang_vel"]["history_length"] = 3
    # 3×3 + 3×5 + 3×5 + 29×5 + 29×1 + 29×5 = 358
    s = isaaclab_import.section(d, G1_SDK, "g1.onnx", (358, 29))
    assert [t["history"] for t in s["observation"]] == [3, 5, 5, 5, 1, 5]
    assert "history" not in s and s["history_layout"] == "term_major"
    assert s["observation"][4] == {"term": "joint_vel", "scale": 0.05, "history": 1}
    with pytest.raises(isaaclab_import.Refused) as e:
        isaaclab_import.section(d, G1_SDK, "g1.onnx", (480, 29))
    assert "the network takes 480 inputs; the export declares 3 × 3 + 3 × 5 + 3 × 5 + 29 × 5 " \
        "+ 29 × 1 + 29 × 5 (values × history_length per term) = 358" in str(e.value)


def test_equal_history_lengths_stay_one_policy_history():
    s = isaaclab_import.section(g1_deploy(), G1_SDK, "g1.onnx", (480, 29))
    assert s["history"] == 5 and all("history" not in t for t in s["observation"])


def test_an_action_offset_other_than_the_default_pose_is_written_as_action_offset():
    d = g1_deploy()
    assert "action_offset" not in isaaclab_import.section(d, G1_SDK, "g1.onnx", (480, 29))
    d["actions"]["JointPositionAction"]["offset"][3] = 0.5
    s = isaaclab_import.section(d, G1_SDK, "g1.onnx", (480, 29))
    assert s["action_offset"][3] == 0.5
    assert s["action_offset"][:3] + s["action_offset"][4:] == \
        d["default_joint_pos"][:3] + d["default_joint_pos"][4:]
    assert s["default_pose"][3] == d["default_joint_pos"][3]  # the default pose is unchanged
    d["actions"]["JointPositionAction"]["offset"] = 0.0  # one number for every joint
    assert isaaclab_import.section(d, G1_SDK, "g1.onnx", (480, 29))["action_offset"] == [0.0] * 29


def test_a_term_clip_is_kept_before_the_scale():
    d = g1_deploy()
    d["observations"]["joint_vel_rel"]["clip"] = [-100.0, 100.0]
    s = isaaclab_import.section(d, G1_SDK, "g1.onnx", (480, 29))
    assert s["observation"][4] == {"term": "joint_vel", "scale": 0.05, "clip": [-100.0, 100.0]}


def test_the_command_line_writes_the_section_and_the_models_metadata(tmp_path, capsys):
    policy = network(tmp_path / "policy.onnx", 480, 29)
    out, section = tmp_path / "g1.onnx", tmp_path / "g1.yaml"
    assert policy_import.main(["import", policy, "--deploy", G1_DEPLOY, "--joints",
                               ",".join(G1_SDK), "--out", str(out), "--yaml", str(section)]) == 0
    assert "Isaac Lab export, 29 joints at 50 Hz, 6 observation terms × history 5" in \
        capsys.readouterr().err
    s = yaml.safe_load(section.read_text())["policy"]
    assert s["model"] == "g1.onnx" and s["history"] == 5
    meta = {p.key: p.value for p in onnx.load(str(out)).metadata_props}
    assert json.loads(meta["robot_edge.joint_names"]) == s["joints"]
    assert json.loads(meta["robot_edge.kp"]) == s["kp"]
    assert json.loads(meta["robot_edge.observation"])[2]["clip"] == [[-0.5, 1.0], [-0.3, 0.3],
                                                                      [-0.2, 0.2]]
    assert "robot_edge.action_offset" not in meta


def test_the_command_line_writes_per_term_history_and_action_offset(tmp_path, capsys):
    d = g1_deploy()
    d["observations"]["joint_vel_rel"]["history_length"] = 2
    d["actions"]["JointPositionAction"]["offset"] = 0.0
    deploy = tmp_path / "deploy.yaml"
    deploy.write_text(yaml.dump(d, sort_keys=False))  # slice tags as PyYAML writes them
    policy = network(tmp_path / "policy.onnx", 480 - 29 * 3, 29)
    out, section = tmp_path / "g1.onnx", tmp_path / "g1.yaml"
    assert policy_import.main(["import", policy, "--deploy", str(deploy), "--joints",
                               ",".join(G1_SDK), "--out", str(out), "--yaml", str(section)]) == 0
    assert "6 observation terms × per-term history [5, 5, 5, 5, 2, 5]" in capsys.readouterr().err
    s = yaml.safe_load(section.read_text())["policy"]
    assert s["observation"][4]["history"] == 2 and s["history_layout"] == "term_major"
    assert s["action_offset"] == [0.0] * 29
    meta = {p.key: p.value for p in onnx.load(str(out)).metadata_props}
    assert json.loads(meta["robot_edge.action_offset"]) == [0.0] * 29
    assert json.loads(meta["robot_edge.observation"])[4]["history"] == 2


def test_the_command_line_refuses_with_the_reason_and_writes_nothing(tmp_path, capsys):
    policy = network(tmp_path / "policy.onnx", 480, 29)
    out = tmp_path / "g1.onnx"
    assert policy_import.main(["import", policy, "--deploy", G1_DEPLOY, "--joints",
                               ",".join(G1_SDK[:20]), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "joint_ids_map[12] is 22: the robot has 20 joints" in err, err
    assert not out.exists()
    assert policy_import.main(["import", policy, "--deploy", G1_DEPLOY, "--out", str(out)]) == 1
    assert "give --mjcf" in capsys.readouterr().err
