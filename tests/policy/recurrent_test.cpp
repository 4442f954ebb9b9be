// LSTM and GRU against torch: every fixture of make_recurrent_fixtures.py (the networks exported
// with torch.onnx, their outputs computed by torch over consecutive steps, checked in under
// tests/policy/recurrent/) must match step by step to 1e-5, actions and state, carrying the state
// from each Run() to the next, allocating nothing; ResetState() starts over. Then the pairing of
// the state inputs and outputs, and every way a recurrent node is refused, each with a message
// that names the node and the attribute or input.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "allocation_counter.hpp"
#include "malloc_counter.hpp"
#include "model_builder.hpp"
#include "policy/onnx_graph.hpp"

namespace robot_edge::policy {
namespace {

const std::string kDir = POLICY_RECURRENT_FIXTURES;

// One step of a fixture: "obs", "actions", "h_out", "c_out" -> values.
using Step = std::map<std::string, std::vector<float>>;

std::vector<Step> ReadFixture(const std::string& name) {
  std::ifstream in(kDir + "/" + name + ".txt");
  std::vector<Step> steps;
  for (std::string line; std::getline(in, line);) {
    std::istringstream s(line);
    std::string key;
    s >> key;
    if (key == "model") continue;
    if (key == "step") {
      steps.emplace_back();
      continue;
    }
    if (key.empty() || steps.empty()) continue;
    std::vector<float> values;
    for (float v; s >> v;) values.push_back(v);
    steps.back()[key] = values;
  }
  return steps;
}

void ExpectNear(std::span<const float> got, const std::vector<float>& want,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 1e-5f * std::max(1.0f, std::fabs(want[i])))
        << what << "[" << i << "]";
  }
}

class Recurrent : public testing::TestWithParam<std::string> {};

TEST_P(Recurrent, MatchesTorchStepByStepCarryingTheStateAndAllocatesNothing) {
  const auto graph = OnnxGraph::Load(kDir + "/" + GetParam() + ".onnx");
  const std::vector<Step> steps = ReadFixture(GetParam());
  ASSERT_GE(steps.size(), 5u);
  const bool lstm = steps.front().contains("c_out");
  EXPECT_EQ(graph->state_size(), steps.front().at("h_out").size() * (lstm ? 2 : 1));
  std::vector<float> out(graph->output_size());
  for (int pass = 0; pass < 2; ++pass) {  // the second after ResetState(): the same again
    for (std::size_t k = 0; k < steps.size(); ++k) {
      const Step& step = steps[k];
      const std::string at = "pass " + std::to_string(pass) + ", step " + std::to_string(k);
      std::size_t news = 0, mallocs = 0;
      {
        robot_edge::test::AllocationCounter new_counter;
        test::MallocCounter malloc_counter;
        graph->Run(step.at("obs"), out);
        news = new_counter.count();
        mallocs = malloc_counter.count();
      }
      EXPECT_EQ(news, 0u) << at << ": Run() called operator new";
      EXPECT_EQ(mallocs, 0u) << at << ": Run() called malloc (Eigen)";
      ExpectNear(out, step.at("actions"), at + ": actions");
      ExpectNear(graph->StateOf("h_out"), step.at("h_out"), at + ": h_out");
      if (lstm) ExpectNear(graph->StateOf("c_out"), step.at("c_out"), at + ": c_out");
      EXPECT_EQ(graph->NonFiniteState(), nullptr);
    }
    graph->ResetState();
    for (float v : graph->StateOf("h_out")) ASSERT_EQ(v, 0.0f);
  }
}

INSTANTIATE_TEST_SUITE_P(TorchFixtures, Recurrent,
                         testing::Values("lstm_mlp", "lstm_nobias", "lstm_seq3", "gru_mlp",
                                         "gru_reset_first", "lstm64_h1"),
                         [](const auto& p) { return p.param; });

TEST(Recurrent, WithoutCarryingTheStateTheSecondStepDiffers) {
  // The check above is only meaningful if the state matters: a fresh network on step 1's input
  // does not give step 1's output.
  const std::vector<Step> steps = ReadFixture("lstm_mlp");
  const auto graph = OnnxGraph::Load(kDir + "/lstm_mlp.onnx");
  std::vector<float> out(graph->output_size());
  graph->Run(steps[1].at("obs"), out);
  float largest = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    largest = std::max(largest, std::fabs(out[i] - steps[1].at("actions")[i]));
  }
  EXPECT_GT(largest, 1e-3f);
}

TEST(Recurrent, WithoutInitialStatesStartsFromZerosEveryRun) {
  // lstm_mlp with its LSTM's initial_h and initial_c removed (and the state inputs and outputs
  // from the graph): every Run() is torch's first step, from zeros.
  onnx::ModelProto m;
  {
    std::ifstream in(kDir + "/lstm_mlp.onnx", std::ios::binary);
    ASSERT_TRUE(m.ParseFromIstream(&in));
  }
  auto* g = m.mutable_graph();
  for (auto& n : *g->mutable_node()) {
    if (n.op_type() == "LSTM") {
      while (n.input_size() > 5) n.mutable_input()->RemoveLast();
    }
  }
  while (g->input_size() > 1) g->mutable_input()->RemoveLast();    // obs, h_in, c_in
  while (g->output_size() > 1) g->mutable_output()->RemoveLast();  // actions, h_out, c_out
  ASSERT_EQ(g->input(0).name(), "obs");
  ASSERT_EQ(g->output(0).name(), "actions");
  const auto graph = OnnxGraph::FromModel(m, "lstm_mlp without initial states");
  EXPECT_EQ(graph->state_size(), 0u);
  const std::vector<Step> steps = ReadFixture("lstm_mlp");
  std::vector<float> out(graph->output_size());
  for (int run = 0; run < 3; ++run) {
    graph->Run(steps[0].at("obs"), out);
    ExpectNear(out, steps[0].at("actions"), "run " + std::to_string(run));
  }
}

TEST(Recurrent, TheStatePairsAsDeclared) {
  const StatePairs pairs{{"c_in", "c_out"}, {"h_in", "h_out"}};
  const auto graph = OnnxGraph::Load(kDir + "/lstm_mlp.onnx", pairs);
  EXPECT_EQ(graph->state_size(), 16u);
  EXPECT_NE(graph->Describe().find("state c_in <- c_out 8, state h_in <- h_out 8"),
            std::string::npos)
      << graph->Describe();
  // The same numbers as paired by name.
  const std::vector<Step> steps = ReadFixture("lstm_mlp");
  std::vector<float> out(graph->output_size());
  for (const Step& step : steps) graph->Run(step.at("obs"), out);
  ExpectNear(out, steps.back().at("actions"), "last step");
}

TEST(Recurrent, AStateNameThatIsNotInTheModelIsRefused) {
  try {
    OnnxGraph::Load(kDir + "/lstm_mlp.onnx", {{"h_in", "h_out"}, {"cell_in", "c_out"}});
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("the recurrent state input 'cell_in' is not an input"),
              std::string::npos)
        << e.what();
  }
  try {
    OnnxGraph::Load(kDir + "/lstm_mlp.onnx", {{"h_in", "hidden_out"}});
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_NE(
        std::string(e.what()).find("the recurrent state output 'hidden_out' is not an output"),
        std::string::npos)
        << e.what();
  }
  // Pairing only h: c_in is an input besides the observation.
  try {
    OnnxGraph::Load(kDir + "/lstm_mlp.onnx", {{"h_in", "h_out"}});
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("2 inputs (obs, c_in) besides its recurrent state"),
              std::string::npos)
        << e.what();
  }
}

// A one-LSTM graph: x [seq, 1, in] from obs, h_in / c_in states, h_out = Y_h, c_out = Y_c,
// actions = Y_h reshaped. Tests edit the node.
struct LstmModel {
  test::ModelBuilder b;
  onnx::NodeProto* node;
  explicit LstmModel(const std::string& op = "LSTM", std::int64_t batch = 1) {
    const std::int64_t h = 2, in = 3, gates = op == "LSTM" ? 4 : 3;
    b.Input("obs", {1, in * batch});
    b.Input("h_in", {1, batch, h});
    if (op == "LSTM") b.Input("c_in", {1, batch, h});
    b.Output("actions", {1, h * batch}).Output("h_out", {1, batch, h});
    if (op == "LSTM") b.Output("c_out", {1, batch, h});
    b.Initializer("W", {1, gates * h, in}, std::vector<float>(gates * h * in, 0.1f));
    b.Initializer("R", {1, gates * h, h}, std::vector<float>(gates * h * h, 0.1f));
    auto& shape = *b.proto().mutable_graph()->add_initializer();
    shape.set_name("x_shape");
    shape.set_data_type(onnx::TensorProto::INT64);
    shape.add_dims(3);
    for (std::int64_t d : {std::int64_t{1}, batch, in}) shape.add_int64_data(d);
    auto& flat = *b.proto().mutable_graph()->add_initializer();
    flat.set_name("a_shape");
    flat.set_data_type(onnx::TensorProto::INT64);
    flat.add_dims(2);
    for (std::int64_t d : {std::int64_t{1}, h * batch}) flat.add_int64_data(d);
    b.Node("Reshape", {"obs", "x_shape"}, "x");
    std::vector<std::string> inputs{"x", "W", "R", "", "", "h_in"};
    if (op == "LSTM") inputs.push_back("c_in");
    node = &b.Node(op, inputs, "");
    node->set_name("rnn");
    node->clear_output();
    node->add_output("");
    node->add_output("h_out");
    if (op == "LSTM") node->add_output("c_out");
    b.Node("Reshape", {"h_out", "a_shape"}, "actions");
  }
  void Attribute(const std::string& name, std::int64_t i) {
    auto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(i);
  }
  void Attribute(const std::string& name, const std::string& s) {
    auto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(s);
  }
  std::string Error() {
    try {
      OnnxGraph::FromBytes(b.Bytes(), "m.onnx");
    } catch (const ModelError& e) {
      return e.what();
    }
    return "accepted";
  }
};

TEST(Recurrent, TheTestModelIsAccepted) {
  EXPECT_EQ(LstmModel().Error(), "accepted");
  EXPECT_EQ(LstmModel("GRU").Error(), "accepted");
}

TEST(RecurrentRefuses, AnotherDirection) {
  LstmModel m;
  m.Attribute("direction", std::string("bidirectional"));
  EXPECT_NE(m.Error().find("node 'rnn' (LSTM): attribute direction 'bidirectional' is not "
                           "supported (only forward)"),
            std::string::npos)
      << m.Error();
  LstmModel g("GRU");
  g.Attribute("direction", std::string("reverse"));
  EXPECT_NE(g.Error().find("node 'rnn' (GRU): attribute direction 'reverse'"), std::string::npos)
      << g.Error();
}

TEST(RecurrentRefuses, Layout1) {
  LstmModel m;
  m.b.proto().mutable_opset_import(0)->set_version(14);  // layout is from opset 14
  m.Attribute("layout", std::int64_t{1});
  EXPECT_NE(m.Error().find("node 'rnn' (LSTM): attribute layout 1 is not supported"),
            std::string::npos)
      << m.Error();
}

TEST(RecurrentRefuses, Clip) {
  LstmModel m;
  auto* a = m.node->add_attribute();
  a->set_name("clip");
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(3.0f);
  EXPECT_NE(m.Error().find("node 'rnn' (LSTM): attribute clip is not supported"), std::string::npos)
      << m.Error();
}

TEST(RecurrentRefuses, InputForget) {
  LstmModel m;
  m.Attribute("input_forget", std::int64_t{1});
  EXPECT_NE(m.Error().find("node 'rnn' (LSTM): attribute input_forget 1 is not supported"),
            std::string::npos)
      << m.Error();
}

TEST(RecurrentRefuses, CustomActivations) {
  LstmModel m;
  auto* a = m.node->add_attribute();
  a->set_name("activations");
  a->set_type(onnx::AttributeProto::STRINGS);
  for (const char* f : {"Sigmoid", "Relu", "Tanh"}) a->add_strings(f);
  EXPECT_NE(m.Error().find("node 'rnn' (LSTM): attribute activations [Sigmoid, Relu, Tanh] is not "
                           "supported (only the default)"),
            std::string::npos)
      << m.Error();
  // The defaults spelled out are fine.
  LstmModel d;
  auto* b = d.node->add_attribute();
  b->set_name("activations");
  b->set_type(onnx::AttributeProto::STRINGS);
  for (const char* f : {"Sigmoid", "Tanh", "Tanh"}) b->add_strings(f);
  EXPECT_EQ(d.Error(), "accepted");
}

TEST(RecurrentRefuses, Peepholes) {
  LstmModel m;
  m.b.Initializer("P", {1, 6}, std::vector<float>(6, 0.0f));
  m.node->add_input("P");
  EXPECT_NE(m.Error().find("node 'rnn' (LSTM): input P (peepholes) is not supported"),
            std::string::npos)
      << m.Error();
}

TEST(RecurrentRefuses, ABatchOtherThanOne) {
  LstmModel m("LSTM", 2);
  EXPECT_NE(m.Error().find("node 'rnn' (LSTM): X [1, 2, 3]: batch 2 is not supported (only batch "
                           "1)"),
            std::string::npos)
      << m.Error();
}

TEST(RecurrentRefuses, WeightsComputedAtRunTime) {
  LstmModel r;
  r.node->set_input(2, "h_in");  // R from an input
  EXPECT_NE(r.Error().find("node 'rnn' (LSTM): R must be a constant (an initializer)"),
            std::string::npos)
      << r.Error();
}

TEST(RecurrentRefuses, AnInitialStateOfAnotherSize) {
  LstmModel m;
  m.b.proto()
      .mutable_graph()
      ->mutable_input(1)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(2)
      ->set_dim_value(3);
  EXPECT_NE(m.Error().find("initial_h [1, 1, 3] must be [1, 1, 2]"), std::string::npos)
      << m.Error();
}

TEST(RecurrentRefuses, AStateOutputOfAnotherSizeThanItsInput) {
  test::ModelBuilder b;
  b.Input("obs", {1, 2}).Input("h_in", {1, 4}).Output("actions", {1, 2}).Output("h_out", {1, 8});
  b.Node("Identity", {"obs"}, "actions");
  b.Node("Concat", {"h_in", "h_in"}, "h_out").add_attribute()->set_name("axis");
  b.proto().mutable_graph()->mutable_node(1)->mutable_attribute(0)->set_type(
      onnx::AttributeProto::INT);
  b.proto().mutable_graph()->mutable_node(1)->mutable_attribute(0)->set_i(1);
  try {
    OnnxGraph::FromBytes(b.Bytes(), "m.onnx");
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("m.onnx: recurrent state output 'h_out' has shape [1, 8] "
                                         "but its input 'h_in' has [1, 4]"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace robot_edge::policy
