// The network behind MOVE/POLICY, behind one small interface: a vector in, a vector out. The
// implementation today evaluates ONNX graphs with Eigen (onnx_graph.hpp); ONNX Runtime or another
// engine can replace it by implementing InferenceRuntime and its own factory, without touching
// the observation, the action mapping or the runner.
//
// Threads: a runtime is used by one thread at a time (the policy's inference thread).
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace robot_edge::policy {

// A model that cannot be used: the message names the file and what is wrong with it (the
// operator, the input's shape, ...). Thrown at start-up only.
class ModelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class InferenceRuntime {
 public:
  virtual ~InferenceRuntime() = default;

  // Number of floats of the network's one input and one output.
  virtual std::size_t input_size() const = 0;
  virtual std::size_t output_size() const = 0;

  // Evaluates the network: in.size() == input_size(), out.size() == output_size(). Should never
  // allocate, block or throw: everything it needs was prepared at load time. (Another engine
  // behind this interface might throw: PolicyRunner catches it and reports a policy fault.)
  virtual void Run(std::span<const float> in, std::span<float> out) = 0;

  // One line for the start-up log, e.g. "45 -> 12, 9 nodes (Gemm 3, Elu 2, Tanh 1, ...)".
  virtual std::string Describe() const = 0;

  // A recurrent network's state (an LSTM's h and c, a GRU's h): each Run() reads it and leaves
  // the next one for the following Run(). Floats of state in all (0 for a feed-forward network).
  virtual std::size_t state_size() const { return 0; }
  // Zeroes the state (entering MOVE/POLICY). Never allocates.
  virtual void ResetState() {}
  // The name of the first state output that held NaN or infinity after the latest Run(), or
  // nullptr when all were finite. Never allocates.
  virtual const char* NonFiniteState() const { return nullptr; }
};

// Which graph output becomes which graph input at the next inference: {input, output} names,
// e.g. {"h_in", "h_out"}. Empty: pair every input "P_in" with the output "P_out", if any (the
// names Isaac Lab's recurrent exporter gives).
using StatePairs = std::vector<std::pair<std::string, std::string>>;

// Loads and checks an ONNX model file (one float input of fixed shape [1, N] or [N], one float
// output, besides the recurrent state's inputs and outputs paired by `state`; only the operators
// listed in onnx_graph.hpp). Throws ModelError.
std::unique_ptr<InferenceRuntime> LoadOnnx(const std::string& path, const StatePairs& state = {});

}  // namespace robot_edge::policy
