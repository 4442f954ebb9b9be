// Small ONNX models built in C++ with the protobuf classes of libonnx-dev, for the policy tests
// and the end-to-end test: an identity, a linear layer, and a builder for anything else.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace robot_edge::policy::test {

class ModelBuilder {
 public:
  explicit ModelBuilder(std::int64_t opset = 13);

  // A FLOAT graph input / output of fixed shape.
  ModelBuilder& Input(const std::string& name, const std::vector<std::int64_t>& shape);
  ModelBuilder& Output(const std::string& name, const std::vector<std::int64_t>& shape);
  // A FLOAT initializer, in raw_data (raw) or in float_data.
  ModelBuilder& Initializer(const std::string& name, const std::vector<std::int64_t>& shape,
                            const std::vector<float>& values, bool raw = true);
  onnx::NodeProto& Node(const std::string& op, const std::vector<std::string>& inputs,
                        const std::string& output);

  onnx::ModelProto& proto() { return model_; }
  std::string Bytes() const;
  // Writes the model to `path`; returns `path`.
  std::string Write(const std::string& path) const;

 private:
  onnx::ModelProto model_;
};

// obs [1, n] -> Identity -> out [1, n].
ModelBuilder IdentityModel(std::size_t n);
// obs [1, inputs] -> Gemm(obs, W^T, b) -> actions [1, outputs]; weights row-major
// outputs × inputs.
ModelBuilder LinearModel(std::size_t inputs, std::size_t outputs, const std::vector<float>& weights,
                         const std::vector<float>& bias);

// An actor MLP of the usual training stacks: obs [1, inputs] -> (Gemm transB -> Elu) per hidden
// layer -> Gemm -> actions [1, outputs], with weights and biases drawn from N(0, 0.1) (seed 7).
ModelBuilder RandomMlp(std::int64_t inputs, const std::vector<std::int64_t>& hidden,
                       std::int64_t outputs);

}  // namespace robot_edge::policy::test
