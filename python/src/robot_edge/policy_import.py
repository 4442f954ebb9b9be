"""robot-edge-policy import: a legged_gym / rsl_rl TorchScript actor to ONNX and a `policy:` section.

    robot-edge-policy import ACTOR.pt [--deploy DEPLOY.yaml] [--joints A,B,... | --mjcf MODEL.xml]
                                      [--config CONFIG.yaml] --out POLICY.onnx [--yaml POLICY.yaml]
                                      [--steps 20]
    robot-edge-policy import exported/policy.onnx --deploy params/deploy.yaml
                                      (--mjcf MODEL.xml | --joints SDK,ORDER,...)
                                      [--config CONFIG.yaml] --out POLICY.onnx [--yaml POLICY.yaml]
    robot-edge-policy import RUN.onnx [--mjlab] --rate-hz 50 [--config CONFIG.yaml]
                                      --out POLICY.onnx [--yaml POLICY.yaml]

An Isaac Lab export (unitree_rl_lab's exported/policy.onnx and params/deploy.yaml) is read by
robot_edge.isaaclab_import, an mjlab export (the ONNX with mjlab's metadata_props: --mjlab, or
found when the model carries joint_names and observation_names and no --deploy is given) by
robot_edge.mjlab_import: the network is kept as it is, with the robot_edge.* metadata added.

ACTOR.pt is what rsl_rl's / unitree_rl_gym's `export_policy_as_jit` writes: either the actor MLP
itself (a scripted `Sequential` of Linear and activation layers), or `PolicyExporterLSTM`: an LSTM
`memory` (its state kept in the module's buffers `hidden_state` / `cell_state`) feeding the actor
MLP. The LSTM is re-created as a module with its state as explicit inputs and outputs
(`h_in`, `c_in` -> `h_out`, `c_out`, the names robot-edged pairs by default), the weights are
copied, and it is exported with torch.onnx (opset 13). The ONNX is then evaluated step by step
(an evaluator of its own, in numpy, over the graph torch wrote) beside the TorchScript module,
the state carried through both; a difference above 1e-4 refuses the import.

The deploy yaml (unitree_rl_gym's deploy/deploy_mujoco/configs/*.yaml) gives the gains, default
pose, scales, rate and the observation (legged_gym's, with unitree_rl_gym's gait clock when
num_obs says so). Joint names: the deploy yaml's `joint_names` when it has them, else --joints
(the training order), else --mjcf (the model's hinge / slide joints in document order: legged_gym's
dof order), else the config's `policy.joints`. With --config each name
must be a config joint, or a model name that the config's `sim.joint_names` maps to one; any that
is not is named and the import refused.

The ONNX carries the section's values as metadata_props (robot_edge.joint_names, ...).

Needs torch (Debian: python3-torch), numpy, PyYAML and onnx; the robot_edge client does not.
"""
import argparse
import json
import math
import sys

TOLERANCE = 1e-4
GAIT_PERIOD_S = 0.8  # unitree_rl_gym's gait clock (legged_gym/envs/*/_env.py, deploy_mujoco.py)


class ImportError_(Exception):
    """A refusal: printed as `robot-edge-policy import: <message>`, exit status 1."""


# ---------------------------------------------------------------------------------------------
# TorchScript actor -> an equivalent nn.Module with explicit state


def _activation(torch, scripted):
    kind = scripted.original_name
    if kind == "ELU":
        return torch.nn.ELU(alpha=float(getattr(scripted, "alpha", 1.0)))
    if kind == "ReLU":
        return torch.nn.ReLU()
    if kind == "Tanh":
        return torch.nn.Tanh()
    if kind == "Sigmoid":
        return torch.nn.Sigmoid()
    if kind == "LeakyReLU":
        return torch.nn.LeakyReLU(float(getattr(scripted, "negative_slope", 0.01)))
    if kind == "Identity":
        return torch.nn.Identity()
    raise ImportError_(f"actor layer {kind} is not supported (Linear, ELU, ReLU, Tanh, Sigmoid, "
                       "LeakyReLU, Identity)")


def _mlp(torch, scripted):
    layers = []
    for name, child in scripted.named_children():
        if child.original_name == "Linear":
            w = child.weight.detach()
            bias = getattr(child, "bias", None)
            lin = torch.nn.Linear(w.shape[1], w.shape[0], bias=bias is not None)
            with torch.no_grad():
                lin.weight.copy_(w)
                if bias is not None:
                    lin.bias.copy_(bias.detach())
            layers.append(lin)
        else:
            layers.append(_activation(torch, child))
    if not layers:
        raise ImportError_("the actor has no layers")
    return torch.nn.Sequential(*layers)


def rebuild(torch, scripted):
    """Returns (module, kind, obs_size, state_shapes): module(obs, *states) -> (action, *states)."""
    children = dict(scripted.named_children())
    if "memory" in children:
        mem = children["memory"]
        kind = mem.original_name
        if kind not in ("LSTM", "GRU"):
            raise ImportError_(f"memory is a {kind}: only LSTM and GRU are supported")
        if "actor" not in children:
            raise ImportError_("a recurrent actor without an `actor` MLP")
        params = dict(mem.named_parameters())
        layers = sum(1 for k in params if k.startswith("weight_ih_l"))
        if any(k.endswith("_reverse") for k in params):
            raise ImportError_("a bidirectional memory is not supported")
        w_ih = params["weight_ih_l0"]
        gates = 4 if kind == "LSTM" else 3
        hidden = w_ih.shape[0] // gates
        inputs = w_ih.shape[1]
        has_bias = "bias_ih_l0" in params
        rnn_cls = torch.nn.LSTM if kind == "LSTM" else torch.nn.GRU
        rnn = rnn_cls(inputs, hidden, num_layers=layers, bias=has_bias)
        rnn.load_state_dict({k: v.detach() for k, v in params.items()})
        actor = _mlp(torch, children["actor"])
        lstm = kind == "LSTM"

        class Recurrent(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.memory = rnn
                self.actor = actor

            def forward(self, obs, h_in, c_in=None):
                if lstm:
                    out, (h, c) = self.memory(obs.unsqueeze(0), (h_in, c_in))
                    return self.actor(out.squeeze(0)), h, c
                out, h = self.memory(obs.unsqueeze(0), h_in)
                return self.actor(out.squeeze(0)), h

        shapes = [(layers, 1, hidden)] * (2 if lstm else 1)
        return Recurrent().eval(), kind, inputs, shapes
    if scripted.original_name != "Sequential":
        raise ImportError_(f"{scripted.original_name} is neither an rsl_rl actor MLP (Sequential) "
                           "nor PolicyExporterLSTM (memory + actor)")
    mlp = _mlp(torch, scripted).eval()
    first = next(m for m in mlp if isinstance(m, torch.nn.Linear))
    return mlp, "MLP", first.in_features, []


# ---------------------------------------------------------------------------------------------
# A small ONNX evaluator (numpy) for what torch exports of these actors


def _attr(node, name, default=None):
    import onnx
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def _sigmoid(np, x):
    return 1.0 / (1.0 + np.exp(-x))


def evaluate_onnx(model, feeds):
    import numpy as np
    from onnx import numpy_helper
    values = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in model.graph.initializer}
    values.update({k: np.asarray(v, dtype=np.float64) for k, v in feeds.items()})
    for node in model.graph.node:
        ins = [values[i] if i else None for i in node.input]
        op = node.op_type
        if op == "Constant":
            out = [numpy_helper.to_array(_attr(node, "value"))]
        elif op == "Identity":
            out = [ins[0]]
        elif op == "Unsqueeze":
            axes = ins[1] if len(ins) > 1 else _attr(node, "axes")
            x = ins[0]
            for ax in sorted(int(a) for a in np.atleast_1d(axes)):
                x = np.expand_dims(x, ax if ax >= 0 else ax + x.ndim + 1)
            out = [x]
        elif op == "Squeeze":
            axes = ins[1] if len(ins) > 1 and ins[1] is not None else _attr(node, "axes")
            out = [np.squeeze(ins[0], axis=tuple(int(a) for a in np.atleast_1d(axes))
                              if axes is not None else None)]
        elif op == "Gemm":
            a, b = ins[0], ins[1]
            if _attr(node, "transA", 0):
                a = a.T
            if _attr(node, "transB", 0):
                b = b.T
            y = _attr(node, "alpha", 1.0) * (a @ b)
            if len(ins) > 2 and ins[2] is not None:
                y = y + _attr(node, "beta", 1.0) * ins[2]
            out = [y]
        elif op == "MatMul":
            out = [ins[0] @ ins[1]]
        elif op in ("Add", "Sub", "Mul", "Div"):
            f = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide}[op]
            out = [f(ins[0], ins[1])]
        elif op == "Elu":
            alpha = _attr(node, "alpha", 1.0)
            x = ins[0]
            out = [np.where(x > 0, x, alpha * (np.exp(np.minimum(x, 0)) - 1))]
        elif op == "Relu":
            out = [np.maximum(ins[0], 0)]
        elif op == "LeakyRelu":
            out = [np.where(ins[0] > 0, ins[0], _attr(node, "alpha", 0.01) * ins[0])]
        elif op == "Tanh":
            out = [np.tanh(ins[0])]
        elif op == "Sigmoid":
            out = [_sigmoid(np, ins[0])]
        elif op == "LSTM":
            out = _lstm(np, node, ins)
        elif op == "GRU":
            out = _gru(np, node, ins)
        else:
            raise ImportError_(f"the exported graph has operator {op}, which the check's "
                               "evaluator does not know")
        for name, v in zip(node.output, out):
            if name:
                values[name] = v
    return {o.name: values[o.name] for o in model.graph.output}


def _lstm(np, node, ins):
    x, w, r = ins[0], ins[1][0], ins[2][0]
    hidden = w.shape[0] // 4
    b = ins[3][0] if len(ins) > 3 and ins[3] is not None else np.zeros(8 * hidden)
    h = ins[5][0] if len(ins) > 5 and ins[5] is not None else np.zeros((x.shape[1], hidden))
    c = ins[6][0] if len(ins) > 6 and ins[6] is not None else np.zeros((x.shape[1], hidden))
    ys = []
    for t in range(x.shape[0]):
        g = x[t] @ w.T + h @ r.T + b[:4 * hidden] + b[4 * hidden:]
        i, o, f, cc = (g[:, k * hidden:(k + 1) * hidden] for k in range(4))  # ONNX: i o f c
        c = _sigmoid(np, f) * c + _sigmoid(np, i) * np.tanh(cc)
        h = _sigmoid(np, o) * np.tanh(c)
        ys.append(h)
    return [np.stack(ys)[:, None], h[None], c[None]]


def _gru(np, node, ins):
    x, w, r = ins[0], ins[1][0], ins[2][0]
    hidden = w.shape[0] // 3
    b = ins[3][0] if len(ins) > 3 and ins[3] is not None else np.zeros(6 * hidden)
    h = ins[5][0] if len(ins) > 5 and ins[5] is not None else np.zeros((x.shape[1], hidden))
    lbr = _attr(node, "linear_before_reset", 0)
    wb, rb = b[:3 * hidden], b[3 * hidden:]
    sl = [slice(k * hidden, (k + 1) * hidden) for k in range(3)]  # ONNX: z r h
    ys = []
    for t in range(x.shape[0]):
        xw = x[t] @ w.T + wb
        z = _sigmoid(np, xw[:, sl[0]] + h @ r[sl[0]].T + rb[sl[0]])
        rr = _sigmoid(np, xw[:, sl[1]] + h @ r[sl[1]].T + rb[sl[1]])
        if lbr:
            n = np.tanh(xw[:, sl[2]] + rr * (h @ r[sl[2]].T + rb[sl[2]]))
        else:
            n = np.tanh(xw[:, sl[2]] + (rr * h) @ r[sl[2]].T + rb[sl[2]])
        h = (1 - z) * n + z * h
        ys.append(h)
    return [np.stack(ys)[:, None], h[None]]


# ---------------------------------------------------------------------------------------------
# Export and the step-by-step check


def export(torch, module, kind, obs_size, shapes, path):
    dummy = [torch.zeros(1, obs_size)] + [torch.zeros(*s) for s in shapes]
    state_in = ["h_in", "c_in"][:len(shapes)]
    state_out = ["h_out", "c_out"][:len(shapes)]
    torch.onnx.export(module, tuple(dummy), path, input_names=["obs"] + state_in,
                      output_names=["actions"] + state_out, opset_version=13,
                      do_constant_folding=True)
    return state_in, state_out


def check_steps(torch, scripted, onnx_model, obs_size, shapes, steps, seed=0):
    """Runs `steps` observations through the TorchScript module (its own buffers carrying the
    state) and the ONNX (the state fed back). Returns the largest difference seen, with the step and
    output where it happened."""
    import numpy as np
    gen = torch.Generator().manual_seed(seed)
    for name in ("hidden_state", "cell_state"):  # export_policy_as_jit's reset(): zeros
        buf = getattr(scripted, name, None)
        if buf is not None:
            with torch.no_grad():
                buf.zero_()
    state = {n: np.zeros(s) for n, s in zip(["h_in", "c_in"], shapes)}
    worst = (0.0, 0, "actions")
    for step in range(steps):
        obs = torch.randn(1, obs_size, generator=gen)
        with torch.no_grad():
            expected = scripted(obs).numpy().astype(np.float64)
        out = evaluate_onnx(onnx_model, dict(obs=obs.numpy(), **state))
        diff = float(np.max(np.abs(out["actions"].reshape(expected.shape) - expected)))
        if not math.isfinite(diff):
            diff = math.inf
        if diff > worst[0]:
            worst = (diff, step, "actions")
        for i, o in (("h_in", "h_out"), ("c_in", "c_out")):
            if i in state:
                state[i] = out[o]
        if shapes:  # the TorchScript module's own state against the ONNX's
            for buf_name, o in (("hidden_state", "h_out"), ("cell_state", "c_out")):
                if o in out and getattr(scripted, buf_name, None) is not None:
                    d = float(np.max(np.abs(getattr(scripted, buf_name).numpy() - out[o])))
                    if d > worst[0]:
                        worst = (d, step, o)
    return worst


# ---------------------------------------------------------------------------------------------
# The policy: section


def _load_yaml(path):
    import yaml
    with open(path) as f:
        return yaml.safe_load(f) or {}


def _per_joint(value, n, what):
    if isinstance(value, (int, float)):
        return [float(value)] * n
    if len(value) != n:
        raise ImportError_(f"{what} has {len(value)} values for {n} joints")
    return [float(v) for v in value]


def mjcf_joints(path):
    """The model's hinge and slide joints in document order: legged_gym's dof order."""
    import xml.etree.ElementTree as ET
    root = ET.parse(path).getroot()
    defaults = {}
    for d in root.iter("default"):
        j = d.find("joint")
        if j is not None and "type" in j.attrib:
            defaults[d.get("class", "main")] = j.get("type")
    names = []
    for j in root.iter("joint"):
        if j.get("name") is None:  # <default> joints have none
            continue
        kind = j.get("type") or defaults.get(j.get("class", "main"), "hinge")
        if kind in ("hinge", "slide"):
            names.append(j.get("name"))
    if not names:
        raise ImportError_(f"{path}: no named hinge or slide joints")
    return names


def joint_names(deploy, joints_option, config, n, mjcf=None):
    if deploy and (deploy.get("joint_names") or deploy.get("dof_names")):
        names, source = list(deploy.get("joint_names") or deploy.get("dof_names")), "the deploy yaml"
    elif joints_option:
        names, source = [j.strip() for j in joints_option.split(",") if j.strip()], "--joints"
    elif mjcf:
        names, source = mjcf_joints(mjcf), f"{mjcf}'s joints"
    elif config and (config.get("policy") or {}).get("joints"):
        names, source = list(config["policy"]["joints"]), "the config's policy.joints"
    else:
        raise ImportError_(f"the actor drives {n} joints but nothing names them: the deploy yaml "
                           "has no joint_names, so give --joints (the training order), --mjcf "
                           "(the model it was trained on) or a --config with policy.joints")
    if len(names) != n:
        raise ImportError_(f"{source} names {len(names)} joints; the actor outputs {n} actions")
    if not config:
        return names
    config_joints = [j["name"] for j in config.get("joints") or []]
    by_model = {}
    for cj, mj in ((config.get("sim") or {}).get("joint_names") or {}).items():
        by_model[mj] = cj
    mapped, unmapped = [], []
    for name in names:
        if name in config_joints:
            mapped.append(name)
        elif name in by_model:
            mapped.append(by_model[name])
        else:
            unmapped.append(name)
    if unmapped:
        raise ImportError_(f"{len(unmapped)} of the policy's joints are not config joints (nor "
                           f"mapped by its sim.joint_names): {', '.join(unmapped)}")
    return mapped


def policy_section(deploy, names, obs_size, config, model_name, state_names):
    n = len(names)
    d = deploy or {}
    stand = {}
    gains = {}
    for j in (config or {}).get("joints") or []:
        stand[j["name"]] = j.get("stand")
        gains[j["name"]] = (j.get("kp"), j.get("kd"))

    def need(key, fallback, what):
        if key in d:
            return d[key]
        if fallback is not None and all(v is not None for v in fallback):
            return fallback
        raise ImportError_(f"{what}: the deploy yaml has no {key} and no config gives it")

    default_pose = _per_joint(need("default_angles", [stand.get(j) for j in names], "default pose"),
                              n, "default_angles")
    kp = _per_joint(need("kps", [gains.get(j, (None, None))[0] for j in names], "kp"), n, "kps")
    kd = _per_joint(need("kds", [gains.get(j, (None, None))[1] for j in names], "kd"), n, "kds")
    dt = d.get("simulation_dt", 0.005)
    decimation = d.get("control_decimation", 4)  # legged_gym's defaults: 200 Hz, 4 -> 50 Hz
    rate_hz = round(1.0 / (dt * decimation), 6)
    observation = [
        {"term": "base_ang_vel", "scale": float(d.get("ang_vel_scale", 0.25))},
        {"term": "projected_gravity"},
        {"term": "command", "scale": [float(v) for v in d.get("cmd_scale", [2.0, 2.0, 0.25])]},
        {"term": "joint_pos", "scale": float(d.get("dof_pos_scale", 1.0))},
        {"term": "joint_vel", "scale": float(d.get("dof_vel_scale", 0.05))},
        {"term": "last_action"},
    ]
    base = 9 + 3 * n
    num_obs = int(d.get("num_obs", obs_size))
    if num_obs != obs_size:
        raise ImportError_(f"the deploy yaml's num_obs is {num_obs}; the actor takes {obs_size}")
    if obs_size == base + 2:
        observation.append({"term": "phase", "period_s": GAIT_PERIOD_S})
    elif obs_size != base:
        raise ImportError_(f"the actor takes {obs_size} observations; legged_gym's for {n} joints "
                           f"is {base} (or {base + 2} with unitree_rl_gym's gait clock)")
    section = {
        "model": model_name,
        "rate_hz": rate_hz,
        "joints": names,
        "default_pose": default_pose,
        "action_scale": float(d.get("action_scale", 0.25)),
        "kp": kp,
        "kd": kd,
        "observation": observation,
    }
    if state_names:
        section["recurrent_state"] = dict(state_names)
    return section


def metadata(section):
    out = {
        "robot_edge.joint_names": json.dumps(section["joints"]),
        "robot_edge.default_pose": json.dumps(section["default_pose"]),
        "robot_edge.kp": json.dumps(section["kp"]),
        "robot_edge.kd": json.dumps(section["kd"]),
        "robot_edge.action_scale": json.dumps(section["action_scale"]),
        "robot_edge.observation": json.dumps(section["observation"]),
        "robot_edge.rate_hz": json.dumps(section["rate_hz"]),
    }
    if "action_offset" in section:
        out["robot_edge.action_offset"] = json.dumps(section["action_offset"])
    return out


def describe_history(section):
    """`history N` for the stderr summary, or `per-term history [..]`."""
    per_term = [t["history"] for t in section["observation"] if "history" in t]
    if per_term:
        return f"per-term history {per_term}"
    return f"history {section.get('history', 1)}"


def dump_section(section):
    import yaml

    class Flow(yaml.SafeDumper):
        pass

    def seq(dumper, data):
        flow = all(not isinstance(v, (dict, list)) for v in data)
        return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow)

    def mapping(dumper, data):
        flow = all(not isinstance(v, (dict, list)) or isinstance(v, list) and len(v) <= 3
                   for v in data.values()) and len(data) <= 3
        return dumper.represent_mapping("tag:yaml.org,2002:map", data, flow_style=flow)

    Flow.add_representer(list, seq)
    Flow.add_representer(dict, mapping)
    return yaml.dump({"policy": section}, Dumper=Flow, sort_keys=False, width=100)


def onnx_io_sizes(model):
    """(inputs, outputs) of a network with one input and one output of static shape [1, k]."""
    def size(values, what):
        if len(values) != 1:
            raise ImportError_(f"the network has {len(values)} {what}s; one expected")
        dims = [d.dim_value for d in values[0].type.tensor_type.shape.dim]
        if not dims or any(d <= 0 for d in dims) or math.prod(dims) != dims[-1]:
            raise ImportError_(f"the network's {what} {values[0].name} has shape {dims}, not "
                               "[1, k]")
        return dims[-1]
    initializers = {t.name for t in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in initializers]
    return size(inputs, "input"), size(list(model.graph.output), "output")


def write_outputs(onnx, model, section, args):
    """Saves the model at args.out with the section's robot_edge.* metadata (replacing any it had;
    the exporter's own entries stay) and writes the section to args.yaml, or stdout."""
    kept = [(p.key, p.value) for p in model.metadata_props if not p.key.startswith("robot_edge.")]
    del model.metadata_props[:]
    for k, v in kept + list(metadata(section).items()):
        entry = model.metadata_props.add()
        entry.key, entry.value = k, v
    onnx.save(model, args.out)
    text = dump_section(section)
    if args.yaml:
        with open(args.yaml, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


def run_onnx_import(args):
    """An ONNX export: mjlab's (its metadata: --mjlab, or found with no --deploy given) or Isaac
    Lab's (--deploy params/deploy.yaml)."""
    try:
        import onnx
        import yaml  # noqa: F401
    except ImportError as e:
        raise ImportError_(f"needs {e.name} (Debian: python3-onnx, python3-yaml)")
    try:
        model = onnx.load(args.actor)
    except Exception as e:  # noqa: BLE001: onnx raises several kinds
        raise ImportError_(f"{args.actor}: not an ONNX model ({str(e).splitlines()[0]})")
    from robot_edge import mjlab_import
    meta = {p.key: p.value for p in model.metadata_props}
    if args.mjlab and args.deploy:
        raise ImportError_("--mjlab reads the model's own metadata; --deploy is Isaac Lab's "
                           "deploy.yaml: give one")
    if args.mjlab or (not args.deploy and mjlab_import.is_mjlab(meta)):
        return run_mjlab_import(args, onnx, model, meta)
    if args.rate_hz is not None:
        raise ImportError_("--rate-hz is for an mjlab export (its metadata has no rate); an "
                           "Isaac Lab export's rate is its deploy.yaml's step_dt")
    return run_isaaclab_import(args, onnx, model)


def run_mjlab_import(args, onnx, model, meta):
    """POLICY.onnx as mjlab's velocity runner exports it: the section from its metadata
    (robot_edge.mjlab_import), --rate-hz, and --config to map the joint names."""
    from robot_edge import isaaclab_import, mjlab_import
    import os
    if args.joints or args.mjcf:
        raise ImportError_("an mjlab export names its joints (metadata joint_names): --joints and "
                           "--mjcf do not apply; --config maps them to a config's joints")
    try:
        sec = mjlab_import.section(meta, os.path.basename(args.out), args.rate_hz,
                                   onnx_io_sizes(model))
    except isaaclab_import.Refused as e:
        raise ImportError_(f"{args.actor}: {e}")
    config = _load_yaml(args.config) if args.config else None
    if config:
        sec["joints"] = joint_names(None, ",".join(sec["joints"]), config, len(sec["joints"]))
    write_outputs(onnx, model, sec, args)
    run = f" (run {meta['run_path']})" if meta.get("run_path") else ""
    sys.stderr.write(f"robot-edge-policy import: mjlab export{run}, {len(sec['joints'])} joints "
                     f"at {sec['rate_hz']:g} Hz, {len(sec['observation'])} observation terms; "
                     f"wrote {args.out}\n")
    return 0


def run_isaaclab_import(args, onnx, model):
    """POLICY.onnx + --deploy params/deploy.yaml (unitree_rl_lab / Isaac Lab): the network is
    copied with robot_edge.* metadata added; the section follows robot_edge.isaaclab_import."""
    from robot_edge import isaaclab_import
    if not args.deploy:
        raise ImportError_(f"{args.actor}: an Isaac Lab export needs its params/deploy.yaml "
                           "(--deploy); an mjlab export carries its metadata (--mjlab), and "
                           "this one has no joint_names and observation_names")
    if args.joints:
        sdk = [j.strip() for j in args.joints.split(",") if j.strip()]
    elif args.mjcf:
        sdk = mjcf_joints(args.mjcf)
    else:
        raise ImportError_("joint_ids_map indexes the robot's joints in SDK order: give --mjcf "
                           "(the robot's model: its joints in document order) or --joints")
    with open(args.deploy) as f:
        text = f.read()
    import os
    try:
        deploy = isaaclab_import.load_deploy(text)
        sec = isaaclab_import.section(deploy, sdk, os.path.basename(args.out),
                                      onnx_io_sizes(model))
    except isaaclab_import.Refused as e:
        raise ImportError_(f"{args.deploy}: {e}")
    except Exception as e:  # noqa: BLE001: a YAML error
        raise ImportError_(f"{args.deploy}: {str(e).splitlines()[0]}")
    config = _load_yaml(args.config) if args.config else None
    if config:
        sec["joints"] = joint_names(None, ",".join(sec["joints"]), config, len(sec["joints"]))
    write_outputs(onnx, model, sec, args)
    sys.stderr.write(f"robot-edge-policy import: Isaac Lab export, {len(sec['joints'])} joints at "
                     f"{sec['rate_hz']:g} Hz, {len(sec['observation'])} observation terms × "
                     f"{describe_history(sec)}; wrote {args.out}\n")
    return 0


def run_import(args):
    if args.actor.endswith(".onnx"):
        return run_onnx_import(args)
    if args.mjlab or args.rate_hz is not None:
        raise ImportError_(f"{args.actor}: --mjlab and --rate-hz are for an mjlab export "
                           "(an .onnx with mjlab's metadata)")
    try:
        import torch
        import onnx
        import numpy  # noqa: F401
        import yaml  # noqa: F401
    except ImportError as e:
        raise ImportError_(f"needs {e.name} (Debian: python3-torch, python3-onnx, python3-numpy, "
                           "python3-yaml)")
    try:
        scripted = torch.jit.load(args.actor, map_location="cpu")
    except Exception as e:  # noqa: BLE001: torch raises several kinds
        raise ImportError_(f"{args.actor}: not a TorchScript module ({str(e).splitlines()[0]})")
    scripted.eval()
    module, kind, obs_size, shapes = rebuild(torch, scripted)
    with torch.no_grad():
        probe = module(torch.zeros(1, obs_size), *[torch.zeros(*s) for s in shapes])
    n = (probe[0] if shapes else probe).shape[-1]
    deploy = _load_yaml(args.deploy) if args.deploy else None
    config = _load_yaml(args.config) if args.config else None
    if deploy and "num_actions" in deploy and int(deploy["num_actions"]) != n:
        raise ImportError_(f"the deploy yaml's num_actions is {deploy['num_actions']}; the actor "
                           f"outputs {n}")
    names = joint_names(deploy, args.joints, config, n, args.mjcf)
    import os
    state_in, state_out = export(torch, module, kind, obs_size, shapes, args.out)
    model = onnx.load(args.out)
    worst = check_steps(torch, scripted, model, obs_size, shapes, args.steps)
    if not worst[0] <= TOLERANCE:
        os.remove(args.out)
        raise ImportError_(f"the ONNX differs from the TorchScript module by {worst[0]:.3g} "
                           f"(> {TOLERANCE:g}) in {worst[2]} at step {worst[1] + 1} of "
                           f"{args.steps}; nothing written")
    section = policy_section(deploy, names, obs_size, config, os.path.basename(args.out),
                             dict(zip(state_in, state_out)))
    model.producer_name = "robot-edge-policy import"
    write_outputs(onnx, model, section, args)
    sys.stderr.write(f"robot-edge-policy import: {kind} actor, {obs_size} observations -> {n} "
                     f"actions{', state ' + ', '.join(state_in) if shapes else ''}; ONNX matches "
                     f"the TorchScript module over {args.steps} steps (max |diff| "
                     f"{worst[0]:.2g}); wrote {args.out}\n")
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="robot-edge-policy",
                                     description="Bring trained policies to robot-edged.")
    sub = parser.add_subparsers(dest="command", required=True)
    imp = sub.add_parser("import", help="a legged_gym / rsl_rl TorchScript actor to ONNX and "
                                        "the config's policy: section")
    imp.add_argument("actor", help="TorchScript actor (export_policy_as_jit's policy_1.pt), or "
                                   "an Isaac Lab export's exported/policy.onnx")
    imp.add_argument("--deploy", help="its deploy yaml (unitree_rl_gym deploy_mujoco configs, "
                                      "or unitree_rl_lab's params/deploy.yaml)")
    imp.add_argument("--joints", help="the actions' joint names, comma-separated, in order (for "
                                      "an Isaac Lab export: the robot's joints in SDK order)")
    imp.add_argument("--mjcf", help="the MJCF it was trained on: its joints' order names the "
                                    "actions (legged_gym's dof order)")
    imp.add_argument("--config", help="a robot-edge config whose joints the names must match")
    imp.add_argument("--out", required=True, help="the ONNX to write")
    imp.add_argument("--yaml", help="write the policy: section here (default: stdout)")
    imp.add_argument("--steps", type=int, default=20, help="steps of the check (20)")
    imp.add_argument("--mjlab", action="store_true",
                     help="an mjlab export: read the ONNX's own metadata (the default for an "
                          ".onnx that carries joint_names and observation_names, without --deploy)")
    imp.add_argument("--rate-hz", type=float,
                     help="the control rate an mjlab policy was trained at (its metadata has none)")
    args = parser.parse_args(argv)
    try:
        return run_import(args)
    except ImportError_ as e:
        sys.stderr.write(f"robot-edge-policy import: {e}\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
