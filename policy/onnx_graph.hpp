// An ONNX model evaluated with Eigen: the operators of the MLP actors that legged_gym, Isaac Lab
// and humanoid-gym export, and nothing else.
//
// Supported (default domain, opset 7 and later): Gemm, MatMul (1-D and 2-D operands), Add, Sub,
// Mul, Div (numpy broadcasting), Relu, Elu, LeakyRelu, Tanh, Sigmoid, Clip (bounds as attributes
// before opset 11, constant inputs from 11), Concat, Identity, Constant, and the shape-only
// Reshape, Flatten, Squeeze, Unsqueeze (shapes and axes constant). Initializers are FLOAT (or
// INT64 for shapes and axes), from raw_data or from the typed fields.
//
// Load() does everything once: parses the file, runs ONNX's checker, checks the one input (FLOAT,
// fixed shape [1, N] or [N]) and the one output, pairs the recurrent state's inputs and outputs
// (StatePairs, runtime.hpp: each of fixed shape, as long as its partner), infers every shape, folds
// what depends only on constants, allocates one buffer per value (shape-only operators share their
// input's buffer) and binds a kernel to each remaining node. Run() then copies the input in, runs
// the kernels in order, copies the output out and each state output into its input for the next
// Run(): no allocation, no exception. Anything else (another operator or domain, a dynamic or wrong
// input shape, two unpaired inputs, a missing or unreadable file, data in an external file) is a
// ModelError naming it.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "policy/onnx_kernels.hpp"
#include "policy/onnx_tensor.hpp"
#include "policy/runtime.hpp"

namespace onnx {
class ModelProto;
class NodeProto;
class ValueInfoProto;
}  // namespace onnx

namespace robot_edge::policy {

class OnnxGraph final : public InferenceRuntime {
 public:
  // `name` is used in messages (the file's path).
  static std::unique_ptr<OnnxGraph> Load(const std::string& path, const StatePairs& state = {});
  static std::unique_ptr<OnnxGraph> FromBytes(std::string_view bytes, const std::string& name,
                                              const StatePairs& state = {});
  static std::unique_ptr<OnnxGraph> FromModel(const onnx::ModelProto& model,
                                              const std::string& name,
                                              const StatePairs& state = {});

  std::size_t input_size() const override { return input_->size; }
  std::size_t output_size() const override { return output_->size; }
  void Run(std::span<const float> in, std::span<float> out) override;
  std::string Describe() const override { return description_; }
  std::size_t state_size() const override;
  void ResetState() override;
  const char* NonFiniteState() const override;

  const Shape& input_shape() const { return input_->shape; }
  const Shape& output_shape() const { return output_->shape; }
  // The recurrent state that `output` (e.g. "h_out") left for the next Run() (empty when no
  // state output has that name).
  std::span<const float> StateOf(std::string_view output) const;

 private:
  // One value of the graph: the input, an initializer, a node's output.
  struct Value {
    Shape shape;
    std::size_t size = 0;            // elements
    bool constant = false;           // known at load time
    bool is_int = false;             // INT64 constant (shapes, axes)
    std::vector<float> storage;      // owned elements (empty for a shape-only alias)
    std::vector<std::int64_t> ints;  // is_int
    float* data = nullptr;           // storage.data(), or the aliased value's
  };

  // A recurrent state: `out` (computed) is copied into `in` (a graph input) after each Run().
  struct State {
    std::string in_name, out_name;
    Value* in = nullptr;
    Value* out = nullptr;
  };

  explicit OnnxGraph(std::string name) : name_(std::move(name)) {}
  void Build(const onnx::ModelProto& model, const StatePairs& state);
  void CheckOperators(const onnx::ModelProto& model);
  void PairState(const onnx::ModelProto& model, const StatePairs& state);
  Value* AddGraphInput(const onnx::ValueInfoProto& in, bool observation);
  void AddInput(const onnx::ModelProto& model);
  void AddNode(const onnx::NodeProto& node, std::size_t index);
  void SetOutput(const onnx::ModelProto& model);

  // Node helpers (node_ is the node being added).
  [[noreturn]] void Fail(const std::string& message) const;
  Value* Input(std::size_t i, bool optional = false);
  Value* FloatInput(std::size_t i, bool optional = false);
  // A value of `shape`, zeroed, owned by the graph and found by `name`.
  Value* NewValue(const Shape& shape, const std::string& name);
  Value* NewOutput(const Shape& shape, std::size_t index = 0);
  Value* AliasOutput(Value* source, const Shape& shape);
  void Bind(std::unique_ptr<Kernel> kernel, const std::vector<const Value*>& inputs, Value* out);
  std::vector<std::int64_t> ConstantInts(std::size_t input, const char* what);

  void AddGemm(bool is_gemm);
  void AddBinary(BinaryOp op);
  void AddUnary(UnarySpec spec);
  void AddClip();
  void AddConcat();
  void AddConstant();
  void AddReshape();
  void AddFlatten();
  void AddSqueeze(bool unsqueeze);
  void AddRecurrent(bool lstm);  // onnx_recurrent.cpp

  std::string name_;
  std::int64_t opset_ = 0;
  const onnx::NodeProto* node_ = nullptr;
  std::string node_label_;
  std::vector<std::unique_ptr<Value>> values_;
  std::map<std::string, Value*, std::less<>> by_name_;
  Value* input_ = nullptr;
  Value* output_ = nullptr;
  std::vector<State> states_;
  int nonfinite_state_ = -1;  // index into states_ after the latest Run(), -1 when all finite
  std::vector<std::unique_ptr<Kernel>> steps_;
  std::string description_;
};

}  // namespace robot_edge::policy
