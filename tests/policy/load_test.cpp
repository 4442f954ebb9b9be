// Start-up: the model checked against the configuration (a configuration error naming
// file:line: policy.model), and the shipped example: config/examples/sim-with-policy.yaml with
// the demonstration model, which swings the legs with the command and stills them without.
#include "policy/load.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "model_builder.hpp"
#include "test_config.hpp"

namespace robot_edge::policy {
namespace {

std::string Section(const std::string& model) {
  return "policy:\n  model: " + model + R"(
  joints: [L_Knee, R_Knee]
  action_scale: 0.25
  observation:
    - {term: command}
    - {term: joint_pos}
)";
}

std::vector<std::string> Problems(const config::Config& c) {
  try {
    LoadPolicyModel(config::PolicySetupOf(c));
  } catch (const ModelRefused& e) {
    return e.problems();
  }
  return {};
}

TEST(LoadPolicyModel, AcceptsAModelOfTheRightSizes) {
  const std::string dir = test::ScratchDir("load-ok");
  // 5 inputs (command 3 + joint_pos 2) -> 2 outputs.
  const auto path =
      test::LinearModel(5, 2, std::vector<float>(10, 0.1f), {0, 0}).Write(dir + "/ok.onnx");
  const config::Config c = test::WithPolicy(Section(path));
  const auto runtime = LoadPolicyModel(config::PolicySetupOf(c));
  EXPECT_EQ(runtime->input_size(), 5u);
  EXPECT_NE(MakePolicyRunner(config::PolicySetupOf(c))->Describe().find("; 2 joints at 50 Hz"),
            std::string::npos);
}

TEST(LoadPolicyModel, AnInputLongerThanTheObservationIsAConfigError) {
  const std::string dir = test::ScratchDir("load-input");
  const auto path =
      test::LinearModel(6, 2, std::vector<float>(12, 0.1f), {0, 0}).Write(dir + "/m.onnx");
  const config::Config c = test::WithPolicy(Section(path));
  const auto p = Problems(c);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0],
            c.Where("policy.model") +
                ": the network takes 6 inputs; the observation has command 3 + joint_pos 2 = 5");
  EXPECT_EQ(p[0].rfind("robot-edge.yaml:", 0), 0u) << p[0];
}

TEST(LoadPolicyModel, AnOutputPerPolicyJoint) {
  const std::string dir = test::ScratchDir("load-output");
  const auto path =
      test::LinearModel(5, 3, std::vector<float>(15, 0.1f), {0, 0, 0}).Write(dir + "/m.onnx");
  const auto p = Problems(test::WithPolicy(Section(path)));
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("policy.model: the network gives 3 outputs; policy.joints has 2"),
            std::string::npos)
      << p[0];
}

TEST(LoadPolicyModel, AMissingOrBadModelIsAConfigError) {
  const config::Config missing = test::WithPolicy(Section("/nonexistent/walk.onnx"));
  auto p = Problems(missing);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0], missing.Where("policy.model") + ": /nonexistent/walk.onnx: cannot open the file");

  const std::string dir = test::ScratchDir("load-bad");
  test::ModelBuilder b;
  b.Input("obs", {1, 5}).Output("y", {1, 2});
  b.Node("Softmax", {"obs"}, "y");
  const config::Config bad = test::WithPolicy(Section(b.Write(dir + "/softmax.onnx")));
  p = Problems(bad);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("policy.model: " + dir + "/softmax.onnx: node 'y' uses operator 'Softmax'"),
            std::string::npos)
      << p[0];
}

// A recurrent model (tests/policy/recurrent/lstm_mlp: obs 6, h_in / c_in -> 3 actions, h_out /
// c_out) with its state paired by name, or as policy.recurrent_state lists it.
std::string RecurrentSection(const std::string& state) {
  return "policy:\n  model: " + std::string(POLICY_RECURRENT_FIXTURES) + "/lstm_mlp.onnx\n" +
         R"(  joints: [L_Knee, R_Knee, L_Elbow]
  action_scale: 0.25
  observation: [{term: command}, {term: base_ang_vel}]
)" + state;
}

TEST(LoadPolicyModel, PairsTheRecurrentStateByNameOrAsConfigured) {
  for (const std::string state : {"", "  recurrent_state: {c_in: c_out, h_in: h_out}\n"}) {
    const config::Config c = test::WithPolicy(RecurrentSection(state));
    const auto runtime = LoadPolicyModel(config::PolicySetupOf(c));
    EXPECT_EQ(runtime->state_size(), 16u) << state;
    EXPECT_NE(MakePolicyRunner(config::PolicySetupOf(c))->Describe().find("h_in <- h_out 8"),
              std::string::npos);
  }
  const config::Config wrong =
      test::WithPolicy(RecurrentSection("  recurrent_state: {h_in: h_out, cell_in: c_out}\n"));
  const auto p = Problems(wrong);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("policy.model: " + wrong.policy.model_path +
                      ": the recurrent state input 'cell_in' is not an input of the model"),
            std::string::npos)
      << p[0];
}

// ---- The example configuration and its demonstration model ----

TEST(Example, IsTheDefaultConfigPlusAPolicySection) {
  const std::string base = test::ReadText(ROBOT_EDGE_DEFAULT_CONFIG);
  const std::string example = test::ReadText(ROBOT_EDGE_POLICY_CONFIG);
  ASSERT_GT(example.size(), base.size());
  EXPECT_EQ(example.substr(0, base.size()), base)
      << "config/examples/sim-with-policy.yaml must start with config/robot-edge.yaml, verbatim";
  const config::Config c = config::LoadConfig(ROBOT_EDGE_POLICY_CONFIG);
  EXPECT_TRUE(c.policy.enabled);
  EXPECT_EQ(c.policy.joints.size(), 12u);
  EXPECT_EQ(c.policy.rate_hz, 50.0);
}

// The demo model in a closed loop on a robot that holds still: its actions are the oscillator.
class DemoModel : public testing::Test {
 protected:
  DemoModel()
      : config_(config::LoadConfig(ROBOT_EDGE_POLICY_CONFIG)),
        runner_(MakePolicyRunner(config::PolicySetupOf(config_))) {
    for (std::size_t j = 0; j < 25; ++j)
      joints_[j].position_rad = static_cast<float>(config_.joints[j].stand_rad);
    inputs_.joints = joints_;
    runner_->Reset(now_us_);
  }
  // One policy period (10 control ticks, one inference); L_Hip_Pitch's offset from stand (rad).
  float Step(float vx, float vy = 0, float vyaw = 0) {
    for (int i = 0; i < 10; ++i) {
      now_us_ += 2000;
      ready_ = runner_->Targets(now_us_, sm::Velocity{vx, vy, vyaw}, inputs_, out_).status ==
               sm::PolicyStatus::kTargets;
      if (i == 0) runner_->InferOnce();
    }
    return out_[0].position_rad - static_cast<float>(config_.joints[0].stand_rad);
  }

  config::Config config_;
  std::unique_ptr<PolicyRunner> runner_;
  std::array<sm::JointMeasurement, 25> joints_{};
  sm::Inputs inputs_;
  std::array<sm::JointTarget, 25> out_{};
  std::int64_t now_us_ = 1'000'000;
  bool ready_ = false;
};

TEST_F(DemoModel, SwingsTheLegsAtAboutOneAndAQuarterHertzWhenWalking) {
  float low = 0, high = 0;
  int crossings = 0;
  float previous = 0;
  for (int step = 0; step < 150; ++step) {  // 3 s
    const float hip = Step(0.3f);
    ASSERT_TRUE(ready_);
    if (step >= 50) {  // after 1 s
      low = std::min(low, hip);
      high = std::max(high, hip);
      crossings += (previous < 0) != (hip < 0);
    }
    previous = hip;
  }
  EXPECT_LT(low, -0.1f);
  EXPECT_GT(high, 0.1f);
  EXPECT_GE(crossings, 4);  // 2 s at 1.25 Hz: 5 sign changes
  EXPECT_LE(crossings, 6);
  // The knees swing too, within their limits (0..2.4).
  EXPECT_GT(std::fabs(out_[3].position_rad - 0.6f) + std::fabs(out_[9].position_rad - 0.6f), 0.0f);
  EXPECT_FLOAT_EQ(out_[0].kp, 120.0f);
  EXPECT_FLOAT_EQ(out_[0].kd, 3.0f);
}

TEST_F(DemoModel, StillsAtZeroVelocity) {
  for (int step = 0; step < 100; ++step) Step(0.5f);
  float hip = 1;
  for (int step = 0; step < 100; ++step) hip = Step(0.0f);  // 2 s
  EXPECT_LT(std::fabs(hip), 0.01f);
  EXPECT_LT(std::fabs(out_[3].position_rad - 0.6f), 0.01f);  // L_Knee back at stand
}

TEST_F(DemoModel, LeansTheHipsWithVyAndVyaw) {
  for (int step = 0; step < 20; ++step) Step(0.0f, 0.5f, 0.0f);
  EXPECT_GT(out_[1].position_rad, 0.05f);  // L_Hip_Roll
  EXPECT_GT(out_[7].position_rad, 0.05f);  // R_Hip_Roll
  for (int step = 0; step < 20; ++step) Step(0.0f, 0.0f, 1.0f);
  EXPECT_GT(out_[2].position_rad, 0.05f);  // L_Hip_Yaw
}

// Self-describing models: the metadata `robot-edge-policy import` writes (robot_edge.*, JSON)
// is compared with the policy section as it will run (defaults resolved: L_Knee and R_Knee stand
// at 0.60, kp 150, kd 4 in config/robot-edge.yaml); a mismatch names the config field.
std::string ModelWithMetadata(const std::string& dir,
                              const std::vector<std::pair<std::string, std::string>>& meta) {
  auto b = test::LinearModel(5, 2, std::vector<float>(10, 0.1f), {0, 0});
  for (const auto& [k, v] : meta) {
    auto* entry = b.proto().add_metadata_props();
    entry->set_key(k);
    entry->set_value(v);
  }
  return b.Write(dir + "/meta.onnx");
}

const std::vector<std::pair<std::string, std::string>> kMatching = {
    {"robot_edge.joint_names", R"(["L_Knee", "R_Knee"])"},
    {"robot_edge.default_pose", "[0.6, 0.6]"},
    {"robot_edge.kp", "[150.0, 150.0]"},
    {"robot_edge.kd", "4"},
    {"robot_edge.action_scale", "0.25"},
    {"robot_edge.action_offset", "[0.6, 0.6]"},
    {"robot_edge.rate_hz", "50.0"},
    {"robot_edge.observation", R"([{"term": "command"}, {"term": "joint_pos", "scale": 1.0}])"},
    {"producer.other", "not robot-edge's: ignored"}};

std::vector<std::string> MetadataProblems(const std::string& name, const std::string& key,
                                          const std::string& value) {
  auto meta = kMatching;
  for (auto& [k, v] : meta) {
    if (k == key) v = value;
  }
  return Problems(test::WithPolicy(Section(ModelWithMetadata(test::ScratchDir(name), meta))));
}

TEST(LoadPolicyModel, MetadataThatMatchesTheConfigIsAccepted) {
  const auto path = ModelWithMetadata(test::ScratchDir("meta-ok"), kMatching);
  EXPECT_TRUE(Problems(test::WithPolicy(Section(path))).empty());
}

TEST(LoadPolicyModel, AMetadataMismatchIsRefusedNamingTheField) {
  const config::Config c = test::WithPolicy(Section("x.onnx"));
  const struct {
    const char* key;
    const char* value;
    std::string expected;
  } cases[] = {
      {"robot_edge.joint_names", R"(["R_Knee", "L_Knee"])",
       c.Where("policy.joints") + ": the model's metadata robot_edge.joint_names does not match: "
                                  "joint 0 is R_Knee in the model, L_Knee here"},
      {"robot_edge.default_pose", "[0.6, 0.5]",
       c.Where("policy.default_pose") + ": the model's metadata robot_edge.default_pose does not "
                                        "match: R_Knee: 0.5 in the model, 0.6 here"},
      {"robot_edge.kp", "[150, 200]",
       c.Where("policy.kp") + ": the model's metadata robot_edge.kp does not match: R_Knee: 200 "
                              "in the model, 150 here"},
      {"robot_edge.kd", "[4, 4, 4]",
       c.Where("policy.kd") + ": the model's metadata robot_edge.kd does not match: 3 values in "
                              "the model, 2 here"},
      {"robot_edge.action_scale", "0.5",
       c.Where("policy.action_scale") + ": the model's metadata robot_edge.action_scale does not "
                                        "match: L_Knee: 0.5 in the model, 0.25 here"},
      {"robot_edge.rate_hz", "100",
       c.Where("policy.rate_hz") + ": the model's metadata robot_edge.rate_hz does not match: 100 "
                                   "Hz in the model, 50 here"},
      {"robot_edge.observation", R"([{"term": "command"}, {"term": "joint_vel"}])",
       c.Where("policy.observation[1]") + ": the model's metadata robot_edge.observation does "
                                          "not match: term 1 is joint_vel in the model, "
                                          "joint_pos here"},
      {"robot_edge.observation",
       R"([{"term": "command", "scale": [2, 2, 0.25]}, {"term": "joint_pos"}])",
       c.Where("policy.observation[0].scale") + ": the model's metadata robot_edge.observation "
                                                "does not match: command scale: value 0: 2 in the "
                                                "model, 1 here"},
      {"robot_edge.observation",
       R"([{"term": "command", "clip": [[-0.5, 1.0], [-0.3, 0.3], [-0.2, 0.2]]},
           {"term": "joint_pos"}])",
       c.Where("policy.observation[0].clip") + ": the model's metadata robot_edge.observation "
                                               "does not match: command clip: one in the "
                                               "model, none here"},
      {"robot_edge.action_offset", "[0.6, 0.9]",
       c.Where("policy.action_offset") + ": the model's metadata robot_edge.action_offset does "
                                         "not match: R_Knee: 0.9 in the model, 0.6 here"},
      {"robot_edge.observation", R"([{"term": "command", "history": 3}, {"term": "joint_pos"}])",
       c.Where("policy.observation[0].history") + ": the model's metadata "
                                                  "robot_edge.observation does not match: command "
                                                  "history: 3 in the model, 1 here"},
      {"robot_edge.kp", "[150, ",
       c.Where("policy.model") + ": the model's metadata robot_edge.kp: not valid JSON at "
                                 "character 6"},
  };
  int n = 0;
  for (const auto& k : cases) {
    const auto p = MetadataProblems("meta-" + std::to_string(n++), k.key, k.value);
    ASSERT_EQ(p.size(), 1u) << k.key << " = " << k.value;
    // The config's file name is the same; its policy.model line names another scratch file.
    EXPECT_EQ(p[0], k.expected) << k.key << " = " << k.value;
  }
}

}  // namespace
}  // namespace robot_edge::policy
