// The ONNX runtime against an independent reference: every case of make_test_models.py (built at
// build time with python3-onnx, random inputs, outputs computed with numpy in float64) must match
// to 1e-5 (relative above 1), allocate nothing in Run(), and every supported operator must appear
// in some case. Then every way a model is refused, each with a message that names the problem.
#include "policy/onnx_graph.hpp"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "allocation_counter.hpp"
#include "malloc_counter.hpp"
#include "model_builder.hpp"

namespace robot_edge::policy {
namespace {

const std::string kDir = POLICY_TEST_MODELS;

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<float> ReadFloats(const std::string& path) {
  const std::string bytes = ReadBytes(path);
  std::vector<float> v(bytes.size() / sizeof(float));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(float));
  return v;
}

std::vector<std::string> CaseNames() {
  std::ifstream in(kDir + "/cases.txt");
  std::vector<std::string> names;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) names.push_back(line);
  }
  return names;
}

// {operator new calls, malloc calls} made by `f` (Eigen allocates through malloc).
template <typename F>
std::pair<std::size_t, std::size_t> CountAllocations(F f) {
  robot_edge::test::AllocationCounter new_counter;
  test::MallocCounter malloc_counter;
  f();
  return {new_counter.count(), malloc_counter.count()};
}

class Operators : public testing::TestWithParam<std::string> {};

TEST_P(Operators, MatchTheNumpyReferenceAndAllocateNothing) {
  const std::string base = kDir + "/" + GetParam();
  const auto graph = OnnxGraph::Load(base + ".onnx");
  const std::vector<float> in = ReadFloats(base + ".in");
  const std::vector<float> expected = ReadFloats(base + ".out");
  ASSERT_GT(graph->input_size(), 0u);
  const std::size_t samples = in.size() / graph->input_size();
  ASSERT_EQ(samples, 8u);
  ASSERT_EQ(expected.size(), samples * graph->output_size());
  std::vector<float> out(graph->output_size());
  for (std::size_t s = 0; s < samples; ++s) {
    const std::span<const float> x(in.data() + s * graph->input_size(), graph->input_size());
    const auto [news, mallocs] = CountAllocations([&] { graph->Run(x, out); });
    EXPECT_EQ(news, 0u) << "Run() called operator new";
    EXPECT_EQ(mallocs, 0u) << "Run() called malloc (Eigen)";
    for (std::size_t i = 0; i < out.size(); ++i) {
      const float want = expected[s * out.size() + i];
      EXPECT_NEAR(out[i], want, 1e-5 * std::max(1.0f, std::fabs(want)))
          << "sample " << s << ", output " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryCase, Operators, testing::ValuesIn(CaseNames()),
                         [](const auto& p) { return p.param; });

// Issue 39, item 6: the actor sizes of Isaac Lab's G1 (96 × 5 = 480 inputs) and humanoid-gym
// (47 × 15 = 705), [512, 256, 128]: an evaluation allocates nothing, the first included (its
// time is policy_bench's, OnnxRun/Actor480… and Actor705…).
TEST(OnnxGraph, LargeActorsAllocateNothing) {
  for (const auto& [inputs, outputs] :
       {std::pair<std::int64_t, std::int64_t>{480, 29}, {705, 12}}) {
    const auto graph =
        OnnxGraph::FromBytes(test::RandomMlp(inputs, {512, 256, 128}, outputs).Bytes(), "mlp");
    ASSERT_EQ(graph->input_size(), static_cast<std::size_t>(inputs));
    const std::vector<float> in(graph->input_size(), 0.1f);
    std::vector<float> out(graph->output_size());
    for (int run = 0; run < 2; ++run) {
      const auto [news, mallocs] = CountAllocations([&] { graph->Run(in, out); });
      EXPECT_EQ(news, 0u) << inputs << " inputs, run " << run << ": operator new";
      EXPECT_EQ(mallocs, 0u) << inputs << " inputs, run " << run << ": malloc (Eigen)";
    }
    for (const float v : out) EXPECT_TRUE(std::isfinite(v)) << inputs << " inputs";
  }
}

TEST(Operators, EverySupportedOperatorIsCovered) {
  std::set<std::string> seen;
  bool typed = false, raw = false;
  for (const std::string& name : CaseNames()) {
    onnx::ModelProto m;
    ASSERT_TRUE(m.ParseFromString(ReadBytes(kDir + "/" + name + ".onnx")));
    for (const auto& n : m.graph().node()) seen.insert(n.op_type());
    for (const auto& t : m.graph().initializer()) {
      (t.has_raw_data() ? raw : typed) = true;
    }
  }
  for (const char* op :
       {"Gemm", "MatMul", "Add", "Sub", "Mul", "Div", "Relu", "Elu", "LeakyRelu", "Tanh", "Sigmoid",
        "Clip", "Concat", "Identity", "Constant", "Reshape", "Flatten", "Squeeze", "Unsqueeze"}) {
    EXPECT_TRUE(seen.contains(op)) << op << " has no test case";
  }
  EXPECT_TRUE(raw) << "no initializer in raw_data";
  EXPECT_TRUE(typed) << "no initializer in the typed fields";
}

TEST(OnnxGraph, ShapesAndDescription) {
  const auto g = OnnxGraph::Load(kDir + "/actor_mlp.onnx");
  EXPECT_EQ(g->input_shape(), (Shape{1, 45}));
  EXPECT_EQ(g->output_shape(), (Shape{1, 12}));
  EXPECT_EQ(g->input_size(), 45u);
  EXPECT_EQ(g->output_size(), 12u);
  EXPECT_NE(g->Describe().find("45 -> 12"), std::string::npos) << g->Describe();
  EXPECT_NE(g->Describe().find("Gemm 3"), std::string::npos) << g->Describe();
  // The factory behind the interface gives the same network.
  const auto r = LoadOnnx(kDir + "/actor_mlp.onnx");
  EXPECT_EQ(r->input_size(), 45u);
}

TEST(OnnxGraph, FoldsConstantsAtLoad) {
  const auto g = OnnxGraph::Load(kDir + "/constant_folding.onnx");
  // Mul and Relu of initializers were computed once: one kernel (the Gemm) is left.
  EXPECT_NE(g->Describe().find(", 1 kernels"), std::string::npos) << g->Describe();
}

TEST(OnnxGraph, AnInputOfShapeNWorksLikeOneOfShapeOneN) {
  test::ModelBuilder b;
  b.Input("obs", {3}).Output("y", {3});
  b.Node("Relu", {"obs"}, "y");
  const auto g = OnnxGraph::FromBytes(b.Bytes(), "relu");
  const std::vector<float> in{-1.0f, 0.5f, 2.0f};
  std::vector<float> out(3);
  g->Run(in, out);
  EXPECT_EQ(out, (std::vector<float>{0.0f, 0.5f, 2.0f}));
}

// ---- Rejections ----

struct Rejection {
  const char* model;    // reject_<model>.onnx
  const char* message;  // must appear in the ModelError
};

class Refuses : public testing::TestWithParam<Rejection> {};

TEST_P(Refuses, WithAMessageNamingTheProblem) {
  const std::string path = kDir + "/reject_" + GetParam().model + ".onnx";
  try {
    OnnxGraph::Load(path);
    FAIL() << GetParam().model << " was accepted";
  } catch (const ModelError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(path + ": ", 0), 0u) << "the message must start with the file: " << what;
    EXPECT_NE(what.find(GetParam().message), std::string::npos)
        << "expected '" << GetParam().message << "' in: " << what;
  }
}

INSTANTIATE_TEST_SUITE_P(
    EveryPath, Refuses,
    testing::Values(
        Rejection{"unsupported_op",
                  "uses operator 'Softmax', which this runtime does not evaluate (supported: Gemm, "
                  "MatMul"},
        Rejection{
            "custom_domain",
            "node 'fused' uses operator 'com.microsoft.FusedGemm': only the default ONNX domain"},
        Rejection{"dynamic_input",
                  "input 'x' has shape [batch, 4]: dimension 0 is dynamic; export it with a fixed "
                  "shape [1, N]"},
        Rejection{"no_input_shape", "input 'x' has no shape"},
        Rejection{"input_batch_2", "input 'x' has shape [2, 4]; expected [1, N] or [N]"},
        Rejection{"input_rank_3", "input 'x' has shape [1, 1, 4]; expected [1, N] or [N]"},
        Rejection{"input_int64", "input 'x' is not a FLOAT tensor"},
        Rejection{"two_inputs", "the model has 2 inputs (x, h); a policy takes exactly one"},
        Rejection{"two_outputs", "the model has 2 outputs; a policy gives exactly one"},
        Rejection{"output_declared_wrong", "is declared [1, 5] but the graph computes [1, 4]"},
        Rejection{"opset_6", "opset 6 is older than 7"},
        Rejection{"gemm_inner_mismatch",
                  "(Gemm): A [1, 4] and B [5, 3]: inner dimensions 4 and 5 differ"},
        Rejection{"gemm_runtime_c", "(Gemm): C must be a constant"},
        Rejection{"matmul_3d",
                  "(MatMul): operands [1, 4] and [2, 4, 3]: only 1-D and 2-D operands"},
        Rejection{"reshape_runtime_shape", "the shape must be a constant INT64 tensor"},
        Rejection{"clip_runtime_bound", "(Clip): min and max must be constant scalars"},
        Rejection{"double_initializer", "initializer 'c1': element type DOUBLE is not supported"},
        Rejection{"broadcast_mismatch", "(Add): shapes [1, 4] and [1, 3] do not broadcast"},
        Rejection{"undefined_input", "the ONNX checker refuses it"},
        Rejection{"external_data", "initializer 'w': its data is in an external file"},
        Rejection{"raw_size_mismatch", "initializer 'w': 3 values for shape [1, 4] (4)"}),
    [](const auto& p) { return std::string(p.param.model); });

TEST(Refuses, AMissingFile) {
  try {
    LoadOnnx("/nonexistent/walk.onnx");
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/walk.onnx: cannot open the file");
  }
}

TEST(Refuses, AFileThatIsNotAModel) {
  try {
    OnnxGraph::FromBytes("this is not a protobuf \xff\xff\xff", "notes.txt");
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_STREQ(e.what(), "notes.txt: not an ONNX model (it does not parse as a ModelProto)");
  }
}

TEST(Refuses, AModelWithoutTheDefaultOpset) {
  test::ModelBuilder b;
  b.proto().clear_opset_import();
  b.Input("obs", {1, 2}).Output("y", {1, 2});
  b.Node("Relu", {"obs"}, "y");
  EXPECT_THROW(OnnxGraph::FromBytes(b.Bytes(), "m"), ModelError);
}

}  // namespace
}  // namespace robot_edge::policy
