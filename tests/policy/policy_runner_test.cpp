// The runner's hand-off between the control thread (Targets, Reset) and the inference thread
// (InferOnce), driven by hand, then with its real thread; and Targets() never allocates.
#include "policy/policy_runner.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>
#include <thread>

#include "allocation_counter.hpp"
#include "malloc_counter.hpp"
#include "model_builder.hpp"
#include "policy/onnx_graph.hpp"
#include "test_config.hpp"

namespace robot_edge::policy {
namespace {

constexpr std::size_t kLKnee = 3, kRKnee = 9, kLElbow = 15;

std::unique_ptr<InferenceRuntime> Model(const test::ModelBuilder& b) {
  return OnnxGraph::FromBytes(b.Bytes(), "test");
}

// actions = obs = the command × (2, 2, 0.25), on L_Knee, R_Knee, L_Elbow (default = stand:
// 0.6, 0.6, 0.3), action_scale 0.1.
const char* kCommandSection = R"(
policy:
  model: m.onnx
  joints: [L_Knee, R_Knee, L_Elbow]
  action_scale: 0.1
  kp: 70
  kd: 1.25
  observation: [{term: command, scale: [2.0, 2.0, 0.25]}]
)";

// actions = last_action + 1: counts inferences since the last Reset.
const char* kCounterSection = R"(
policy:
  model: m.onnx
  joints: [L_Knee, R_Knee, L_Elbow]
  action_scale: 0.1
  observation: [{term: last_action}]
)";

test::ModelBuilder PlusOne() {
  test::ModelBuilder b;
  b.Input("obs", {1, 3}).Output("actions", {1, 3}).Initializer("one", {1}, {1.0f});
  b.Node("Add", {"obs", "one"}, "actions");
  return b;
}

struct Tick {
  std::vector<sm::JointMeasurement> joints = std::vector<sm::JointMeasurement>(25);
  sm::Inputs inputs;
  std::vector<sm::JointTarget> out = std::vector<sm::JointTarget>(25);
  std::int64_t now_us = 1'000'000;
  Tick() { inputs.joints = joints; }
  sm::PolicyResult last;  // of the latest Run()
  // One control tick 2 ms after the previous one: true when the policy gave targets.
  bool Run(PolicyRunner& r, float vx = 0, float vy = 0, float vyaw = 0) {
    now_us += 2000;
    last = r.Targets(now_us, sm::Velocity{vx, vy, vyaw}, inputs, out);
    return last.status == sm::PolicyStatus::kTargets;
  }
};

// An engine that throws on its `throw_on`-th evaluation (1-based), else outputs zeros.
class ThrowingRuntime final : public InferenceRuntime {
 public:
  explicit ThrowingRuntime(int throw_on) : throw_on_(throw_on) {}
  std::size_t input_size() const override { return 3; }
  std::size_t output_size() const override { return 3; }
  void Run(std::span<const float>, std::span<float> out) override {
    if (++runs_ == throw_on_) throw std::runtime_error("tensor arena exhausted");
    std::fill(out.begin(), out.end(), 0.0f);
  }
  std::string Describe() const override { return "throwing test runtime"; }

 private:
  int throw_on_;
  int runs_ = 0;
};

TEST(PolicyRunner, NoTargetsBeforeTheFirstInference) {
  const config::Config c = test::WithPolicy(kCommandSection);
  PolicyRunner r(config::PolicySetupOf(c), Model(test::IdentityModel(3)));
  Tick t;
  r.Reset(t.now_us);
  EXPECT_FALSE(t.Run(r, 0.5f));
  EXPECT_EQ(t.last.status, sm::PolicyStatus::kWaiting);
  EXPECT_FALSE(t.Run(r, 0.5f));
  EXPECT_EQ(t.last.status, sm::PolicyStatus::kWaiting);
}

TEST(PolicyRunner, NoFirstTargetsWithinTheStallTimeoutIsAStall) {
  const config::Config c = test::WithPolicy(kCommandSection);  // 50 Hz: two periods, 40 ms
  PolicyRunner r(config::PolicySetupOf(c), Model(test::IdentityModel(3)));
  Tick t;
  r.Reset(t.now_us);
  for (int i = 0; i < 20; ++i) EXPECT_FALSE(t.Run(r)) << i;  // 40 ms
  EXPECT_EQ(t.last.status, sm::PolicyStatus::kWaiting);
  t.Run(r);
  EXPECT_EQ(t.last.status, sm::PolicyStatus::kFault);
  EXPECT_EQ(t.last.fault, sm::PolicyFault::kStale);
  EXPECT_EQ(t.last.detail, 42u);
}

TEST(PolicyRunner, TheModelsTargetsThenHeldBetweenInferences) {
  const config::Config c = test::WithPolicy(kCommandSection);
  PolicyRunner r(config::PolicySetupOf(c), Model(test::IdentityModel(3)));
  Tick t;
  r.Reset(t.now_us);
  EXPECT_FALSE(t.Run(r, 0.5f, -0.25f, 1.0f));
  ASSERT_TRUE(r.InferOnce());
  ASSERT_TRUE(t.Run(r, 0.5f, -0.25f, 1.0f));
  EXPECT_FLOAT_EQ(t.out[kLKnee].position_rad, 0.6f + 0.1f * 1.0f);    // vx × 2
  EXPECT_FLOAT_EQ(t.out[kRKnee].position_rad, 0.6f - 0.1f * 0.5f);    // vy × 2
  EXPECT_FLOAT_EQ(t.out[kLElbow].position_rad, 0.3f + 0.1f * 0.25f);  // vyaw × 0.25
  EXPECT_FLOAT_EQ(t.out[kLKnee].kp, 70.0f);
  EXPECT_FLOAT_EQ(t.out[kLKnee].kd, 1.25f);
  EXPECT_FLOAT_EQ(t.out[0].position_rad, -0.3f);  // L_Hip_Pitch: not the policy's, stand pose
  EXPECT_FLOAT_EQ(t.out[0].kp, 150.0f);
  // A new command: the last targets hold until the next inference.
  for (int i = 0; i < 9; ++i) {
    ASSERT_TRUE(t.Run(r, -1.0f));
    EXPECT_FLOAT_EQ(t.out[kLKnee].position_rad, 0.7f);
  }
  ASSERT_TRUE(r.InferOnce());
  ASSERT_TRUE(t.Run(r, -1.0f));
  EXPECT_FLOAT_EQ(t.out[kLKnee].position_rad, 0.6f - 0.2f);
}

TEST(PolicyRunner, NothingNewNoInference) {
  const config::Config c = test::WithPolicy(kCommandSection);
  PolicyRunner r(config::PolicySetupOf(c), Model(test::IdentityModel(3)));
  EXPECT_FALSE(r.InferOnce());  // nothing published yet: not in MOVE/POLICY
  Tick t;
  r.Reset(t.now_us);
  t.Run(r);
  EXPECT_TRUE(r.InferOnce());
  EXPECT_FALSE(r.InferOnce());
  EXPECT_EQ(r.TakeWindow().total, 1u);
}

TEST(PolicyRunner, ResetClearsTheLastActionAndTheOldTargets) {
  const config::Config c = test::WithPolicy(kCounterSection);
  PolicyRunner r(config::PolicySetupOf(c), Model(PlusOne()));
  Tick t;
  r.Reset(t.now_us);
  for (int n = 1; n <= 3; ++n) {
    t.Run(r);
    ASSERT_TRUE(r.InferOnce());
    ASSERT_TRUE(t.Run(r));
    EXPECT_FLOAT_EQ(t.out[kLKnee].position_rad, 0.6f + 0.1f * static_cast<float>(n)) << n;
  }
  // Leaving and entering MOVE/POLICY again: the old targets are not used, and the last action
  // starts from zero.
  r.Reset(t.now_us);
  EXPECT_FALSE(t.Run(r));
  ASSERT_TRUE(r.InferOnce());
  ASSERT_TRUE(t.Run(r));
  EXPECT_FLOAT_EQ(t.out[kLKnee].position_rad, 0.6f + 0.1f);
}

TEST(PolicyRunner, TargetsOlderThanTwoPeriodsAreAStall) {
  const config::Config c = test::WithPolicy(kCommandSection);  // 50 Hz: 40 ms
  PolicyRunner r(config::PolicySetupOf(c), Model(test::IdentityModel(3)));
  Tick t;
  r.Reset(t.now_us);
  t.Run(r, 0.5f);  // inputs of 1.002 s
  ASSERT_TRUE(r.InferOnce());
  EXPECT_TRUE(t.Run(r, 0.5f));
  t.now_us += 36'000;
  EXPECT_TRUE(t.Run(r, 0.5f)) << "40 ms old";
  EXPECT_FALSE(t.Run(r, 0.5f)) << "42 ms old: the inference thread stalled";
  EXPECT_EQ(t.last.status, sm::PolicyStatus::kFault);
  EXPECT_EQ(t.last.fault, sm::PolicyFault::kStale);
  EXPECT_EQ(t.last.detail, 42u);
}

TEST(PolicyRunner, TheStallTimeoutIsConfigurable) {
  config::Config c = test::WithPolicy(kCommandSection);
  c.policy.stall_timeout_ms = 100;
  PolicyRunner r(config::PolicySetupOf(c), Model(test::IdentityModel(3)));
  Tick t;
  r.Reset(t.now_us);
  t.Run(r);
  ASSERT_TRUE(r.InferOnce());
  t.now_us += 98'000;
  EXPECT_TRUE(t.Run(r)) << "100 ms old";
  EXPECT_FALSE(t.Run(r));
  EXPECT_EQ(t.last.fault, sm::PolicyFault::kStale);
}

TEST(PolicyRunner, AnEvaluationThatThrowsIsAFaultAndTheThreadGoesOn) {
  const config::Config c = test::WithPolicy(kCommandSection);
  PolicyRunner r(config::PolicySetupOf(c), std::make_unique<ThrowingRuntime>(/*throw_on=*/1));
  Tick t;
  r.Reset(t.now_us);
  t.Run(r);
  EXPECT_TRUE(r.InferOnce()) << "the exception does not escape";
  EXPECT_FALSE(t.Run(r));
  EXPECT_EQ(t.last.status, sm::PolicyStatus::kFault);
  EXPECT_EQ(t.last.fault, sm::PolicyFault::kFailed);
  EXPECT_EQ(r.LastFailure(), "tensor arena exhausted");
  EXPECT_EQ(r.TakeWindow().failures_total, 1u);
  // Entering MOVE/POLICY again: a new generation, and the engine works again.
  r.Reset(t.now_us);
  t.Run(r);
  ASSERT_TRUE(r.InferOnce());
  EXPECT_TRUE(t.Run(r));
}

TEST(PolicyRunner, TargetsAndInferenceAllocateNothing) {
  const config::Config c = test::WithPolicy(R"(
policy:
  model: m.onnx
  joints: [L_Hip_Pitch, L_Hip_Roll, L_Hip_Yaw, L_Knee, L_Ankle_A, L_Ankle_B,
           R_Hip_Pitch, R_Hip_Roll, R_Hip_Yaw, R_Knee, R_Ankle_A, R_Ankle_B]
  action_scale: 0.25
  observation:
    - {term: base_ang_vel, scale: 0.25}
    - {term: projected_gravity}
    - {term: command, scale: [2.0, 2.0, 0.25]}
    - {term: joint_pos}
    - {term: joint_vel, scale: 0.05}
    - {term: last_action}
  history: 3
)");
  std::vector<float> w(12 * 135, 0.01f), b(12, 0.0f);
  PolicyRunner r(config::PolicySetupOf(c), Model(test::LinearModel(135, 12, w, b)));
  Tick t;
  r.Reset(t.now_us);
  t.Run(r, 0.3f);
  r.InferOnce();  // warm: the first call of anything may set up lazily
  std::size_t news = 0, mallocs = 0, with_targets = 0;
  {
    robot_edge::test::AllocationCounter new_counter;
    test::MallocCounter malloc_counter;
    for (int tick = 0; tick < 10000; ++tick) {
      with_targets += t.Run(r, 0.3f, 0.1f, -0.2f);
      if (tick % 10 == 0) r.InferOnce();
      if (tick == 5000) r.Reset(t.now_us);
    }
    news = new_counter.count();
    mallocs = malloc_counter.count();
  }
  EXPECT_EQ(news, 0u);
  EXPECT_EQ(mallocs, 0u);
  EXPECT_GT(with_targets, 9900u);
}

TEST(PolicyRunner, ItsThreadRunsAtTheRateOnlyWhenFedAndReportsStatistics) {
  const config::Config c = test::WithPolicy(kCommandSection);  // rate_hz: 50 (the default)
  PolicyRunner r(config::PolicySetupOf(c), Model(test::IdentityModel(3)));
  r.Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(r.TakeWindow().total, 0u) << "no inputs published: nothing to infer";
  Tick t;
  r.Reset(t.now_us);
  bool got = false;
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < std::chrono::milliseconds(500)) {
    t.now_us += 2000;
    got |= r.Targets(t.now_us, sm::Velocity{0.5f, 0, 0}, t.inputs, t.out).status ==
           sm::PolicyStatus::kTargets;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  r.Stop();
  EXPECT_TRUE(got);
  EXPECT_FLOAT_EQ(t.out[kLKnee].position_rad, 0.7f);
  const InferenceWindow w = r.TakeWindow();
  EXPECT_GE(w.count, 5u) << "50 Hz for 0.5 s: 25 (a loaded machine may miss some)";
  EXPECT_LE(w.count, 30u);
  EXPECT_EQ(w.total, w.count);
  EXPECT_GT(w.avg_ms, 0.0);
  EXPECT_GE(w.max_ms, w.avg_ms);
  EXPECT_LT(w.max_ms, 50.0);
  const InferenceWindow next = r.TakeWindow();
  EXPECT_EQ(next.count, 0u);
  EXPECT_EQ(next.total, w.total);
  EXPECT_EQ(next.avg_ms, 0.0);
  EXPECT_EQ(next.max_ms, 0.0);
  r.Stop();  // idempotent
}

TEST(PolicyRunner, NonFiniteOutputsAreAFaultNamingTheJointAndAreCounted) {
  const config::Config c = test::WithPolicy(kCommandSection);
  test::ModelBuilder b;  // actions = obs / 0: 0/0 is NaN, x/0 infinite
  b.Input("obs", {1, 3}).Output("actions", {1, 3}).Initializer("zero", {1}, {0.0f});
  b.Node("Div", {"obs", "zero"}, "actions");
  PolicyRunner r(config::PolicySetupOf(c), Model(b));
  Tick t;
  r.Reset(t.now_us);
  t.Run(r, 0.0f, 0.5f, 0.0f);
  ASSERT_TRUE(r.InferOnce());
  for (std::size_t j = 0; j < t.out.size(); ++j) t.out[j].position_rad = -9.0f;
  EXPECT_FALSE(t.Run(r)) << "its targets are not used";
  EXPECT_EQ(t.last.status, sm::PolicyStatus::kFault);
  EXPECT_EQ(t.last.fault, sm::PolicyFault::kNonFinite);
  EXPECT_EQ(t.last.detail, kLKnee) << "the first non-finite action's joint";
  EXPECT_FLOAT_EQ(t.out[kLKnee].position_rad, -9.0f) << "nothing written";
  EXPECT_EQ(r.TakeWindow().nonfinite_total, 3u);
}

// ---- Recurrent policies ----

// tests/policy/recurrent/lstm_mlp: obs 6 -> LSTM(8) -> MLP -> 3 actions, and torch's outputs
// over 6 steps; obs = the command then the gyro, unscaled.
const char* kRecurrentSection = R"(
policy:
  model: m.onnx
  joints: [L_Knee, R_Knee, L_Elbow]
  action_scale: 0.1
  observation: [{term: command}, {term: base_ang_vel}]
)";

struct TorchStep {
  std::vector<float> obs, actions;
};

std::vector<TorchStep> LstmFixture() {
  std::ifstream in(std::string(POLICY_RECURRENT_FIXTURES) + "/lstm_mlp.txt");
  std::vector<TorchStep> steps;
  for (std::string line; std::getline(in, line);) {
    std::istringstream s(line);
    std::string key;
    s >> key;
    if (key == "step") steps.emplace_back();
    std::vector<float> values;
    for (float v; s >> v;) values.push_back(v);
    if (key == "obs") steps.back().obs = values;
    if (key == "actions") steps.back().actions = values;
  }
  return steps;
}

TEST(PolicyRunner, TheRecurrentStateCarriesOverAndEnteringAgainZeroesIt) {
  const config::Config c = test::WithPolicy(kRecurrentSection);
  PolicyRunner r(config::PolicySetupOf(c),
                 OnnxGraph::Load(std::string(POLICY_RECURRENT_FIXTURES) + "/lstm_mlp.onnx"));
  const std::vector<TorchStep> steps = LstmFixture();
  ASSERT_EQ(steps.size(), 6u);
  Tick t;
  const auto infer = [&](const TorchStep& step) {
    const std::vector<float>& o = step.obs;
    t.inputs.imu.gyro_rad_s = {o[3], o[4], o[5]};
    t.Run(r, o[0], o[1], o[2]);
    EXPECT_TRUE(r.InferOnce());
    EXPECT_TRUE(t.Run(r, o[0], o[1], o[2]));
  };
  const auto expect_torch = [&](const TorchStep& step, const std::string& at) {
    const float want[] = {0.6f + 0.1f * step.actions[0], 0.6f + 0.1f * step.actions[1],
                          0.3f + 0.1f * step.actions[2]};
    const std::size_t joints[] = {kLKnee, kRKnee, kLElbow};
    for (std::size_t i = 0; i < 3; ++i) {
      EXPECT_NEAR(t.out[joints[i]].position_rad, want[i], 1e-6f) << at << ", action " << i;
    }
  };
  for (int entry = 0; entry < 2; ++entry) {  // MOVE/POLICY, then again after leaving it
    r.Reset(t.now_us);
    for (std::size_t k = 0; k < steps.size(); ++k) {
      infer(steps[k]);
      expect_torch(steps[k], "entry " + std::to_string(entry) + ", step " + std::to_string(k));
    }
  }
}

TEST(PolicyRunner, ANonFiniteRecurrentStateIsAFaultNamingIt) {
  const config::Config c = test::WithPolicy(kCommandSection);
  test::ModelBuilder b;  // actions = obs (finite), h_out = h_in + obs / 0 (infinite)
  b.Input("obs", {1, 3}).Input("h_in", {1, 3}).Output("actions", {1, 3}).Output("h_out", {1, 3});
  b.Initializer("zero", {1}, {0.0f});
  b.Node("Identity", {"obs"}, "actions");
  b.Node("Div", {"obs", "zero"}, "ratio");
  b.Node("Add", {"h_in", "ratio"}, "h_out");
  PolicyRunner r(config::PolicySetupOf(c), Model(b));
  Tick t;
  r.Reset(t.now_us);
  t.Run(r, 0.5f);
  ASSERT_TRUE(r.InferOnce());
  EXPECT_FALSE(t.Run(r, 0.5f)) << "its targets are not used";
  EXPECT_EQ(t.last.status, sm::PolicyStatus::kFault);
  EXPECT_EQ(t.last.fault, sm::PolicyFault::kNonFinite);
  EXPECT_EQ(t.last.detail, sm::kNonFiniteState);
  EXPECT_NE(r.LastFailure().find("the recurrent state 'h_out' is NaN or infinity"),
            std::string::npos)
      << r.LastFailure();
}

// ---- The phase term's clock ----

// actions = obs = [sin, cos] of the time since entering MOVE/POLICY over 0.8 s, then cos of
// the time since the daemon's start over 2 s, on L_Knee, R_Knee, L_Elbow.
const char* kPhaseSection = R"(
policy:
  model: m.onnx
  joints: [L_Knee, R_Knee, L_Elbow]
  action_scale: 0.1
  observation:
    - {term: phase, period_s: 0.8}
    - {term: phase, period_s: 2, values: cos, since: start}
)";

TEST(PolicyRunner, ThePhaseCountsFromEnteringMovePolicyOrFromTheStart) {
  const config::Config c = test::WithPolicy(kPhaseSection);
  const std::int64_t start_us = 400'000;
  PolicyRunner r(config::PolicySetupOf(c), Model(test::IdentityModel(3)), start_us);
  const double two_pi = 2 * std::acos(-1.0);
  Tick t;
  const auto expect_phase = [&](std::int64_t entered_us, const std::string& at) {
    const double since_entry = static_cast<double>(t.now_us - entered_us) * 1e-6;
    const double since_start = static_cast<double>(t.now_us - start_us) * 1e-6;
    EXPECT_NEAR(t.out[kLKnee].position_rad, 0.6 + 0.1 * std::sin(two_pi * since_entry / 0.8), 1e-6)
        << at;
    EXPECT_NEAR(t.out[kRKnee].position_rad, 0.6 + 0.1 * std::cos(two_pi * since_entry / 0.8), 1e-6)
        << at;
    EXPECT_NEAR(t.out[kLElbow].position_rad, 0.3 + 0.1 * std::cos(two_pi * since_start / 2), 1e-6)
        << at;
  };
  for (int entry = 0; entry < 2; ++entry) {
    t.now_us += 1'234'000;  // some time outside MOVE/POLICY
    const std::int64_t entered_us = t.now_us;
    r.Reset(entered_us);
    for (int k = 0; k < 30; ++k) {  // 30 inferences 10 ms apart: the phase goes around
      for (int i = 0; i < 4; ++i) t.Run(r);
      t.Run(r);
      ASSERT_TRUE(r.InferOnce());
      ASSERT_TRUE(t.Run(r));
      t.now_us -= 2000;  // the inference's inputs are the previous tick's
      expect_phase(entered_us,
                   "entry " + std::to_string(entry) + ", inference " + std::to_string(k));
      t.now_us += 2000;
    }
  }
}

TEST(InferenceCounters, CountAverageAndMaxPerWindow) {
  InferenceCounters c;
  c.Record(1'000'000);
  c.Record(3'000'000);
  auto w = c.TakeWindow();
  EXPECT_EQ(w.total, 2u);
  EXPECT_EQ(w.count, 2u);
  EXPECT_DOUBLE_EQ(w.avg_ms, 2.0);
  EXPECT_DOUBLE_EQ(w.max_ms, 3.0);
  c.Record(500'000);
  w = c.TakeWindow();
  EXPECT_EQ(w.total, 3u);
  EXPECT_EQ(w.count, 1u);
  EXPECT_DOUBLE_EQ(w.avg_ms, 0.5);
  EXPECT_DOUBLE_EQ(w.max_ms, 0.5);
}

}  // namespace
}  // namespace robot_edge::policy
