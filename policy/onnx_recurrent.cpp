// OnnxGraph's recurrent nodes, LSTM and GRU, with ONNX's semantics (operator spec, opset 7 / 14):
//
//   LSTM (gates i, o, f, c in W, R, B):        GRU (gates z, r, h):
//     i = σ(x·Wiᵀ + h·Riᵀ + Wbi + Rbi)            z = σ(x·Wzᵀ + h·Rzᵀ + Wbz + Rbz)
//     o = σ(x·Woᵀ + h·Roᵀ + Wbo + Rbo)            r = σ(x·Wrᵀ + h·Rrᵀ + Wbr + Rbr)
//     f = σ(x·Wfᵀ + h·Rfᵀ + Wbf + Rbf)            n = tanh(x·Whᵀ + (r⊙h)·Rhᵀ + Rbh + Wbh)
//     g = tanh(x·Wcᵀ + h·Rcᵀ + Wbc + Rbc)           or, linear_before_reset = 1 (torch's):
//     c' = f⊙c + i⊙g                              n = tanh(x·Whᵀ + r⊙(h·Rhᵀ + Rbh) + Wbh)
//     h' = o⊙tanh(c')                             h' = (1 - z)⊙n + z⊙h
//
// over X's seq_length steps, from initial_h / initial_c (zeros when absent). Outputs Y (every
// step's h, [seq, 1, 1, H]), Y_h and Y_c (the last h and c, [1, 1, H]), each optional.
// Supported: direction forward, the default activations, layout 0, batch 1, no peepholes (P), no
// clip, no input_forget; W, R and B constant (initializers); sequence_lens absent or a constant
// equal to seq_length. Anything else is refused, naming the node and the attribute or input.
#include <onnx/onnx_pb.h>

#include <Eigen/Core>
#include <algorithm>

#include "policy/onnx_graph.hpp"

namespace robot_edge::policy {
namespace {

using Eigen::Index;
using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMatrixMap = Eigen::Map<const RowMatrix>;
using ConstVectorMap = Eigen::Map<const Eigen::VectorXf>;
using VectorMap = Eigen::Map<Eigen::VectorXf>;

struct RecurrentSpec {
  bool lstm = true;
  bool linear_before_reset = false;  // GRU
  Index hidden = 0, input = 0, seq = 0;
  RowMatrix w;         // gates·H × input
  RowMatrix r;         // gates·H × H
  Eigen::VectorXf wb;  // gates·H (zeros without B)
  Eigen::VectorXf rb;  // gates·H
  const float* x = nullptr;
  const float* h0 = nullptr;  // nullptr: zeros
  const float* c0 = nullptr;  // LSTM; nullptr: zeros
  float* y = nullptr;         // each optional
  float* y_h = nullptr;
  float* y_c = nullptr;
};

// Matrix-vector products into buffers sized at load time: no heap allocation when it runs.
class RecurrentKernel final : public Kernel {
 public:
  explicit RecurrentKernel(RecurrentSpec spec)
      : s_(std::move(spec)),
        gx_(s_.w.rows()),
        gh_(s_.r.rows()),
        h_(s_.hidden),
        c_(s_.hidden),
        rh_(s_.hidden) {
    if (s_.lstm) {
      bias_ = s_.wb + s_.rb;  // one bias per gate
    } else {
      bias_ = s_.wb;
    }
  }

  void Run() override {
    const Index n = s_.hidden;
    if (s_.h0 != nullptr) {
      h_ = ConstVectorMap(s_.h0, n);
    } else {
      h_.setZero();
    }
    if (s_.lstm) {
      if (s_.c0 != nullptr) {
        c_ = ConstVectorMap(s_.c0, n);
      } else {
        c_.setZero();
      }
    }
    for (Index t = 0; t < s_.seq; ++t) {
      const ConstVectorMap x(s_.x + t * s_.input, s_.input);
      gx_.noalias() = s_.w * x;
      gx_ += bias_;
      if (s_.lstm) {
        StepLstm();
      } else {
        StepGru();
      }
      if (s_.y != nullptr) VectorMap(s_.y + t * n, n) = h_;
    }
    if (s_.y_h != nullptr) VectorMap(s_.y_h, n) = h_;
    if (s_.y_c != nullptr) VectorMap(s_.y_c, n) = c_;
  }

 private:
  void StepLstm() {
    const Index n = s_.hidden;
    gh_.noalias() = s_.r * h_;
    gx_ += gh_;
    auto i = gx_.segment(0, n).array().logistic();
    auto o = gx_.segment(n, n).array().logistic();
    auto f = gx_.segment(2 * n, n).array().logistic();
    auto g = gx_.segment(3 * n, n).array().tanh();
    c_.array() = f * c_.array() + i * g;
    h_.array() = o * c_.array().tanh();
  }

  void StepGru() {
    const Index n = s_.hidden;
    if (s_.linear_before_reset) {
      gh_.noalias() = s_.r * h_;
      gh_ += s_.rb;
      gx_.segment(0, 2 * n) += gh_.segment(0, 2 * n);
      gx_.segment(0, 2 * n).array() = gx_.segment(0, 2 * n).array().logistic();  // z, r
      gx_.segment(2 * n, n).array() += gx_.segment(n, n).array() * gh_.segment(2 * n, n).array();
    } else {
      gh_.segment(0, 2 * n).noalias() = s_.r.topRows(2 * n) * h_;
      gh_.segment(0, 2 * n) += s_.rb.segment(0, 2 * n);
      gx_.segment(0, 2 * n) += gh_.segment(0, 2 * n);
      gx_.segment(0, 2 * n).array() = gx_.segment(0, 2 * n).array().logistic();  // z, r
      rh_.array() = gx_.segment(n, n).array() * h_.array();
      gh_.segment(2 * n, n).noalias() = s_.r.bottomRows(n) * rh_;
      gx_.segment(2 * n, n) += gh_.segment(2 * n, n) + s_.rb.segment(2 * n, n);
    }
    auto z = gx_.segment(0, n).array();
    auto h_new = gx_.segment(2 * n, n).array().tanh();
    h_.array() = (1.0f - z) * h_new + z * h_.array();
  }

  RecurrentSpec s_;
  Eigen::VectorXf bias_;  // LSTM: Wb + Rb; GRU: Wb (Rb is added with R·h)
  Eigen::VectorXf gx_, gh_, h_, c_, rh_;
};

const onnx::AttributeProto* Find(const onnx::NodeProto& node, const char* name) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

}  // namespace

// Inputs: X, W, R, B, sequence_lens, initial_h, initial_c (LSTM), P (LSTM).
// Outputs: Y, Y_h, Y_c (LSTM).
void OnnxGraph::AddRecurrent(bool lstm) {
  const std::int64_t gates = lstm ? 4 : 3;
  const std::size_t max_outputs = lstm ? 3 : 2;
  if (node_->output_size() < 1 || static_cast<std::size_t>(node_->output_size()) > max_outputs) {
    Fail("has " + std::to_string(node_->output_size()) + " outputs");
  }
  // Attributes: what changes the arithmetic and is not supported is refused by name.
  for (const auto& a : node_->attribute()) {
    const std::string& name = a.name();
    if (name == "hidden_size") continue;
    if (name == "direction") {
      if (a.s() != "forward") {
        Fail("attribute direction '" + a.s() + "' is not supported (only forward)");
      }
    } else if (name == "layout") {
      if (a.i() != 0) Fail("attribute layout " + std::to_string(a.i()) + " is not supported (0)");
    } else if (name == "linear_before_reset" && !lstm) {
      continue;
    } else if (name == "input_forget" && lstm) {
      if (a.i() != 0) Fail("attribute input_forget " + std::to_string(a.i()) + " is not supported");
    } else if (name == "activations") {
      const std::vector<std::string> defaults =
          lstm ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
               : std::vector<std::string>{"Sigmoid", "Tanh"};
      if (!std::equal(a.strings().begin(), a.strings().end(), defaults.begin(), defaults.end())) {
        std::string list;
        for (const auto& f : a.strings()) list += (list.empty() ? "" : ", ") + f;
        Fail("attribute activations [" + list + "] is not supported (only the default)");
      }
    } else {
      Fail("attribute " + name + " is not supported");  // clip, activation_alpha/beta, ...
    }
  }
  const bool linear_before_reset = !lstm && Find(*node_, "linear_before_reset") != nullptr &&
                                   Find(*node_, "linear_before_reset")->i() != 0;

  Value* x = FloatInput(0);
  Value* w = FloatInput(1);
  Value* r = FloatInput(2);
  Value* b = FloatInput(3, /*optional=*/true);
  Value* seq_lens = Input(4, /*optional=*/true);
  Value* h0 = FloatInput(5, /*optional=*/true);
  Value* c0 = lstm ? FloatInput(6, /*optional=*/true) : nullptr;
  if (lstm && Input(7, /*optional=*/true) != nullptr) {
    Fail("input P (peepholes) is not supported");
  }
  if (x->shape.size() != 3) Fail("X " + ToString(x->shape) + " must be [seq_length, batch, input]");
  const std::int64_t seq = x->shape[0], batch = x->shape[1], input = x->shape[2];
  if (batch != 1)
    Fail("X " + ToString(x->shape) + ": batch " + std::to_string(batch) +
         " is not supported (only batch 1)");
  if (x->constant) Fail("X is a constant");
  for (const auto& [v, what] : {std::pair{w, "W"}, std::pair{r, "R"}, std::pair{b, "B"}}) {
    if (v != nullptr && !v->constant)
      Fail(std::string(what) + " must be a constant (an initializer)");
  }
  if (w->shape.size() != 3 || w->shape[0] != 1 || w->shape[1] % gates != 0 ||
      w->shape[2] != input) {
    Fail("W " + ToString(w->shape) + " must be [1, " + std::to_string(gates) + "·hidden, " +
         std::to_string(input) + "] (one direction)");
  }
  const std::int64_t hidden = w->shape[1] / gates;
  if (const auto* hs = Find(*node_, "hidden_size"); hs != nullptr && hs->i() != hidden) {
    Fail("attribute hidden_size " + std::to_string(hs->i()) + " does not match W " +
         ToString(w->shape));
  }
  if (r->shape != Shape{1, gates * hidden, hidden}) {
    Fail("R " + ToString(r->shape) + " must be " + ToString({1, gates * hidden, hidden}));
  }
  if (b != nullptr && b->shape != Shape{1, 2 * gates * hidden}) {
    Fail("B " + ToString(b->shape) + " must be " + ToString({1, 2 * gates * hidden}));
  }
  if (seq_lens != nullptr) {
    const bool all_full = seq_lens->constant && seq_lens->is_int && seq_lens->ints.size() == 1 &&
                          seq_lens->ints[0] == seq;
    if (!all_full) {
      Fail("input sequence_lens must be absent or the constant [" + std::to_string(seq) + "]");
    }
  }
  const Shape state_shape{1, 1, hidden};
  for (const auto& [v, what] : {std::pair{h0, "initial_h"}, std::pair{c0, "initial_c"}}) {
    if (v != nullptr && v->size != static_cast<std::size_t>(hidden)) {
      Fail(std::string(what) + " " + ToString(v->shape) + " must be " + ToString(state_shape));
    }
  }

  RecurrentSpec s;
  s.lstm = lstm;
  s.linear_before_reset = linear_before_reset;
  s.hidden = hidden;
  s.input = input;
  s.seq = seq;
  s.w = ConstMatrixMap(w->data, gates * hidden, input);
  s.r = ConstMatrixMap(r->data, gates * hidden, hidden);
  s.wb = Eigen::VectorXf::Zero(gates * hidden);
  s.rb = Eigen::VectorXf::Zero(gates * hidden);
  if (b != nullptr) {
    s.wb = ConstVectorMap(b->data, gates * hidden);
    s.rb = ConstVectorMap(b->data + gates * hidden, gates * hidden);
  }
  s.x = x->data;
  s.h0 = h0 != nullptr ? h0->data : nullptr;
  s.c0 = c0 != nullptr ? c0->data : nullptr;
  const auto has_output = [&](int i) {
    return node_->output_size() > i && !node_->output(i).empty();
  };
  if (has_output(0)) s.y = NewOutput({seq, 1, 1, hidden}, 0)->data;
  if (has_output(1)) s.y_h = NewOutput(state_shape, 1)->data;
  if (lstm && has_output(2)) s.y_c = NewOutput(state_shape, 2)->data;
  steps_.push_back(std::make_unique<RecurrentKernel>(std::move(s)));
}

}  // namespace robot_edge::policy
