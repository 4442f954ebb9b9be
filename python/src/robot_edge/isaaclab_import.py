"""Isaac Lab exports (unitree_rl_lab's `params/deploy.yaml` beside `exported/policy.onnx`) read as
the exporter wrote them, into robot-edged's `policy:` section.

The semantics are those of unitree_rl_lab's own deploy loop (deploy/include/isaaclab/...), which
this module follows term by term:

- joint_ids_map[i] is the robot (SDK) index of the policy's joint i: the network's joint order.
  `stiffness` and `damping` are in SDK order; `default_joint_pos`, the action's `scale` and
  `offset` and every per-joint observation are in the policy's order.
- each observation term is computed, clipped to its `clip` [lo, hi] (before the scale), scaled,
  and kept for `history_length` steps; the input is term by term, each term's history oldest
  first (robot-edged's history_layout: term_major; a per-term `history` when the terms' lengths
  differ).
- velocity_commands is the command, clamped to commands.base_velocity.ranges.
- the action is raw × scale + offset per joint (robot-edged's action_offset when the offset is
  not default_joint_pos); last_action is the raw network output.
- the policy runs every step_dt seconds.

Anything else an export declares is refused, naming it: robot-edged never guesses a term.
Pure functions of their inputs (no torch): the caller loads the files.
"""
import math

# What robot-edged computes for each Isaac Lab observation term, and how many values it gives
# (n: one per policy joint).
TERMS = {
    "base_ang_vel": ("base_ang_vel", 3),
    "projected_gravity": ("projected_gravity", 3),
    "velocity_commands": ("command", 3),
    "joint_pos_rel": ("joint_pos", "n"),
    "joint_vel_rel": ("joint_vel", "n"),
    "last_action": ("last_action", "n"),
    "gait_phase": ("phase", 2),
}

# Terms a real robot cannot measure: refused with the reason, never fed a made-up value.
UNMEASURABLE = {
    "base_lin_vel": "the base's linear velocity, which the simulator gave the policy in "
                    "training; a robot measures no such thing (no estimator in robot-edged)",
    "root_lin_vel_w": "the base's linear velocity in the world frame, from the simulator",
    "base_pos_z": "the base's height, from the simulator",
    "height_scan": "a height scan of the terrain, which needs a ray caster the robot does not have",
    "root_pos_w": "the base's position in the world, from the simulator",
}

TOP_LEVEL = {"joint_ids_map", "step_dt", "stiffness", "damping", "default_joint_pos", "commands",
             "actions", "observations"}
TERM_KEYS = {"params", "clip", "scale", "history_length"}
ACTION_KEYS = {"clip", "joint_names", "scale", "offset", "joint_ids"}


class Refused(Exception):
    """The export declares something robot-edged does not implement (the message names it)."""


def load_deploy(text):
    """Parses deploy.yaml as unitree_rl_lab's exporter writes it: PyYAML's `python/object/apply:
    builtins.slice` tags (joint_ids: all joints) become slice objects; no other Python tag is
    constructed (a safe loader)."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    def make_slice(loader, node):
        args = loader.construct_sequence(node)
        if len(args) != 3 or not all(a is None or isinstance(a, int) for a in args):
            raise Refused(f"a slice tag with arguments {args!r}")
        return slice(*args)

    Loader.add_constructor("tag:yaml.org,2002:python/object/apply:builtins.slice", make_slice)
    data = yaml.load(text, Loader=Loader)  # noqa: S506: the loader above is a SafeLoader
    if not isinstance(data, dict):
        raise Refused("deploy.yaml is not a mapping")
    return data


def _numbers(value, n, what):
    """`value` as n floats: a list of n, or one number for all."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [float(value)] * n
    if not isinstance(value, list) or len(value) != n:
        count = len(value) if isinstance(value, list) else "not a list of"
        raise Refused(f"{what} has {count} values; {n} expected")
    out = [float(v) for v in value]
    if not all(math.isfinite(v) for v in out):
        raise Refused(f"{what} has a value that is not finite")
    return out


def _uniform(values):
    """One number when all are equal (the section reads shorter), else the list."""
    return values[0] if values and all(v == values[0] for v in values) else values


def _range(value, what):
    if (not isinstance(value, list) or len(value) != 2 or
            not all(isinstance(v, (int, float)) for v in value) or value[0] > value[1]):
        raise Refused(f"{what} is {value!r}, not [low, high]")
    return [float(value[0]), float(value[1])]


def policy_joints(deploy, sdk_names):
    """The policy's joints in its order: sdk_names[joint_ids_map[i]]."""
    ids = deploy.get("joint_ids_map")
    if not isinstance(ids, list) or not ids:
        raise Refused("joint_ids_map is missing or empty")
    out = []
    for i, v in enumerate(ids):
        if float(v) != int(v) or not 0 <= int(v) < len(sdk_names):
            raise Refused(f"joint_ids_map[{i}] is {v}: the robot has {len(sdk_names)} joints "
                          "(--mjcf or --joints, in SDK order)")
        out.append(sdk_names[int(v)])
    if len(set(out)) != len(out):
        raise Refused("joint_ids_map names a joint twice")
    return [int(v) for v in ids], out


def _action(deploy, n, default_pose):
    actions = deploy.get("actions") or {}
    if list(actions) != ["JointPositionAction"]:
        raise Refused(f"actions {list(actions)}: robot-edged implements one JointPositionAction")
    a = actions["JointPositionAction"] or {}
    for key in a:
        if key not in ACTION_KEYS:
            raise Refused(f"actions.JointPositionAction.{key} is not implemented")
    if a.get("clip") is not None:
        raise Refused("actions.JointPositionAction.clip (per-joint bounds on the target) is not "
                      "implemented: robot-edged clamps targets to each joint's limits")
    if a.get("joint_names", [".*"]) != [".*"]:
        raise Refused(f"actions.JointPositionAction.joint_names {a['joint_names']}: only all "
                      "joints ([.*]) is implemented")
    ids = a.get("joint_ids", slice(None))
    if not (isinstance(ids, slice) and ids == slice(None, None, None)):
        raise Refused(f"actions.JointPositionAction.joint_ids {ids!r}: only all joints is "
                      "implemented")
    scale = _numbers(a.get("scale", 1.0), n, "actions.JointPositionAction.scale")
    offset = _numbers(a.get("offset", 0.0), n, "actions.JointPositionAction.offset")
    if all(abs(o - d) <= 1e-6 for o, d in zip(offset, default_pose)):
        return scale, None  # robot-edged's default: the action is offset by default_pose
    return scale, offset


def _command_clip(deploy):
    commands = deploy.get("commands") or {}
    if set(commands) - {"base_velocity"}:
        raise Refused(f"commands {sorted(set(commands) - {'base_velocity'})}: robot-edged gives "
                      "the policy one command, base_velocity")
    ranges = ((commands.get("base_velocity") or {}).get("ranges")) or {}
    for key in ranges:
        if key not in ("lin_vel_x", "lin_vel_y", "ang_vel_z", "heading"):
            raise Refused(f"commands.base_velocity.ranges.{key} is not implemented")
    if ranges.get("heading") is not None:
        raise Refused("commands.base_velocity.ranges.heading (a heading command) is not "
                      "implemented: robot-edged commands a yaw rate")
    if not all(k in ranges for k in ("lin_vel_x", "lin_vel_y", "ang_vel_z")):
        return None
    return [_range(ranges[k], f"commands.base_velocity.ranges.{k}")
            for k in ("lin_vel_x", "lin_vel_y", "ang_vel_z")]


def _term(name, cfg, n, command_clip):
    if name in UNMEASURABLE:
        raise Refused(f"observation {name}: {UNMEASURABLE[name]}")
    if name not in TERMS:
        raise Refused(f"observation {name} is not implemented (robot-edged's terms: "
                      f"{', '.join(TERMS)})")
    cfg = cfg or {}
    for key in cfg:
        if key not in TERM_KEYS:
            raise Refused(f"observations.{name}.{key} is not implemented")
    ours, size = TERMS[name]
    size = n if size == "n" else size
    params = cfg.get("params") or {}
    term = {"term": ours}
    if name == "velocity_commands":
        if params.get("command_name", "base_velocity") != "base_velocity":
            raise Refused(f"observations.velocity_commands reads command "
                          f"{params['command_name']}, not base_velocity")
    elif name == "gait_phase":
        if set(params) != {"period"}:
            raise Refused(f"observations.gait_phase.params {sorted(params)}: period expected")
        term["period_s"] = float(params["period"])
    elif params:
        raise Refused(f"observations.{name}.params {sorted(params)} are not implemented")
    scale = _numbers(cfg.get("scale", 1.0) if cfg.get("scale") is not None else 1.0, size,
                     f"observations.{name}.scale")
    if any(s != 1.0 for s in scale):
        term["scale"] = _uniform(scale)
    clip = cfg.get("clip")
    if clip is not None:
        term["clip"] = _range(clip, f"observations.{name}.clip")
    if name == "velocity_commands" and command_clip is not None:
        if clip is not None:
            raise Refused("observations.velocity_commands has a clip and the command ranges: "
                          "robot-edged applies one")
        term["clip"] = command_clip
    history = cfg.get("history_length", 1)
    if not isinstance(history, int) or history < 1:
        raise Refused(f"observations.{name}.history_length is {history!r}")
    return term, size, history


def section(deploy, sdk_names, model_name, onnx_io=None):
    """The `policy:` section robot-edged runs the export with. `sdk_names`: the robot's joints in
    SDK order (the model's actuated joints in document order). `onnx_io`: (inputs, outputs) of
    the network, checked against what the export declares. Raises Refused."""
    for key in deploy:
        if key not in TOP_LEVEL:
            raise Refused(f"deploy.yaml's {key} is not implemented")
    ids, names = policy_joints(deploy, sdk_names)
    n = len(names)
    step_dt = deploy.get("step_dt")
    if not isinstance(step_dt, (int, float)) or step_dt <= 0:
        raise Refused(f"step_dt is {step_dt!r}")
    default_pose = _numbers(deploy.get("default_joint_pos"), n, "default_joint_pos")
    gains = {}
    for key in ("stiffness", "damping"):
        sdk = _numbers(deploy.get(key), len(sdk_names), f"{key} (SDK order)")
        outside = [sdk_names[k] for k in range(len(sdk_names)) if k not in ids]
        if outside:
            raise Refused(f"{key} covers {', '.join(outside)}, outside the policy: joints outside "
                          "a policy hold their stand pose with the config's gains")
        gains[key] = [sdk[k] for k in ids]
    action_scale, action_offset = _action(deploy, n, default_pose)
    command_clip = _command_clip(deploy)
    observations = deploy.get("observations")
    if not isinstance(observations, dict) or not observations:
        raise Refused("observations is missing or empty")
    terms, sizes, histories = [], [], []
    for name, cfg in observations.items():
        term, size, history = _term(name, cfg, n, command_clip)
        terms.append(term)
        sizes.append(size)
        histories.append(history)
    uniform = len(set(histories)) == 1
    if onnx_io is not None:
        inputs, outputs = onnx_io
        if uniform and inputs != sum(sizes) * histories[0]:
            raise Refused(f"the network takes {inputs} inputs; the export declares {sum(sizes)} "
                          f"values × history {histories[0]} = {sum(sizes) * histories[0]}")
        declared = sum(s * h for s, h in zip(sizes, histories))
        if not uniform and inputs != declared:
            raise Refused(f"the network takes {inputs} inputs; the export declares " +
                          " + ".join(f"{s} × {h}" for s, h in zip(sizes, histories)) +
                          f" (values × history_length per term) = {declared}")
        if outputs != n:
            raise Refused(f"the network gives {outputs} actions; joint_ids_map has {n} joints")
    out = {
        "model": model_name,
        "rate_hz": round(1.0 / float(step_dt), 6),
        "joints": names,
        "default_pose": default_pose,
        "action_scale": _uniform(action_scale),
    }
    if action_offset is not None:  # rad per policy joint; robot-edged's default is default_pose
        out["action_offset"] = action_offset
    out.update(kp=gains["stiffness"], kd=gains["damping"], observation=terms)
    if not uniform:  # each term its own history, stacked term by term
        for term, history in zip(terms, histories):
            term["history"] = history
        out["history_layout"] = "term_major"
    elif histories[0] > 1:
        out["history"] = histories[0]
        out["history_layout"] = "term_major"
    return out
