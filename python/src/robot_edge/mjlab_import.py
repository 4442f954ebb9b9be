"""mjlab exports (the ONNX its velocity task's runner writes) read from the model's own metadata
into robot-edged's `policy:` section.

mjlab's exporter (src/mjlab/tasks/velocity/rl/exporter.py, attach_onnx_metadata) adds these
metadata_props to the ONNX, each a string: lists as comma-separated values (list_to_csv_str:
numbers with 3 decimals, strings as they are), anything else as str(value):

- run_path: the training run's name (kept, not used);
- joint_names: the robot's joints (Entity.joint_names), the per-joint observations' order;
- joint_stiffness, joint_damping: each actuator's kp and kd, in actuator order, which is the
  action's. ActuatorSetCfg creates the actuators in joint order, so with every joint actuated
  (one value per joint name) the action's order is joint_names'; fewer values (a joint without
  an actuator) cannot be placed and are refused;
- default_joint_pos: the default pose (rad): joint_pos is relative to it, and the action is
  offset by it (JointPositionAction with use_default_offset);
- command_names: the command manager's terms (the velocity task's one, `twist`: vx, vy, wz);
- observation_names: the policy group's terms, in the order the network's input stacks them;
- action_scale: one number (str(float)) or one per joint.

The metadata names the terms but not their scale, clip or history: they are taken as 1, none and
none (mjlab's velocity task sets none), and the network's input width must then be exactly the
terms' widths, or the import is refused. The control rate is not in the metadata either: the
caller gives it. Nothing else is guessed: a key, term or command this module does not know is
refused, naming it. Pure functions of their inputs (no torch, no onnx): the caller loads the file.
"""
import math

from robot_edge.isaaclab_import import UNMEASURABLE, Refused

# The metadata keys mjlab's velocity exporter writes.
KEYS = ("run_path", "joint_names", "joint_stiffness", "joint_damping", "default_joint_pos",
        "command_names", "observation_names", "action_scale")
REQUIRED = ("joint_names", "joint_stiffness", "joint_damping", "default_joint_pos",
            "observation_names", "action_scale")

# mjlab's velocity task's policy terms (velocity_env_cfg.py, ObservationCfg.PolicyCfg) by name:
# what robot-edged computes for each, and its width (n: one per joint).
TERMS = {
    "base_ang_vel": ("base_ang_vel", 3),  # mdp.base_ang_vel
    "projected_gravity": ("projected_gravity", 3),  # mdp.projected_gravity
    "joint_pos": ("joint_pos", "n"),  # mdp.joint_pos_rel
    "joint_vel": ("joint_vel", "n"),  # mdp.joint_vel_rel
    "actions": ("last_action", "n"),  # mdp.last_action
    "command": ("command", 3),  # mdp.generated_commands, command_name twist
}
COMMAND = "twist"  # UniformVelocityCommand: vx, vy (m/s), wz (rad/s) in the base frame


def is_mjlab(meta):
    """Whether an ONNX's metadata (a dict) is what mjlab's exporter writes."""
    return "joint_names" in meta and "observation_names" in meta


def _strings(meta, key):
    value = meta[key].strip()
    return [v.strip() for v in value.split(",")] if value else []


def _floats(meta, key):
    out = []
    for v in _strings(meta, key):
        try:
            out.append(float(v))
        except ValueError:
            raise Refused(f"metadata {key}: {v!r} is not a number") from None
        if not math.isfinite(out[-1]):
            raise Refused(f"metadata {key}: {v} is not finite")
    return out


def _per_joint(meta, key, names, allow_one=False):
    values = _floats(meta, key)
    if allow_one and len(values) == 1:
        return values[0]
    if len(values) != len(names):
        raise Refused(f"metadata {key} has {len(values)} values for {len(names)} joint_names"
                      + (" (one, or one per joint)" if allow_one else ""))
    return values


def _observation(meta, n):
    """The terms in order and their widths; refuses an unknown or unmeasurable term."""
    names = _strings(meta, "observation_names")
    if not names:
        raise Refused("metadata observation_names is empty")
    terms, widths = [], []
    for name in names:
        if name in UNMEASURABLE:
            raise Refused(f"observation {name}: {UNMEASURABLE[name]}. mjlab's velocity task "
                          "observes it by default: train without it (remove the policy "
                          "group's base_lin_vel term)")
        if name not in TERMS:
            raise Refused(f"observation {name} is not a term robot-edged knows (mjlab's velocity "
                          f"task's: {', '.join(TERMS)})")
        ours, width = TERMS[name]
        terms.append({"term": ours})
        widths.append(n if width == "n" else width)
    if "command" in names:
        commands = _strings(meta, "command_names") if "command_names" in meta else []
        if commands != [COMMAND]:
            raise Refused(f"observation command with command_names {commands}: robot-edged gives "
                          f"the policy one command, {COMMAND} (vx, vy, wz)")
    return names, terms, widths


def section(meta, model_name, rate_hz, onnx_io):
    """The `policy:` section for an mjlab export. `meta`: its metadata_props as a dict;
    `rate_hz`: the control rate it was trained at (not in the metadata; None refuses);
    `onnx_io`: (inputs, outputs) of the network. Raises Refused."""
    unknown = [k for k in meta if k not in KEYS and not k.startswith("robot_edge.")]
    if unknown:
        raise Refused(f"metadata {', '.join(unknown)}: not what mjlab's velocity exporter writes "
                      f"({', '.join(KEYS)}); robot-edged does not guess what it means")
    missing = [k for k in REQUIRED if k not in meta]
    if missing:
        raise Refused(f"metadata has no {', '.join(missing)} (mjlab's exporter writes "
                      f"{', '.join(KEYS)})")
    names = _strings(meta, "joint_names")
    if not names or len(set(names)) != len(names):
        raise Refused(f"metadata joint_names {names}: empty, or a joint twice")
    if rate_hz is None:
        raise Refused("mjlab's metadata has no control rate: give --rate-hz (1 / (the env's "
                      "decimation × sim timestep) it was trained at)")
    if not (isinstance(rate_hz, (int, float)) and math.isfinite(rate_hz) and rate_hz > 0):
        raise Refused(f"--rate-hz {rate_hz} is not a positive rate")
    n = len(names)
    try:
        kp = _per_joint(meta, "joint_stiffness", names)
        kd = _per_joint(meta, "joint_damping", names)
    except Refused as e:
        raise Refused(f"{e}: the gains are per actuator, so a joint without one (or an "
                      "actuator on no joint) leaves the action's joints unknown") from None
    default_pose = _per_joint(meta, "default_joint_pos", names)
    action_scale = _per_joint(meta, "action_scale", names, allow_one=True)
    if isinstance(action_scale, list) and all(v == action_scale[0] for v in action_scale):
        action_scale = action_scale[0]
    obs_names, terms, widths = _observation(meta, n)
    inputs, outputs = onnx_io
    if inputs != sum(widths):
        raise Refused(f"the network takes {inputs} inputs; the metadata's terms give " +
                      " + ".join(f"{o} {w}" for o, w in zip(obs_names, widths)) +
                      f" = {sum(widths)}. mjlab's metadata carries no scale, clip or history, "
                      "so they are taken as 1, none and none only when the widths agree; a "
                      "history (or a term of another width) is not in the metadata to follow")
    if outputs != n:
        raise Refused(f"the network gives {outputs} actions; metadata joint_names has {n} joints")
    return {
        "model": model_name,
        "rate_hz": float(rate_hz),
        "joints": names,
        "default_pose": default_pose,
        "action_scale": action_scale,
        "kp": kp,
        "kd": kd,
        "observation": terms,
    }
