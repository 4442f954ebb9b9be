// The computing steps of an evaluated ONNX graph, each bound at load time to the buffers it reads
// and writes: Run() only computes (Eigen), it never allocates, checks or throws. Shapes are
// checked by the graph (onnx_graph.cpp) before a kernel is made.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "policy/onnx_tensor.hpp"

namespace robot_edge::policy {

class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual void Run() = 0;
};

// y (M×N) = alpha · op(a) · op(b) + bias, row-major; op = transpose when trans_*. a is stored
// a_rows×a_cols, b b_rows×b_cols; bias is M×N already scaled (Gemm's beta·C broadcast), or
// empty. Gemm and MatMul.
struct MatMulSpec {
  const float* a = nullptr;
  std::int64_t a_rows = 0, a_cols = 0;
  bool trans_a = false;
  const float* b = nullptr;
  std::int64_t b_rows = 0, b_cols = 0;
  bool trans_b = false;
  float alpha = 1.0f;
  std::vector<float> bias;
  float* y = nullptr;
};
std::unique_ptr<Kernel> MakeMatMul(MatMulSpec spec);

enum class BinaryOp { kAdd, kSub, kMul, kDiv };
// y = a op b with numpy broadcasting; y_shape = Broadcast(a_shape, b_shape).
std::unique_ptr<Kernel> MakeBinary(BinaryOp op, const float* a, const Shape& a_shape,
                                   const float* b, const Shape& b_shape, float* y,
                                   const Shape& y_shape);

enum class UnaryOp { kRelu, kElu, kLeakyRelu, kTanh, kSigmoid, kClip };
struct UnarySpec {
  UnaryOp op = UnaryOp::kRelu;
  float alpha = 0.0f;  // Elu, LeakyRelu
  float lo = 0.0f;     // Clip
  float hi = 0.0f;     // Clip
};
// y = f(x), element by element, n elements.
std::unique_ptr<Kernel> MakeUnary(UnarySpec spec, const float* x, float* y, std::size_t n);

// y = the inputs joined along `axis` (normalized, 0 <= axis < rank); the shapes agree except
// on `axis`.
struct ConcatInput {
  const float* data;
  Shape shape;
};
std::unique_ptr<Kernel> MakeConcat(const std::vector<ConcatInput>& inputs, std::size_t axis,
                                   float* y);

}  // namespace robot_edge::policy
