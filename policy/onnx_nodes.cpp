// OnnxGraph's nodes: for each operator, its checks, its output shape, and the kernel bound to
// its buffers (or its value computed at load time when every input is constant). Loading and
// running are in onnx_graph.cpp.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <limits>
#include <set>

#include "policy/onnx_graph.hpp"

namespace robot_edge::policy {
namespace {

const onnx::AttributeProto* FindAttribute(const onnx::NodeProto& node, const char* name) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

float FloatAttribute(const onnx::NodeProto& node, const char* name, float fallback) {
  const auto* a = FindAttribute(node, name);
  return a != nullptr ? a->f() : fallback;
}

std::int64_t IntAttribute(const onnx::NodeProto& node, const char* name, std::int64_t fallback) {
  const auto* a = FindAttribute(node, name);
  return a != nullptr ? a->i() : fallback;
}

// Normalizes a possibly negative axis of a rank-`rank` tensor; -1 when out of range.
std::int64_t NormalizeAxis(std::int64_t axis, std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r) return -1;
  return axis < 0 ? axis + r : axis;
}

}  // namespace

// ---- Nodes ----

void OnnxGraph::Fail(const std::string& message) const {
  throw ModelError(name_ + ": " + node_label_ + ": " + message);
}

OnnxGraph::Value* OnnxGraph::Input(std::size_t i, bool optional) {
  const int at = static_cast<int>(i);
  if (at >= node_->input_size() || node_->input(at).empty()) {
    if (optional) return nullptr;
    Fail("input " + std::to_string(i) + " is missing");
  }
  const auto it = by_name_.find(node_->input(at));
  if (it == by_name_.end()) Fail("uses '" + node_->input(at) + "' before any node computes it");
  return it->second;
}

OnnxGraph::Value* OnnxGraph::FloatInput(std::size_t i, bool optional) {
  Value* v = Input(i, optional);
  if (v != nullptr && v->is_int) {
    Fail("input '" + node_->input(static_cast<int>(i)) + "' is INT64; this runtime computes FLOAT");
  }
  return v;
}

OnnxGraph::Value* OnnxGraph::NewValue(const Shape& shape, const std::string& name) {
  auto v = std::make_unique<Value>();
  v->shape = shape;
  v->size = NumElements(shape);
  v->storage.assign(v->size, 0.0f);
  v->data = v->storage.data();
  Value* raw = v.get();
  by_name_[name] = raw;
  values_.push_back(std::move(v));
  return raw;
}

OnnxGraph::Value* OnnxGraph::NewOutput(const Shape& shape, std::size_t index) {
  return NewValue(shape, node_->output(static_cast<int>(index)));
}

OnnxGraph::Value* OnnxGraph::AliasOutput(Value* source, const Shape& shape) {
  if (NumElements(shape) != source->size) {
    Fail("cannot give " + ToString(source->shape) + " the shape " + ToString(shape));
  }
  auto v = std::make_unique<Value>();
  v->shape = shape;
  v->size = source->size;
  v->constant = source->constant;
  v->is_int = source->is_int;
  v->ints = source->ints;
  v->data = source->data;
  Value* raw = v.get();
  by_name_[node_->output(0)] = raw;
  values_.push_back(std::move(v));
  return raw;
}

void OnnxGraph::Bind(std::unique_ptr<Kernel> kernel, const std::vector<const Value*>& inputs,
                     Value* out) {
  const bool constant = std::all_of(inputs.begin(), inputs.end(),
                                    [](const Value* v) { return v == nullptr || v->constant; });
  if (constant) {
    kernel->Run();  // folded: computed once, now
    out->constant = true;
  } else {
    steps_.push_back(std::move(kernel));
  }
}

std::vector<std::int64_t> OnnxGraph::ConstantInts(std::size_t input, const char* what) {
  const Value* v = Input(input);
  if (!v->constant || !v->is_int) Fail(std::string(what) + " must be a constant INT64 tensor");
  return v->ints;
}

void OnnxGraph::AddNode(const onnx::NodeProto& node, std::size_t index) {
  node_ = &node;
  node_label_ = "node '";
  if (node.name().empty()) {
    node_label_.append(1, '#').append(std::to_string(index));
  } else {
    node_label_ += node.name();
  }
  node_label_.append("' (").append(node.op_type()).append(")");
  const std::string& op = node.op_type();
  if (op == "LSTM") return AddRecurrent(true);
  if (op == "GRU") return AddRecurrent(false);
  if (node.output_size() != 1) Fail("has " + std::to_string(node.output_size()) + " outputs");
  if (op == "Gemm") return AddGemm(true);
  if (op == "MatMul") return AddGemm(false);
  if (op == "Add") return AddBinary(BinaryOp::kAdd);
  if (op == "Sub") return AddBinary(BinaryOp::kSub);
  if (op == "Mul") return AddBinary(BinaryOp::kMul);
  if (op == "Div") return AddBinary(BinaryOp::kDiv);
  if (op == "Relu") return AddUnary({UnaryOp::kRelu});
  if (op == "Elu") return AddUnary({UnaryOp::kElu, FloatAttribute(node, "alpha", 1.0f)});
  if (op == "LeakyRelu") {
    return AddUnary({UnaryOp::kLeakyRelu, FloatAttribute(node, "alpha", 0.01f)});
  }
  if (op == "Tanh") return AddUnary({UnaryOp::kTanh});
  if (op == "Sigmoid") return AddUnary({UnaryOp::kSigmoid});
  if (op == "Clip") return AddClip();
  if (op == "Concat") return AddConcat();
  if (op == "Constant") return AddConstant();
  if (op == "Identity") {
    Value* in = Input(0);
    AliasOutput(in, in->shape);
    return;
  }
  if (op == "Reshape") return AddReshape();
  if (op == "Flatten") return AddFlatten();
  if (op == "Squeeze") return AddSqueeze(false);
  if (op == "Unsqueeze") return AddSqueeze(true);
  Fail("unsupported operator");  // CheckOperators() already refused it
}

// Gemm: Y = alpha·A'·B' + beta·C (2-D A and B, C broadcast to Y). MatMul: numpy's matmul for
// 1-D and 2-D operands.
void OnnxGraph::AddGemm(bool is_gemm) {
  Value* a = FloatInput(0);
  Value* b = FloatInput(1);
  MatMulSpec s;
  s.a = a->data;
  s.b = b->data;
  Shape out;
  if (is_gemm) {
    if (a->shape.size() != 2 || b->shape.size() != 2) {
      Fail("A " + ToString(a->shape) + " and B " + ToString(b->shape) + " must both be 2-D");
    }
    s.trans_a = IntAttribute(*node_, "transA", 0) != 0;
    s.trans_b = IntAttribute(*node_, "transB", 0) != 0;
    s.alpha = FloatAttribute(*node_, "alpha", 1.0f);
    s.a_rows = a->shape[0], s.a_cols = a->shape[1];
    s.b_rows = b->shape[0], s.b_cols = b->shape[1];
  } else {
    if (a->shape.empty() || b->shape.empty() || a->shape.size() > 2 || b->shape.size() > 2) {
      Fail("operands " + ToString(a->shape) + " and " + ToString(b->shape) +
           ": only 1-D and 2-D operands are supported");
    }
    // A 1-D A is a row [1, K], a 1-D B a column [K, 1]; that dimension is dropped from Y.
    s.a_rows = a->shape.size() == 2 ? a->shape[0] : 1;
    s.a_cols = a->shape.back();
    s.b_rows = b->shape.front();
    s.b_cols = b->shape.size() == 2 ? b->shape[1] : 1;
  }
  const std::int64_t m = s.trans_a ? s.a_cols : s.a_rows;
  const std::int64_t k = s.trans_a ? s.a_rows : s.a_cols;
  const std::int64_t k_b = s.trans_b ? s.b_cols : s.b_rows;
  const std::int64_t n = s.trans_b ? s.b_rows : s.b_cols;
  if (k != k_b) {
    Fail("A " + ToString(a->shape) + (s.trans_a ? " (transposed)" : "") + " and B " +
         ToString(b->shape) + (s.trans_b ? " (transposed)" : "") + ": inner dimensions " +
         std::to_string(k) + " and " + std::to_string(k_b) + " differ");
  }
  if (is_gemm) {
    out = {m, n};
  } else {
    if (a->shape.size() == 2) out.push_back(m);
    if (b->shape.size() == 2) out.push_back(n);
  }
  Value* c = is_gemm ? FloatInput(2, /*optional=*/true) : nullptr;
  if (c != nullptr) {
    if (!c->constant) Fail("C must be a constant (an initializer)");
    const auto shape = Broadcast(c->shape, {m, n});
    if (!shape || *shape != Shape{m, n}) {
      Fail("C " + ToString(c->shape) + " does not broadcast to " + ToString({m, n}));
    }
    const float beta = FloatAttribute(*node_, "beta", 1.0f);
    const auto index = BroadcastIndex(c->shape, {m, n});
    s.bias.resize(index.size());
    for (std::size_t i = 0; i < index.size(); ++i) s.bias[i] = beta * c->data[index[i]];
  }
  Value* y = NewOutput(out);
  s.y = y->data;
  Bind(MakeMatMul(std::move(s)), {a, b, c}, y);
}

void OnnxGraph::AddBinary(BinaryOp op) {
  Value* a = FloatInput(0);
  Value* b = FloatInput(1);
  const auto shape = Broadcast(a->shape, b->shape);
  if (!shape)
    Fail("shapes " + ToString(a->shape) + " and " + ToString(b->shape) + " do not broadcast");
  Value* y = NewOutput(*shape);
  Bind(MakeBinary(op, a->data, a->shape, b->data, b->shape, y->data, y->shape), {a, b}, y);
}

void OnnxGraph::AddUnary(UnarySpec spec) {
  Value* x = FloatInput(0);
  Value* y = NewOutput(x->shape);
  Bind(MakeUnary(spec, x->data, y->data, x->size), {x}, y);
}

void OnnxGraph::AddClip() {
  UnarySpec spec{UnaryOp::kClip, 0.0f, std::numeric_limits<float>::lowest(),
                 std::numeric_limits<float>::max()};
  if (opset_ < 11) {  // bounds as attributes
    spec.lo = FloatAttribute(*node_, "min", spec.lo);
    spec.hi = FloatAttribute(*node_, "max", spec.hi);
  } else {  // bounds as optional inputs
    for (std::size_t i = 1; i <= 2; ++i) {
      const Value* bound = FloatInput(i, /*optional=*/true);
      if (bound == nullptr) continue;
      if (!bound->constant || bound->size != 1) Fail("min and max must be constant scalars");
      (i == 1 ? spec.lo : spec.hi) = bound->data[0];
    }
  }
  AddUnary(spec);
}

void OnnxGraph::AddConcat() {
  const auto* axis_attribute = FindAttribute(*node_, "axis");
  if (axis_attribute == nullptr) Fail("has no axis");
  std::vector<ConcatInput> inputs;
  std::vector<const Value*> values;
  for (int i = 0; i < node_->input_size(); ++i) {
    const Value* v = FloatInput(static_cast<std::size_t>(i));
    inputs.push_back({v->data, v->shape});
    values.push_back(v);
  }
  if (inputs.empty()) Fail("has no inputs");
  const Shape& first = inputs.front().shape;
  const std::int64_t axis = NormalizeAxis(axis_attribute->i(), first.size());
  if (axis < 0)
    Fail("axis " + std::to_string(axis_attribute->i()) + " is out of range for " + ToString(first));
  Shape out = first;
  out[static_cast<std::size_t>(axis)] = 0;
  for (const ConcatInput& in : inputs) {
    bool agree = in.shape.size() == first.size();
    for (std::size_t d = 0; agree && d < first.size(); ++d) {
      agree = d == static_cast<std::size_t>(axis) || in.shape[d] == first[d];
    }
    if (!agree)
      Fail("shapes " + ToString(first) + " and " + ToString(in.shape) + " differ off axis " +
           std::to_string(axis));
    out[static_cast<std::size_t>(axis)] += in.shape[static_cast<std::size_t>(axis)];
  }
  Value* y = NewOutput(out);
  Bind(MakeConcat(inputs, static_cast<std::size_t>(axis), y->data), values, y);
}

void OnnxGraph::AddConstant() {
  ConstTensor t;
  if (const auto* a = FindAttribute(*node_, "value")) {
    t = ReadTensor(a->t(), name_ + ": " + node_label_ + ": value");
  } else if (const auto* f = FindAttribute(*node_, "value_float")) {
    t.floats = {f->f()};
  } else if (const auto* fs = FindAttribute(*node_, "value_floats")) {
    t.floats.assign(fs->floats().begin(), fs->floats().end());
    t.shape = {static_cast<std::int64_t>(t.floats.size())};
  } else if (const auto* i = FindAttribute(*node_, "value_int")) {
    t.is_int = true;
    t.ints = {i->i()};
  } else if (const auto* is = FindAttribute(*node_, "value_ints")) {
    t.is_int = true;
    t.ints.assign(is->ints().begin(), is->ints().end());
    t.shape = {static_cast<std::int64_t>(t.ints.size())};
  } else {
    Fail("only value, value_float(s) and value_int(s) are supported");
  }
  Value* y = NewOutput(t.shape);
  y->constant = true;
  y->is_int = t.is_int;
  if (t.is_int) {
    y->ints = std::move(t.ints);
    y->storage.clear();
    y->data = nullptr;
  } else {
    std::copy(t.floats.begin(), t.floats.end(), y->storage.begin());
  }
}

void OnnxGraph::AddReshape() {
  Value* x = Input(0);
  const std::vector<std::int64_t> spec = ConstantInts(1, "the shape");
  const bool allow_zero = IntAttribute(*node_, "allowzero", 0) != 0;
  Shape out;
  std::int64_t known = 1;
  int infer = -1;
  for (std::size_t i = 0; i < spec.size(); ++i) {
    std::int64_t d = spec[i];
    if (d == 0 && !allow_zero) {
      if (i >= x->shape.size())
        Fail("shape " + ToString(spec) + ": 0 copies a dimension that does not exist");
      d = x->shape[i];
    }
    if (d == -1) {
      if (infer >= 0) Fail("shape " + ToString(spec) + " has two -1");
      infer = static_cast<int>(i);
    } else if (d <= 0) {
      Fail("shape " + ToString(spec) + " has dimension " + std::to_string(d));
    } else {
      known *= d;
    }
    out.push_back(d);
  }
  if (infer >= 0) {
    if (known == 0 || static_cast<std::int64_t>(x->size) % known != 0) {
      Fail("cannot reshape " + ToString(x->shape) + " to " + ToString(spec));
    }
    out[static_cast<std::size_t>(infer)] = static_cast<std::int64_t>(x->size) / known;
  }
  AliasOutput(x, out);
}

void OnnxGraph::AddFlatten() {
  Value* x = Input(0);
  const std::int64_t attribute = IntAttribute(*node_, "axis", 1);
  const std::int64_t rank = static_cast<std::int64_t>(x->shape.size());
  const std::int64_t axis = attribute < 0 ? attribute + rank : attribute;
  if (axis < 0 || axis > rank)
    Fail("axis " + std::to_string(attribute) + " is out of range for " + ToString(x->shape));
  std::int64_t outer = 1;
  for (std::int64_t d = 0; d < axis; ++d) outer *= x->shape[static_cast<std::size_t>(d)];
  AliasOutput(x, {outer, static_cast<std::int64_t>(x->size) / outer});
}

// Squeeze removes size-1 axes (all of them without axes); Unsqueeze inserts them. Axes come from
// an attribute before opset 13, from a constant input since.
void OnnxGraph::AddSqueeze(bool unsqueeze) {
  Value* x = Input(0);
  std::vector<std::int64_t> axes;
  if (opset_ < 13) {
    if (const auto* a = FindAttribute(*node_, "axes"))
      axes.assign(a->ints().begin(), a->ints().end());
  } else if (node_->input_size() > 1 && !node_->input(1).empty()) {
    axes = ConstantInts(1, "axes");
  }
  const std::size_t rank = unsqueeze ? x->shape.size() + axes.size() : x->shape.size();
  std::set<std::int64_t> normalized;
  for (std::int64_t a : axes) {
    const std::int64_t n = NormalizeAxis(a, rank);
    if (n < 0 || !normalized.insert(n).second) {
      Fail("axes " + ToString(axes) + " do not fit " + ToString(x->shape));
    }
  }
  Shape out;
  if (unsqueeze) {
    if (axes.empty()) Fail("has no axes");
    auto next = x->shape.begin();
    for (std::size_t d = 0; d < rank; ++d) {
      out.push_back(normalized.contains(static_cast<std::int64_t>(d)) ? 1 : *next++);
    }
  } else {
    for (std::size_t d = 0; d < x->shape.size(); ++d) {
      const bool listed = normalized.contains(static_cast<std::int64_t>(d));
      if (listed && x->shape[d] != 1) {
        Fail("cannot squeeze axis " + std::to_string(d) + " of " + ToString(x->shape));
      }
      if (!(listed || (axes.empty() && x->shape[d] == 1))) out.push_back(x->shape[d]);
    }
  }
  AliasOutput(x, out);
}

}  // namespace robot_edge::policy
