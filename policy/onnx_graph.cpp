#include "policy/onnx_graph.hpp"

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

namespace robot_edge::policy {
namespace {

// Every operator this runtime evaluates (the list the messages give).
constexpr const char* kSupported[] = {
    "Gemm",     "MatMul",    "Add",     "Sub",     "Mul",       "Div",    "Relu",
    "Elu",      "LeakyRelu", "Tanh",    "Sigmoid", "Clip",      "Concat", "Identity",
    "Constant", "Reshape",   "Flatten", "Squeeze", "Unsqueeze", "LSTM",   "GRU"};
constexpr std::int64_t kOldestOpset = 7;  // numpy broadcasting and today's Gemm

std::string SupportedList() {
  std::string s;
  for (const char* op : kSupported) s += (s.empty() ? "" : ", ") + std::string(op);
  return s;
}

bool IsDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

std::string ShapeOfInfo(const onnx::ValueInfoProto& info) {
  std::string s = "[";
  const auto& dims = info.type().tensor_type().shape().dim();
  for (int i = 0; i < dims.size(); ++i) {
    s += i == 0 ? "" : ", ";
    s += dims[i].has_dim_value() ? std::to_string(dims[i].dim_value())
                                 : (dims[i].has_dim_param() ? dims[i].dim_param() : "?");
  }
  return s + "]";
}

}  // namespace

// ---- Loading ----

std::unique_ptr<OnnxGraph> OnnxGraph::Load(const std::string& path, const StatePairs& state) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelError(path + ": cannot open the file");
  std::stringstream bytes;
  bytes << in.rdbuf();
  return FromBytes(bytes.str(), path, state);
}

std::unique_ptr<OnnxGraph> OnnxGraph::FromBytes(std::string_view bytes, const std::string& name,
                                                const StatePairs& state) {
  onnx::ModelProto model;
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()) ||
      !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    throw ModelError(name + ": not an ONNX model (it does not parse as a ModelProto)");
  }
  return FromModel(model, name, state);
}

std::unique_ptr<OnnxGraph> OnnxGraph::FromModel(const onnx::ModelProto& model,
                                                const std::string& name, const StatePairs& state) {
  std::unique_ptr<OnnxGraph> graph(new OnnxGraph(name));
  graph->Build(model, state);
  return graph;
}

void OnnxGraph::Build(const onnx::ModelProto& model, const StatePairs& state) {
  // Our own checks first (their messages name the operator, the initializer, the input), then
  // the checker's for everything structural, then every node.
  CheckOperators(model);
  const onnx::GraphProto& g = model.graph();
  if (g.sparse_initializer_size() > 0)
    throw ModelError(name_ + ": sparse initializers are not supported");
  for (const auto& init : g.initializer()) {
    ConstTensor t = ReadTensor(init, name_ + ": initializer '" + init.name() + "'");
    auto v = std::make_unique<Value>();
    v->shape = t.shape;
    v->size = NumElements(t.shape);
    v->constant = true;
    v->is_int = t.is_int;
    v->storage = std::move(t.floats);
    v->ints = std::move(t.ints);
    v->data = v->storage.data();
    by_name_[init.name()] = v.get();
    values_.push_back(std::move(v));
  }
  PairState(model, state);
  AddInput(model);
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    throw ModelError(name_ + ": the ONNX checker refuses it: " + e.what());
  }
  for (int i = 0; i < g.node_size(); ++i) AddNode(g.node(i), static_cast<std::size_t>(i));
  node_ = nullptr;
  SetOutput(model);

  std::map<std::string, int> ops;
  for (const auto& n : g.node()) ++ops[n.op_type()];
  description_ = std::to_string(input_->size) + " -> " + std::to_string(output_->size) + ", " +
                 std::to_string(g.node_size()) + " nodes (";
  std::string list;
  for (const auto& [op, count] : ops)
    list += (list.empty() ? "" : ", ") + op + " " + std::to_string(count);
  description_ += list + "), opset " + std::to_string(opset_) + ", " +
                  std::to_string(steps_.size()) + " kernels";
  for (const State& st : states_) {
    description_ +=
        ", state " + st.in_name + " <- " + st.out_name + " " + std::to_string(st.in->size);
  }
}

void OnnxGraph::CheckOperators(const onnx::ModelProto& model) {
  for (const auto& o : model.opset_import()) {
    if (IsDefaultDomain(o.domain())) opset_ = o.version();
  }
  if (opset_ == 0) throw ModelError(name_ + ": no opset of the default ONNX domain is imported");
  if (opset_ < kOldestOpset) {
    throw ModelError(name_ + ": opset " + std::to_string(opset_) + " is older than " +
                     std::to_string(kOldestOpset) + ", the oldest this runtime evaluates");
  }
  const std::set<std::string, std::less<>> supported(std::begin(kSupported), std::end(kSupported));
  for (int i = 0; i < model.graph().node_size(); ++i) {
    const onnx::NodeProto& n = model.graph().node(i);
    std::string label = "node '";  // built in steps: GCC 12's -Wrestrict misfires on "x" + s
    label += n.name().empty() ? '#' + std::to_string(i) : n.name();
    label += '\'';
    if (!IsDefaultDomain(n.domain())) {
      throw ModelError(name_ + ": " + label + " uses operator '" + n.domain() + "." + n.op_type() +
                       "': only the default ONNX domain is supported");
    }
    if (!supported.contains(n.op_type())) {
      throw ModelError(name_ + ": " + label + " uses operator '" + n.op_type() +
                       "', which this runtime does not evaluate (supported: " + SupportedList() +
                       ")");
    }
  }
}

// The state pairs: as declared, or by name (P_in -> P_out). Only names here; AddInput() and
// SetOutput() check the values.
void OnnxGraph::PairState(const onnx::ModelProto& model, const StatePairs& state) {
  const onnx::GraphProto& g = model.graph();
  const auto has_input = [&](const std::string& name) {
    return !by_name_.contains(name) &&
           std::any_of(g.input().begin(), g.input().end(),
                       [&](const onnx::ValueInfoProto& v) { return v.name() == name; });
  };
  const auto has_output = [&](const std::string& name) {
    return std::any_of(g.output().begin(), g.output().end(),
                       [&](const onnx::ValueInfoProto& v) { return v.name() == name; });
  };
  if (!state.empty()) {
    for (const auto& [in, out] : state) {
      if (!has_input(in)) {
        throw ModelError(name_ + ": the recurrent state input '" + in +
                         "' is not an input of the model");
      }
      if (!has_output(out)) {
        throw ModelError(name_ + ": the recurrent state output '" + out +
                         "' is not an output of the model");
      }
      states_.push_back({in, out});
    }
    return;
  }
  for (const auto& in : g.input()) {
    const std::string& n = in.name();
    if (by_name_.contains(n) || n.size() <= 3 || n.compare(n.size() - 3, 3, "_in") != 0) continue;
    const std::string out = n.substr(0, n.size() - 3) + "_out";
    if (has_output(out)) states_.push_back({n, out});
  }
}

OnnxGraph::Value* OnnxGraph::AddGraphInput(const onnx::ValueInfoProto& in, bool observation) {
  const std::string what =
      name_ + (observation ? ": input '" : ": recurrent state input '") + in.name() + "'";
  if (!in.type().has_tensor_type() ||
      in.type().tensor_type().elem_type() != onnx::TensorProto::FLOAT) {
    throw ModelError(what + " is not a FLOAT tensor");
  }
  if (!in.type().tensor_type().has_shape()) throw ModelError(what + " has no shape");
  Shape shape;
  const auto& dims = in.type().tensor_type().shape().dim();
  for (int i = 0; i < dims.size(); ++i) {
    if (!dims[i].has_dim_value() || dims[i].dim_value() <= 0) {
      throw ModelError(what + " has shape " + ShapeOfInfo(in) + ": dimension " + std::to_string(i) +
                       " is dynamic; export it with a fixed shape" +
                       (observation ? " [1, N]" : " (batch 1)"));
    }
    shape.push_back(dims[i].dim_value());
  }
  if (observation && !(shape.size() == 1 || (shape.size() == 2 && shape[0] == 1))) {
    throw ModelError(what + " has shape " + ToString(shape) + "; expected [1, N] or [N]");
  }
  return NewValue(shape, in.name());
}

void OnnxGraph::AddInput(const onnx::ModelProto& model) {
  const onnx::GraphProto& g = model.graph();
  std::vector<const onnx::ValueInfoProto*> inputs;
  for (const auto& in : g.input()) {
    if (by_name_.contains(in.name())) continue;  // IR < 4 lists initializers too
    auto state = std::find_if(states_.begin(), states_.end(),
                              [&](const State& s) { return s.in_name == in.name(); });
    if (state != states_.end()) {
      state->in = AddGraphInput(in, false);
    } else {
      inputs.push_back(&in);
    }
  }
  if (inputs.size() != 1) {
    std::string names;
    for (const auto* in : inputs) names += (names.empty() ? "" : ", ") + in->name();
    throw ModelError(name_ + ": the model has " + std::to_string(inputs.size()) + " inputs" +
                     (names.empty() ? "" : " (" + names + ")") +
                     (states_.empty() ? "" : " besides its recurrent state") +
                     "; a policy takes exactly one (the observation), and a recurrent one its "
                     "state as input/output pairs named P_in/P_out or listed in "
                     "policy.recurrent_state");
  }
  input_ = AddGraphInput(*inputs.front(), true);
}

void OnnxGraph::SetOutput(const onnx::ModelProto& model) {
  const onnx::GraphProto& g = model.graph();
  std::vector<const onnx::ValueInfoProto*> outputs;
  for (const auto& out : g.output()) {
    const auto state = std::find_if(states_.begin(), states_.end(),
                                    [&](const State& s) { return s.out_name == out.name(); });
    if (state == states_.end()) {
      outputs.push_back(&out);
      continue;
    }
    const std::string what = name_ + ": recurrent state output '" + out.name() + "'";
    const auto it = by_name_.find(out.name());
    if (it == by_name_.end()) throw ModelError(what + " is not computed by any node");
    if (it->second->is_int) throw ModelError(what + " is not a FLOAT tensor");
    if (it->second->size != state->in->size) {
      throw ModelError(what + " has shape " + ToString(it->second->shape) + " but its input '" +
                       state->in_name + "' has " + ToString(state->in->shape));
    }
    state->out = it->second;
  }
  if (outputs.size() != 1) {
    throw ModelError(name_ + ": the model has " + std::to_string(outputs.size()) + " outputs" +
                     (states_.empty() ? "" : " besides its recurrent state") +
                     "; a policy gives exactly one (the actions)");
  }
  const onnx::ValueInfoProto& out = *outputs.front();
  const std::string what = name_ + ": output '" + out.name() + "'";
  const auto it = by_name_.find(out.name());
  if (it == by_name_.end()) throw ModelError(what + " is not computed by any node");
  if (it->second->is_int) throw ModelError(what + " is not a FLOAT tensor");
  output_ = it->second;
  if (out.type().has_tensor_type() && out.type().tensor_type().has_shape()) {
    const auto& dims = out.type().tensor_type().shape().dim();
    bool differs = static_cast<std::size_t>(dims.size()) != output_->shape.size();
    for (int i = 0; !differs && i < dims.size(); ++i) {
      differs = dims[i].has_dim_value() &&
                dims[i].dim_value() != output_->shape[static_cast<std::size_t>(i)];
    }
    if (differs) {
      throw ModelError(what + " is declared " + ShapeOfInfo(out) + " but the graph computes " +
                       ToString(output_->shape));
    }
  }
}

// ---- Running ----

void OnnxGraph::Run(std::span<const float> in, std::span<float> out) {
  std::memcpy(input_->data, in.data(), input_->size * sizeof(float));
  for (const auto& step : steps_) step->Run();
  std::memcpy(out.data(), output_->data, output_->size * sizeof(float));
  nonfinite_state_ = -1;
  for (std::size_t i = 0; i < states_.size(); ++i) {
    const State& st = states_[i];
    const float* next = st.out->data;
    if (nonfinite_state_ < 0 &&
        !std::all_of(next, next + st.out->size, [](float v) { return std::isfinite(v); })) {
      nonfinite_state_ = static_cast<int>(i);
    }
    if (next != st.in->data) std::memmove(st.in->data, next, st.in->size * sizeof(float));
  }
}

std::size_t OnnxGraph::state_size() const {
  std::size_t n = 0;
  for (const State& st : states_) n += st.in->size;
  return n;
}

std::span<const float> OnnxGraph::StateOf(std::string_view output) const {
  for (const State& st : states_) {
    if (st.out_name == output) return {st.in->data, st.in->size};
  }
  return {};
}

void OnnxGraph::ResetState() {
  for (const State& st : states_) std::fill_n(st.in->data, st.in->size, 0.0f);
  nonfinite_state_ = -1;
}

const char* OnnxGraph::NonFiniteState() const {
  return nonfinite_state_ < 0
             ? nullptr
             : states_[static_cast<std::size_t>(nonfinite_state_)].out_name.c_str();
}

// ---- Factory ----

std::unique_ptr<InferenceRuntime> LoadOnnx(const std::string& path, const StatePairs& state) {
  return OnnxGraph::Load(path, state);
}

}  // namespace robot_edge::policy
