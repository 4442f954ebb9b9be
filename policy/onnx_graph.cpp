#include "policy/onnx_graph.hpp"

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

namespace robot_edge::policy {
namespace {

// Every operator this runtime evaluates (the list the messages give).
constexpr const char* kSupported[] = {"Gemm",    "MatMul",  "Add",     "Sub",       "Mul",
                                      "Div",     "Relu",    "Elu",     "LeakyRelu", "Tanh",
                                      "Sigmoid", "Clip",    "Concat",  "Identity",  "Constant",
                                      "Reshape", "Flatten", "Squeeze", "Unsqueeze"};
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

std::unique_ptr<OnnxGraph> OnnxGraph::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelError(path + ": cannot open the file");
  std::stringstream bytes;
  bytes << in.rdbuf();
  return FromBytes(bytes.str(), path);
}

std::unique_ptr<OnnxGraph> OnnxGraph::FromBytes(std::string_view bytes, const std::string& name) {
  onnx::ModelProto model;
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()) ||
      !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    throw ModelError(name + ": not an ONNX model (it does not parse as a ModelProto)");
  }
  return FromModel(model, name);
}

std::unique_ptr<OnnxGraph> OnnxGraph::FromModel(const onnx::ModelProto& model,
                                                const std::string& name) {
  std::unique_ptr<OnnxGraph> graph(new OnnxGraph(name));
  graph->Build(model);
  return graph;
}

void OnnxGraph::Build(const onnx::ModelProto& model) {
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

void OnnxGraph::AddInput(const onnx::ModelProto& model) {
  const onnx::GraphProto& g = model.graph();
  std::vector<const onnx::ValueInfoProto*> inputs;
  for (const auto& in : g.input()) {
    if (!by_name_.contains(in.name())) inputs.push_back(&in);  // IR < 4 lists initializers too
  }
  if (inputs.size() != 1) {
    std::string names;
    for (const auto* in : inputs) names += (names.empty() ? "" : ", ") + in->name();
    throw ModelError(name_ + ": the model has " + std::to_string(inputs.size()) + " inputs" +
                     (names.empty() ? "" : " (" + names + ")") +
                     "; a policy takes exactly one (the observation)");
  }
  const onnx::ValueInfoProto& in = *inputs.front();
  const std::string what = name_ + ": input '" + in.name() + "'";
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
                       " is dynamic; export it with a fixed shape [1, N]");
    }
    shape.push_back(dims[i].dim_value());
  }
  if (!(shape.size() == 1 || (shape.size() == 2 && shape[0] == 1))) {
    throw ModelError(what + " has shape " + ToString(shape) + "; expected [1, N] or [N]");
  }
  auto v = std::make_unique<Value>();
  v->shape = shape;
  v->size = NumElements(shape);
  v->storage.assign(v->size, 0.0f);
  v->data = v->storage.data();
  input_ = v.get();
  by_name_[in.name()] = v.get();
  values_.push_back(std::move(v));
}

void OnnxGraph::SetOutput(const onnx::ModelProto& model) {
  const onnx::GraphProto& g = model.graph();
  if (g.output_size() != 1) {
    throw ModelError(name_ + ": the model has " + std::to_string(g.output_size()) +
                     " outputs; a policy gives exactly one (the actions)");
  }
  const onnx::ValueInfoProto& out = g.output(0);
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
}

// ---- Factory ----

std::unique_ptr<InferenceRuntime> LoadOnnx(const std::string& path) {
  return OnnxGraph::Load(path);
}

}  // namespace robot_edge::policy
