#!/usr/bin/python3
"""Builds the ONNX models of the policy tests, with random inputs and their outputs computed
independently with numpy (float64), into DIR:

    make_test_models.py DIR

  DIR/<case>.onnx, DIR/<case>.in, DIR/<case>.out   operator cases: float32 samples, row after row
  DIR/cases.txt                                     their names, one a line
  DIR/reject_<name>.onnx                            models the runtime must refuse (the C++ test
                                                    knows the message each must give)

Deterministic (fixed seed). Run at build time by tests/policy/CMakeLists.txt.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(2024)
SAMPLES = 8
FLOAT = TensorProto.FLOAT


def f32(a):
    return np.asarray(a, dtype=np.float32)


def rand(*shape, scale=1.0):
    return f32(rng.standard_normal(shape) * scale)


class Case:
    """One graph: x (the input) -> ... -> y, with a numpy function for the reference."""

    def __init__(self, name, in_shape, opset=13):
        self.name, self.in_shape, self.opset = name, list(in_shape), opset
        self.nodes, self.inits, self.count = [], [], 0

    def init(self, value, raw=True, name=None):
        self.count += 1
        name = name or f"c{self.count}"
        value = np.asarray(value)
        if raw:
            self.inits.append(numpy_helper.from_array(value, name))
        else:  # the typed fields: float_data / int64_data
            dtype = TensorProto.INT64 if value.dtype == np.int64 else FLOAT
            self.inits.append(helper.make_tensor(name, dtype, value.shape, value.flatten().tolist()))
        return name

    def node(self, op, inputs, output=None, **attrs):
        self.count += 1
        output = output or f"v{self.count}"
        self.nodes.append(helper.make_node(op, inputs, [output], name=f"n{self.count}", **attrs))
        return output

    def model(self, out, out_shape, inputs=None, outputs=None, ir_version=8, opset=None):
        graph = helper.make_graph(
            self.nodes, self.name,
            inputs or [helper.make_tensor_value_info("x", FLOAT, self.in_shape)],
            outputs or [helper.make_tensor_value_info(out, FLOAT, out_shape)], self.inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset or self.opset)],
                              producer_name="tests/policy/make_test_models.py")
        m.ir_version = ir_version
        return m


CASES = []


def case(name, in_shape, build, reference, opset=13, low=-2.0, high=2.0):
    """build(c) adds nodes from "x" and returns (output name, output shape)."""
    c = Case(name, in_shape, opset)
    out, out_shape = build(c)
    model = c.model(out, out_shape)
    onnx.checker.check_model(model)
    x = f32(rng.uniform(low, high, [SAMPLES] + list(in_shape)))
    y = np.stack([np.asarray(reference(x[i].astype(np.float64)), dtype=np.float64) for i in range(SAMPLES)])
    assert list(y.shape[1:]) == list(out_shape), (name, y.shape, out_shape)
    CASES.append((name, model, x, f32(y)))


# ---- Gemm and MatMul ----
W85, B5 = rand(8, 5), rand(5)
case("gemm", [1, 8], lambda c: (c.node("Gemm", ["x", c.init(W85), c.init(B5)]), [1, 5]),
     lambda x: x @ W85 + B5)
W58, C15 = rand(5, 8), rand(1, 5)
case("gemm_transb_alpha_beta", [1, 8],
     lambda c: (c.node("Gemm", ["x", c.init(W58), c.init(C15)], transB=1, alpha=0.7, beta=1.3), [1, 5]),
     lambda x: 0.7 * (x @ W58.T) + 1.3 * C15)
case("gemm_transa", [1, 8],
     lambda c: (c.node("Gemm", [c.node("Reshape", ["x", c.init(np.array([8, 1], np.int64))]), c.init(W85)],
                       transA=1), [1, 5]),
     lambda x: x @ W85)
case("gemm_transa_transb_scalar_c", [1, 8],
     lambda c: (c.node("Gemm", [c.node("Reshape", ["x", c.init(np.array([8, 1], np.int64))]), c.init(W58),
                                c.init(f32(0.25))], transA=1, transB=1), [1, 5]),
     lambda x: x @ W58.T + 0.25)
W86 = rand(8, 6)
case("matmul_2d", [1, 8], lambda c: (c.node("MatMul", ["x", c.init(W86)]), [1, 6]), lambda x: x @ W86)
case("matmul_1d_row", [8], lambda c: (c.node("MatMul", ["x", c.init(W86)]), [6]), lambda x: x @ W86)
W68 = rand(6, 8)
case("matmul_1d_column", [8], lambda c: (c.node("MatMul", [c.init(W68), "x"]), [6]), lambda x: W68 @ x)
V8 = rand(8)
case("matmul_vector_vector", [8], lambda c: (c.node("MatMul", ["x", c.init(V8)]), []), lambda x: x @ V8)

# ---- Elementwise with broadcasting ----
K16 = rand(1, 6)
case("add_same", [1, 6], lambda c: (c.node("Add", ["x", c.init(K16)]), [1, 6]), lambda x: x + K16)
K6 = rand(6)
case("sub_broadcast_rank", [1, 6], lambda c: (c.node("Sub", ["x", c.init(K6)]), [1, 6]), lambda x: x - K6)
case("sub_scalar_left", [1, 6], lambda c: (c.node("Sub", [c.init(f32(1.5)), "x"]), [1, 6]), lambda x: 1.5 - x)
case("mul_runtime_runtime", [1, 6], lambda c: (c.node("Mul", ["x", "x"]), [1, 6]), lambda x: x * x)
case("mul_scalar_1", [6], lambda c: (c.node("Mul", ["x", c.init(f32([3.0]))]), [6]), lambda x: 3.0 * x)
D16 = f32(rng.uniform(0.5, 2.0, (1, 6)))
case("div", [1, 6], lambda c: (c.node("Div", ["x", c.init(D16)]), [1, 6]), lambda x: x / D16)
case("div_scalar_left", [1, 6], lambda c: (c.node("Div", [c.init(f32(2.0)), "x"]), [1, 6]), lambda x: 2.0 / x,
     low=0.5, high=2.0)
R13 = rand(1, 3)
case("add_general_broadcast", [1, 4],
     lambda c: (c.node("Flatten", [c.node("Add", [c.node("Reshape", ["x", c.init(np.array([4, 1], np.int64))]),
                                                   c.init(R13)])], axis=0), [1, 12]),
     lambda x: (x.reshape(4, 1) + R13).reshape(1, 12))
MEAN, STD = rand(1, 6), f32(rng.uniform(0.5, 2.0, (1, 6)))
case("normalizer", [1, 6], lambda c: (c.node("Div", [c.node("Sub", ["x", c.init(MEAN)]), c.init(STD)]), [1, 6]),
     lambda x: (x - MEAN) / STD)

# ---- Activations ----
for op, ref, attrs in [
    ("Relu", lambda x: np.maximum(x, 0), {}),
    ("Elu", lambda x: np.where(x > 0, x, 1.0 * (np.exp(x) - 1)), {}),
    ("Elu", lambda x: np.where(x > 0, x, 0.5 * (np.exp(x) - 1)), {"alpha": 0.5}),
    ("LeakyRelu", lambda x: np.where(x >= 0, x, 0.01 * x), {}),
    ("LeakyRelu", lambda x: np.where(x >= 0, x, 0.2 * x), {"alpha": 0.2}),
    ("Tanh", np.tanh, {}),
    ("Sigmoid", lambda x: 1 / (1 + np.exp(-x)), {}),
]:
    suffix = "_alpha" if attrs else ""
    case(op.lower() + suffix, [1, 16], lambda c, op=op, attrs=attrs: (c.node(op, ["x"], **attrs), [1, 16]), ref,
         low=-6.0, high=6.0)

# ---- Clip: inputs since opset 11, attributes before ----
case("clip_inputs", [1, 16], lambda c: (c.node("Clip", ["x", c.init(f32(-0.5)), c.init(f32(0.75))]), [1, 16]),
     lambda x: np.clip(x, -0.5, 0.75))
case("clip_max_only", [1, 16], lambda c: (c.node("Clip", ["x", "", c.init(f32(0.3))]), [1, 16]),
     lambda x: np.minimum(x, 0.3))
case("clip_attributes_opset9", [1, 16], lambda c: (c.node("Clip", ["x"], min=-1.0, max=0.5), [1, 16]),
     lambda x: np.clip(x, -1.0, 0.5), opset=9)

# ---- Concat, Identity, Constant ----
K13 = rand(1, 3)
case("concat", [1, 4], lambda c: (c.node("Concat", ["x", c.init(K13), "x"], axis=1), [1, 11]),
     lambda x: np.concatenate([x, K13, x], axis=1))
K2 = rand(2)
case("concat_negative_axis_1d", [4], lambda c: (c.node("Concat", [c.init(K2), "x"], axis=-1), [6]),
     lambda x: np.concatenate([K2, x]))
case("concat_axis0", [1, 4], lambda c: (c.node("Flatten", [c.node("Concat", ["x", "x"], axis=0)], axis=0), [1, 8]),
     lambda x: np.concatenate([x, x], axis=0).reshape(1, 8))
case("identity", [1, 5], lambda c: (c.node("Identity", ["x"]), [1, 5]), lambda x: x)
CT = rand(1, 5)
case("constant_tensor", [1, 5],
     lambda c: (c.node("Add", ["x", c.node("Constant", [], value=numpy_helper.from_array(CT, "ct"))]), [1, 5]),
     lambda x: x + CT)
case("constant_value_float", [1, 5], lambda c: (c.node("Mul", ["x", c.node("Constant", [], value_float=-2.5)]), [1, 5]),
     lambda x: -2.5 * x)
case("constant_value_floats", [1, 3],
     lambda c: (c.node("Add", ["x", c.node("Constant", [], value_floats=[1.0, 2.0, 3.0])]), [1, 3]),
     lambda x: x + np.array([1.0, 2.0, 3.0]))

# ---- Shape-only ----
case("reshape_minus1_and_0", [1, 6],
     lambda c: (c.node("Reshape", [c.node("Reshape", ["x", c.init(np.array([0, 2, -1], np.int64))]),
                                   c.init(np.array([1, -1], np.int64))]), [1, 6]),
     lambda x: x)
case("reshape_constant_node", [1, 6],
     lambda c: (c.node("Reshape", ["x", c.node("Constant", [], value_ints=[6])]), [6]), lambda x: x.reshape(6))
case("flatten_default_axis", [6], lambda c: (c.node("Flatten", [c.node("Unsqueeze", ["x", c.init(np.array([0], np.int64))])]), [1, 6]),
     lambda x: x.reshape(1, 6))
case("squeeze_unsqueeze_inputs", [1, 6],
     lambda c: (c.node("Unsqueeze", [c.node("Squeeze", ["x", c.init(np.array([0], np.int64))]),
                                     c.init(np.array([0, -1], np.int64))]), [1, 6, 1]),
     lambda x: x.reshape(1, 6, 1))
case("squeeze_all", [1, 6], lambda c: (c.node("Squeeze", ["x"]), [6]), lambda x: x.reshape(6))
case("squeeze_unsqueeze_attributes_opset11", [1, 6],
     lambda c: (c.node("Unsqueeze", [c.node("Squeeze", ["x"], axes=[0])], axes=[0]), [1, 6]),
     lambda x: x, opset=11)

# ---- Initializers from the typed fields (float_data, int64_data) ----
case("typed_field_initializers", [1, 8],
     lambda c: (c.node("Reshape", [c.node("Gemm", ["x", c.init(W85, raw=False), c.init(B5, raw=False)]),
                                   c.init(np.array([5], np.int64), raw=False)]), [5]),
     lambda x: (x @ W85 + B5).reshape(5))

# ---- Folding: nodes of constants only are computed at load ----
case("constant_folding", [1, 8],
     lambda c: (c.node("Gemm", ["x", c.node("Mul", [c.init(W85), c.init(f32(0.5))]),
                                c.node("Relu", [c.init(B5)])]), [1, 5]),
     lambda x: x @ (0.5 * W85) + np.maximum(B5, 0))

# ---- An actor as the training stacks export it (opset 11: normalizer, Gemm+Elu MLP, Tanh) ----
M45, S45 = rand(1, 45), f32(rng.uniform(0.5, 2.0, (1, 45)))
L1, L2, L3 = (rand(256, 45, scale=0.15), rand(256)), (rand(128, 256, scale=0.06), rand(128)), (rand(12, 128, scale=0.09), rand(12))


def actor(c):
    h = c.node("Div", [c.node("Sub", ["x", c.init(M45)]), c.init(S45)])
    h = c.node("Elu", [c.node("Gemm", [h, c.init(L1[0]), c.init(L1[1])], transB=1)])
    h = c.node("Elu", [c.node("Gemm", [h, c.init(L2[0]), c.init(L2[1])], transB=1)])
    return c.node("Tanh", [c.node("Gemm", [h, c.init(L3[0]), c.init(L3[1])], transB=1)]), [1, 12]


def actor_ref(x):
    elu = lambda v: np.where(v > 0, v, np.exp(v) - 1)
    h = (x - M45) / S45
    h = elu(h @ L1[0].T + L1[1])
    h = elu(h @ L2[0].T + L2[1])
    return np.tanh(h @ L3[0].T + L3[1])


case("actor_mlp", [1, 45], actor, actor_ref, opset=11)


# ---- Models the runtime must refuse ----
def reject(name, build, inputs=None, outputs=None, opset=13, ir_version=8, out_shape=(1, 4)):
    c = Case(name, [1, 4], opset)
    out = build(c)
    model = c.model(out, list(out_shape), inputs=inputs, outputs=outputs, ir_version=ir_version)
    return name, model


def vi(name, shape, dtype=FLOAT):
    return helper.make_tensor_value_info(name, dtype, shape)


REJECTS = [
    reject("unsupported_op", lambda c: c.node("Softmax", ["x"], axis=1)),
    reject("custom_domain", lambda c: c.nodes.append(helper.make_node("FusedGemm", ["x"], ["y"], name="fused", domain="com.microsoft")) or "y"),
    reject("dynamic_input", lambda c: c.node("Relu", ["x"]), inputs=[vi("x", ["batch", 4])]),
    reject("no_input_shape", lambda c: c.node("Relu", ["x"]), inputs=[helper.make_tensor_value_info("x", FLOAT, None)]),
    reject("input_batch_2", lambda c: c.node("Relu", ["x"]), inputs=[vi("x", [2, 4])], out_shape=(2, 4)),
    reject("input_rank_3", lambda c: c.node("Relu", ["x"]), inputs=[vi("x", [1, 1, 4])], out_shape=(1, 1, 4)),
    reject("input_int64", lambda c: c.node("Identity", ["x"]), inputs=[vi("x", [1, 4], TensorProto.INT64)]),
    reject("two_inputs", lambda c: c.node("Add", ["x", "h"]), inputs=[vi("x", [1, 4]), vi("h", [1, 4])]),
    reject("two_outputs", lambda c: c.node("Relu", ["x"], "y") and c.node("Tanh", ["x"], "z") and "y",
           outputs=[vi("y", [1, 4]), vi("z", [1, 4])]),
    reject("output_declared_wrong", lambda c: c.node("Relu", ["x"]), out_shape=(1, 5)),
    reject("opset_6", lambda c: c.node("Relu", ["x"]), opset=6),
    reject("gemm_inner_mismatch", lambda c: c.node("Gemm", ["x", c.init(rand(5, 3))]), out_shape=(1, 3)),
    reject("gemm_runtime_c", lambda c: c.node("Gemm", [c.node("Reshape", ["x", c.init(np.array([4, 1], np.int64))]), c.init(rand(1, 4)), "x"]),
           out_shape=(4, 4)),
    reject("matmul_3d", lambda c: c.node("MatMul", ["x", c.init(rand(2, 4, 3))]), out_shape=(2, 1, 3)),
    reject("reshape_runtime_shape", lambda c: c.node("Reshape", ["x", "x"])),
    reject("clip_runtime_bound", lambda c: c.node("Clip", ["x", c.node("Squeeze", [c.node("Flatten", ["x"])])])),
    reject("double_initializer", lambda c: c.node("Add", ["x", c.init(np.ones((1, 4), np.float64))])),
    reject("broadcast_mismatch", lambda c: c.node("Add", ["x", c.init(rand(1, 3))])),
    reject("undefined_input", lambda c: c.node("Add", ["x", "nowhere"])),
]


def external_data_model():
    name, m = reject("external_data", lambda c: c.node("Add", ["x", c.init(rand(1, 4), name="w")]))
    t = m.graph.initializer[0]
    t.ClearField("raw_data")
    t.data_location = TensorProto.EXTERNAL
    entry = t.external_data.add()
    entry.key, entry.value = "location", "weights.bin"
    return name, m


def raw_size_mismatch_model():
    name, m = reject("raw_size_mismatch", lambda c: c.node("Add", ["x", c.init(rand(1, 4), name="w")]))
    m.graph.initializer[0].raw_data = m.graph.initializer[0].raw_data[:12]
    return name, m


REJECTS += [external_data_model(), raw_size_mismatch_model()]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, model, x, y in CASES:
        with open(os.path.join(out, name + ".onnx"), "wb") as f:
            f.write(model.SerializeToString())
        x.astype("<f4").tofile(os.path.join(out, name + ".in"))
        y.astype("<f4").tofile(os.path.join(out, name + ".out"))
    for name, model in REJECTS:
        with open(os.path.join(out, "reject_" + name + ".onnx"), "wb") as f:
            f.write(model.SerializeToString())
    with open(os.path.join(out, "cases.txt"), "w") as f:
        f.write("".join(name + "\n" for name, _, _, _ in CASES))


if __name__ == "__main__":
    main()
