#!/usr/bin/python3
"""Builds the recurrent policy fixtures of the policy tests with torch (Debian's python3-torch):
small actors like rsl_rl's recurrent ones (obs -> LSTM/GRU -> Linear -> ELU -> Linear), exported
with torch.onnx.export with their state as inputs and outputs (obs, h_in[, c_in] -> actions,
h_out[, c_out], the names Isaac Lab's exporter gives), and for each the outputs torch computes
over consecutive steps, each step's state fed to the next.

    make_recurrent_fixtures.py DIR      writes DIR/<name>.onnx and DIR/<name>.txt
    make_recurrent_fixtures.py --check  regenerates into a temporary directory and compares with
                                        the checked-in tests/policy/recurrent/ (exit 1 if not
                                        the same)

<name>.txt, one line per value list, floats as %.9g:
    model <name> steps <S>
    step <k>
    obs <floats>
    actions <floats>
    h_out <floats>
    c_out <floats>          (LSTM)

The one model torch cannot export, a GRU with linear_before_reset=0 (torch's GRU is always
linear_before_reset=1), is built with onnx.helper from a torch GRU's weights, and its reference
computed with numpy in float64 from ONNX's formula; its .txt says so in its first line.
Deterministic (fixed seeds).
"""
import filecmp
import io
import os
import sys
import tempfile
import warnings

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

try:
    import torch
except ImportError:  # CTest counts exit code 77 as skipped
    print("make_recurrent_fixtures.py: torch is missing (Debian's python3-torch; scripts/bootstrap"
          " installs it)", file=sys.stderr)
    sys.exit(77)

STEPS = 6
warnings.filterwarnings("ignore")  # torch.onnx's notes on exporting an RNN with batch 1
HERE = os.path.dirname(os.path.abspath(__file__))
CHECKED_IN = os.path.join(HERE, "recurrent")


class RecurrentActor(torch.nn.Module):
    """rsl_rl's recurrent actor, one layer: obs -> rnn -> Linear -> ELU -> Linear."""

    def __init__(self, kind, obs, hidden, mlp, actions, bias=True, seq=1):
        super().__init__()
        self.kind, self.seq = kind, seq
        rnn = torch.nn.LSTM if kind == "lstm" else torch.nn.GRU
        self.rnn = rnn(obs // seq, hidden, bias=bias)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(hidden * seq, mlp), torch.nn.ELU(),
                                       torch.nn.Linear(mlp, actions))

    def forward(self, obs, h, c=None):
        x = obs.reshape(self.seq, 1, -1)  # [seq, batch 1, input]
        if self.kind == "lstm":
            y, (h, c) = self.rnn(x, (h, c))
        else:
            y, h = self.rnn(x, h)
        a = self.mlp(y.reshape(1, -1))
        return (a, h, c) if self.kind == "lstm" else (a, h)


# name: (kind, obs, hidden, mlp, actions, bias, seq)
MODELS = {
    "lstm_mlp": ("lstm", 6, 8, 16, 3, True, 1),
    "lstm_nobias": ("lstm", 6, 8, 16, 3, False, 1),
    "lstm_seq3": ("lstm", 12, 8, 16, 3, True, 3),  # X [3, 1, 4]: three steps per inference
    "gru_mlp": ("gru", 6, 8, 16, 3, True, 1),
    # unitree_rl_gym's H1 actor: obs 41 -> LSTM 64 -> [32] -> 10 actions (bench/micro.cpp too)
    "lstm64_h1": ("lstm", 41, 64, 32, 10, True, 1),
}


def inputs(n, seed):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(1, n, generator=g) * 1.5 for _ in range(STEPS)]


def fmt(name, t):
    return name + " " + " ".join("%.9g" % v for v in np.asarray(t, dtype=np.float32).flatten())


def export(name, spec, out_dir):
    kind, n_obs, hidden, mlp, n_act, bias, seq = spec
    torch.manual_seed(sum(map(ord, name)))
    actor = RecurrentActor(kind, n_obs, hidden, mlp, n_act, bias, seq).eval()
    lstm = kind == "lstm"
    h = torch.zeros(1, 1, hidden)
    c = torch.zeros(1, 1, hidden)
    args = (torch.zeros(1, n_obs), h, c) if lstm else (torch.zeros(1, n_obs), h)
    buf = io.BytesIO()
    torch.onnx.export(actor, args, buf, opset_version=13, do_constant_folding=True,
                      input_names=["obs", "h_in"] + (["c_in"] if lstm else []),
                      output_names=["actions", "h_out"] + (["c_out"] if lstm else []))
    model = onnx.load_from_string(buf.getvalue())
    model.producer_name = "tests/policy/make_recurrent_fixtures.py (torch.onnx)"
    model.producer_version = ""
    onnx.checker.check_model(model)
    with open(os.path.join(out_dir, name + ".onnx"), "wb") as f:
        f.write(model.SerializeToString())
    lines = [f"model {name} steps {STEPS} reference torch"]
    with torch.no_grad():
        for k, obs in enumerate(inputs(n_obs, seed=len(name))):
            out = actor(obs, h, c) if lstm else actor(obs, h)
            h = out[1]
            lines += [f"step {k}", fmt("obs", obs), fmt("actions", out[0]), fmt("h_out", h)]
            if lstm:
                c = out[2]
                lines.append(fmt("c_out", c))
    with open(os.path.join(out_dir, name + ".txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def gru_reset_first(out_dir):
    """A GRU with linear_before_reset=0 (ONNX's default), from a torch GRU's weights, with a numpy
    reference: obs [1, 6] -> Reshape [1, 1, 6] -> GRU(8) -> Reshape [1, 8] = actions, h."""
    name, n_obs, hidden = "gru_reset_first", 6, 8
    torch.manual_seed(7)
    gru = torch.nn.GRU(n_obs, hidden)
    # torch's gates are r, z, n; ONNX's z, r, h.
    def zrh(t):
        r, z, n = np.split(t.detach().numpy().astype(np.float32), 3)
        return np.concatenate([z, r, n])
    w = zrh(gru.weight_ih_l0)[None]
    r = zrh(gru.weight_hh_l0)[None]
    b = np.concatenate([zrh(gru.bias_ih_l0), zrh(gru.bias_hh_l0)])[None]
    f = TensorProto.FLOAT
    nodes = [
        helper.make_node("Reshape", ["obs", "x_shape"], ["x"], name="to_x"),
        helper.make_node("GRU", ["x", "W", "R", "B", "", "h_in"], ["", "h_out"], name="gru",
                         hidden_size=hidden, linear_before_reset=0),
        helper.make_node("Reshape", ["h_out", "a_shape"], ["actions"], name="to_actions"),
    ]
    inits = [numpy_helper.from_array(w, "W"), numpy_helper.from_array(r, "R"),
             numpy_helper.from_array(b, "B"),
             numpy_helper.from_array(np.array([1, 1, n_obs], np.int64), "x_shape"),
             numpy_helper.from_array(np.array([1, hidden], np.int64), "a_shape")]
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info("obs", f, [1, n_obs]),
         helper.make_tensor_value_info("h_in", f, [1, 1, hidden])],
        [helper.make_tensor_value_info("actions", f, [1, hidden]),
         helper.make_tensor_value_info("h_out", f, [1, 1, hidden])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="tests/policy/make_recurrent_fixtures.py (helper)")
    model.ir_version = 8
    onnx.checker.check_model(model)
    with open(os.path.join(out_dir, name + ".onnx"), "wb") as fh:
        fh.write(model.SerializeToString())
    W, R, B = w[0].astype(np.float64), r[0].astype(np.float64), b[0].astype(np.float64)
    H = hidden
    h = np.zeros(H)
    lines = [f"model {name} steps {STEPS} reference numpy (ONNX GRU, linear_before_reset=0)"]
    for k, obs in enumerate(inputs(n_obs, seed=len(name))):
        x = obs.numpy().astype(np.float64).flatten()
        gx = W @ x + B[:3 * H]
        gh = R @ h + B[3 * H:]
        z = sigmoid(gx[:H] + gh[:H])
        rr = sigmoid(gx[H:2 * H] + gh[H:2 * H])
        n = np.tanh(gx[2 * H:] + R[2 * H:] @ (rr * h) + B[5 * H:])
        h = (1 - z) * n + z * h
        lines += [f"step {k}", fmt("obs", obs), fmt("actions", h), fmt("h_out", h)]
    with open(os.path.join(out_dir, name + ".txt"), "w") as fh:
        fh.write("\n".join(lines) + "\n")


def generate(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    for name, spec in MODELS.items():
        export(name, spec, out_dir)
    gru_reset_first(out_dir)


def same_numbers(a, b, tol=1e-6):
    la, lb = open(a).read().split("\n"), open(b).read().split("\n")
    if len(la) != len(lb):
        return False
    for x, y in zip(la, lb):
        px, py = x.split(" "), y.split(" ")
        if len(px) != len(py) or px[0] != py[0]:
            return False
        try:
            vx, vy = np.array(px[1:], dtype=np.float64), np.array(py[1:], dtype=np.float64)
        except ValueError:
            if x != y:
                return False
            continue
        if not np.allclose(vx, vy, rtol=tol, atol=tol):
            return False
    return True


def check():
    with tempfile.TemporaryDirectory() as tmp:
        generate(tmp)
        bad = []
        for f in sorted(os.listdir(tmp)):
            mine, theirs = os.path.join(tmp, f), os.path.join(CHECKED_IN, f)
            if not os.path.exists(theirs):
                bad.append(f + " is not checked in")
            elif f.endswith(".onnx") and not filecmp.cmp(mine, theirs, shallow=False):
                bad.append(f + " differs from what torch exports now")
            elif f.endswith(".txt") and not same_numbers(mine, theirs):
                bad.append(f + " differs from what torch computes now")
        for f in bad:
            print("make_recurrent_fixtures.py --check:", f, file=sys.stderr)
        return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        sys.exit(check())
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    generate(sys.argv[1])
