#include "model_builder.hpp"

#include <fstream>
#include <random>
#include <stdexcept>

namespace robot_edge::policy::test {
namespace {

void SetTensorType(onnx::ValueInfoProto* v, const std::string& name,
                   const std::vector<std::int64_t>& shape) {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  for (std::int64_t d : shape) t->mutable_shape()->add_dim()->set_dim_value(d);
}

}  // namespace

ModelBuilder::ModelBuilder(std::int64_t opset) {
  model_.set_ir_version(8);
  model_.set_producer_name("tests/policy/model_builder");
  auto* o = model_.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  model_.mutable_graph()->set_name("test");
}

ModelBuilder& ModelBuilder::Input(const std::string& name, const std::vector<std::int64_t>& shape) {
  SetTensorType(model_.mutable_graph()->add_input(), name, shape);
  return *this;
}

ModelBuilder& ModelBuilder::Output(const std::string& name,
                                   const std::vector<std::int64_t>& shape) {
  SetTensorType(model_.mutable_graph()->add_output(), name, shape);
  return *this;
}

ModelBuilder& ModelBuilder::Initializer(const std::string& name,
                                        const std::vector<std::int64_t>& shape,
                                        const std::vector<float>& values, bool raw) {
  onnx::TensorProto* t = model_.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (std::int64_t d : shape) t->add_dims(d);
  if (raw) {
    t->set_raw_data(
        std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
  } else {
    for (float v : values) t->add_float_data(v);
  }
  return *this;
}

onnx::NodeProto& ModelBuilder::Node(const std::string& op, const std::vector<std::string>& inputs,
                                    const std::string& output) {
  onnx::NodeProto* n = model_.mutable_graph()->add_node();
  n->set_op_type(op);
  n->set_name(output);
  for (const auto& in : inputs) n->add_input(in);
  n->add_output(output);
  return *n;
}

std::string ModelBuilder::Bytes() const { return model_.SerializeAsString(); }

std::string ModelBuilder::Write(const std::string& path) const {
  std::ofstream out(path, std::ios::binary);
  out << Bytes();
  if (!out) throw std::runtime_error("cannot write " + path);
  return path;
}

ModelBuilder IdentityModel(std::size_t n) {
  ModelBuilder b;
  const auto size = static_cast<std::int64_t>(n);
  b.Input("obs", {1, size}).Output("out", {1, size});
  b.Node("Identity", {"obs"}, "out");
  return b;
}

ModelBuilder LinearModel(std::size_t inputs, std::size_t outputs, const std::vector<float>& weights,
                         const std::vector<float>& bias) {
  ModelBuilder b;
  const auto in = static_cast<std::int64_t>(inputs), out = static_cast<std::int64_t>(outputs);
  b.Input("obs", {1, in}).Output("actions", {1, out});
  b.Initializer("weight", {out, in}, weights).Initializer("bias", {out}, bias);
  auto& gemm = b.Node("Gemm", {"obs", "weight", "bias"}, "actions");
  auto* trans_b = gemm.add_attribute();
  trans_b->set_name("transB");
  trans_b->set_type(onnx::AttributeProto::INT);
  trans_b->set_i(1);
  return b;
}

ModelBuilder RandomMlp(std::int64_t inputs, const std::vector<std::int64_t>& hidden,
                       std::int64_t outputs) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 0.1f);
  ModelBuilder b;
  b.Input("obs", {1, inputs}).Output("actions", {1, outputs});
  std::string x = "obs";
  std::int64_t width = inputs;
  std::vector<std::int64_t> layers = hidden;
  layers.push_back(outputs);
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const std::string n = std::to_string(l);
    std::vector<float> w(static_cast<std::size_t>(layers[l] * width)),
        bias(static_cast<std::size_t>(layers[l]));
    for (float& v : w) v = normal(rng);
    for (float& v : bias) v = normal(rng);
    b.Initializer("w" + n, {layers[l], width}, w).Initializer("b" + n, {layers[l]}, bias);
    const bool last = l + 1 == layers.size();
    auto& gemm = b.Node("Gemm", {x, "w" + n, "b" + n}, last ? "actions" : "gemm" + n);
    auto* t = gemm.add_attribute();
    t->set_name("transB");
    t->set_type(onnx::AttributeProto::INT);
    t->set_i(1);
    if (!last) x = b.Node("Elu", {"gemm" + n}, "elu" + n).output(0);
    width = layers[l];
  }
  return b;
}

}  // namespace robot_edge::policy::test
