#include "policy/onnx_kernels.hpp"

#include <Eigen/Core>
#include <cstring>

namespace robot_edge::policy {
namespace {

using Eigen::Index;
using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMatrixMap = Eigen::Map<const RowMatrix>;
using MatrixMap = Eigen::Map<RowMatrix>;
using ConstArrayMap = Eigen::Map<const Eigen::ArrayXf>;
using ArrayMap = Eigen::Map<Eigen::ArrayXf>;

// One matrix-vector product per row of the result: M is 1 for a policy's activations, and a
// product of a row vector by a matrix (GEMV) needs no heap workspace, unlike GEMM.
class MatMulKernel final : public Kernel {
 public:
  explicit MatMulKernel(MatMulSpec spec)
      : s_(std::move(spec)),
        m_(s_.trans_a ? s_.a_cols : s_.a_rows),
        n_(s_.trans_b ? s_.b_rows : s_.b_cols) {}

  void Run() override {
    if (s_.trans_a) {
      s_.trans_b ? RunT<true, true>() : RunT<true, false>();
    } else {
      s_.trans_b ? RunT<false, true>() : RunT<false, false>();
    }
  }

 private:
  template <bool kTransA, bool kTransB>
  void RunT() {
    const ConstMatrixMap a(s_.a, s_.a_rows, s_.a_cols);
    const ConstMatrixMap b(s_.b, s_.b_rows, s_.b_cols);
    MatrixMap y(s_.y, m_, n_);
    if (s_.bias.empty()) {
      y.setZero();
    } else {
      y = ConstMatrixMap(s_.bias.data(), m_, n_);
    }
    for (Index i = 0; i < m_; ++i) {
      if constexpr (kTransA && kTransB) {
        y.row(i).noalias() += (s_.alpha * a.col(i).transpose()) * b.transpose();
      } else if constexpr (kTransA) {
        y.row(i).noalias() += (s_.alpha * a.col(i).transpose()) * b;
      } else if constexpr (kTransB) {
        y.row(i).noalias() += (s_.alpha * a.row(i)) * b.transpose();
      } else {
        y.row(i).noalias() += (s_.alpha * a.row(i)) * b;
      }
    }
  }

  MatMulSpec s_;
  Index m_, n_;
};

template <BinaryOp kOp>
float Apply(float a, float b) {
  if constexpr (kOp == BinaryOp::kAdd) return a + b;
  if constexpr (kOp == BinaryOp::kSub) return a - b;
  if constexpr (kOp == BinaryOp::kMul) return a * b;
  if constexpr (kOp == BinaryOp::kDiv) return a / b;
}

// How one operand reaches the output's elements: one to one, one value for all, or through an
// index table (general broadcasting, e.g. [3, 1] + [1, 4]).
enum class Reach { kSame, kScalar, kIndexed };

template <BinaryOp kOp>
class BinaryKernel final : public Kernel {
 public:
  BinaryKernel(const float* a, const Shape& a_shape, const float* b, const Shape& b_shape, float* y,
               const Shape& y_shape)
      : a_(a), b_(b), y_(y), n_(static_cast<Index>(NumElements(y_shape))) {
    a_reach_ = ReachOf(a_shape, y_shape, &a_index_);
    b_reach_ = ReachOf(b_shape, y_shape, &b_index_);
  }

  void Run() override {
    ArrayMap y(y_, n_);
    if (a_reach_ == Reach::kSame && b_reach_ == Reach::kSame) {
      const ConstArrayMap a(a_, n_), b(b_, n_);
      if constexpr (kOp == BinaryOp::kAdd) y = a + b;
      if constexpr (kOp == BinaryOp::kSub) y = a - b;
      if constexpr (kOp == BinaryOp::kMul) y = a * b;
      if constexpr (kOp == BinaryOp::kDiv) y = a / b;
    } else if (a_reach_ == Reach::kSame && b_reach_ == Reach::kScalar) {
      const float b = *b_;
      y = ConstArrayMap(a_, n_).unaryExpr([b](float a) { return Apply<kOp>(a, b); });
    } else if (a_reach_ == Reach::kScalar && b_reach_ == Reach::kSame) {
      const float a = *a_;
      y = ConstArrayMap(b_, n_).unaryExpr([a](float b) { return Apply<kOp>(a, b); });
    } else {
      for (Index i = 0; i < n_; ++i)
        y_[i] = Apply<kOp>(a_[At(a_reach_, a_index_, i)], b_[At(b_reach_, b_index_, i)]);
    }
  }

 private:
  static Reach ReachOf(const Shape& in, const Shape& out, std::vector<std::uint32_t>* index) {
    // Broadcasting only repeats: as many elements means one to one, in the same order.
    if (NumElements(in) == NumElements(out)) return Reach::kSame;
    if (NumElements(in) == 1) return Reach::kScalar;
    *index = BroadcastIndex(in, out);
    return Reach::kIndexed;
  }
  static Index At(Reach reach, const std::vector<std::uint32_t>& index, Index i) {
    switch (reach) {
      case Reach::kSame: return i;
      case Reach::kScalar: return 0;
      case Reach::kIndexed: return index[static_cast<std::size_t>(i)];
    }
    return 0;
  }

  const float* a_;
  const float* b_;
  float* y_;
  Index n_;
  Reach a_reach_, b_reach_;
  std::vector<std::uint32_t> a_index_, b_index_;
};

class UnaryKernel final : public Kernel {
 public:
  UnaryKernel(UnarySpec spec, const float* x, float* y, std::size_t n)
      : s_(spec), x_(x), y_(y), n_(static_cast<Index>(n)) {}

  void Run() override {
    const ConstArrayMap x(x_, n_);
    ArrayMap y(y_, n_);
    switch (s_.op) {
      case UnaryOp::kRelu: y = x.max(0.0f); break;
      case UnaryOp::kElu: y = (x > 0.0f).select(x, s_.alpha * x.expm1()); break;
      case UnaryOp::kLeakyRelu: y = (x >= 0.0f).select(x, s_.alpha * x); break;
      case UnaryOp::kTanh: y = x.tanh(); break;
      case UnaryOp::kSigmoid: y = x.logistic(); break;
      case UnaryOp::kClip: y = x.max(s_.lo).min(s_.hi); break;
    }
  }

 private:
  UnarySpec s_;
  const float* x_;
  float* y_;
  Index n_;
};

class ConcatKernel final : public Kernel {
 public:
  ConcatKernel(const std::vector<ConcatInput>& inputs, std::size_t axis, float* y) : y_(y) {
    const Shape& first = inputs.front().shape;
    outer_ = 1;
    for (std::size_t d = 0; d < axis; ++d) outer_ *= static_cast<std::size_t>(first[d]);
    for (const ConcatInput& in : inputs) {
      std::size_t block = 1;
      for (std::size_t d = axis; d < in.shape.size(); ++d)
        block *= static_cast<std::size_t>(in.shape[d]);
      chunks_.push_back({in.data, block});
    }
  }

  void Run() override {
    float* y = y_;
    for (std::size_t o = 0; o < outer_; ++o) {
      for (const Chunk& c : chunks_) {
        std::memcpy(y, c.data + o * c.block, c.block * sizeof(float));
        y += c.block;
      }
    }
  }

 private:
  struct Chunk {
    const float* data;
    std::size_t block;  // elements per outer index
  };
  float* y_;
  std::size_t outer_ = 1;
  std::vector<Chunk> chunks_;
};

}  // namespace

std::unique_ptr<Kernel> MakeMatMul(MatMulSpec spec) {
  return std::make_unique<MatMulKernel>(std::move(spec));
}

std::unique_ptr<Kernel> MakeBinary(BinaryOp op, const float* a, const Shape& a_shape,
                                   const float* b, const Shape& b_shape, float* y,
                                   const Shape& y_shape) {
  switch (op) {
    case BinaryOp::kAdd:
      return std::make_unique<BinaryKernel<BinaryOp::kAdd>>(a, a_shape, b, b_shape, y, y_shape);
    case BinaryOp::kSub:
      return std::make_unique<BinaryKernel<BinaryOp::kSub>>(a, a_shape, b, b_shape, y, y_shape);
    case BinaryOp::kMul:
      return std::make_unique<BinaryKernel<BinaryOp::kMul>>(a, a_shape, b, b_shape, y, y_shape);
    case BinaryOp::kDiv:
      return std::make_unique<BinaryKernel<BinaryOp::kDiv>>(a, a_shape, b, b_shape, y, y_shape);
  }
  return nullptr;
}

std::unique_ptr<Kernel> MakeUnary(UnarySpec spec, const float* x, float* y, std::size_t n) {
  return std::make_unique<UnaryKernel>(spec, x, y, n);
}

std::unique_ptr<Kernel> MakeConcat(const std::vector<ConcatInput>& inputs, std::size_t axis,
                                   float* y) {
  return std::make_unique<ConcatKernel>(inputs, axis, y);
}

}  // namespace robot_edge::policy
