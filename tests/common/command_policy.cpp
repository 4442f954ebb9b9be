#include "command_policy.hpp"

#include <stdlib.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <vector>

#include "model_builder.hpp"

namespace robot_edge::test {
namespace {

constexpr int kObservation = 45;
constexpr int kCommandAt = 6;  // base_ang_vel 3, projected_gravity 3, then the command
constexpr float kActionScale = 0.25f;
constexpr std::array<float, 3> kCommandScale = {2.0f, 2.0f, 0.25f};
const char* kBeforeSim = "sim:                                      # robot-edge-sim only";

float A(int i) { return 0.5f + 0.05f * static_cast<float>(i); }
float B(int i) { return i % 2 == 0 ? -0.3f : 0.3f; }
float C(int i) { return 0.2f - 0.02f * static_cast<float>(i); }
float D(int i) { return 0.1f * static_cast<float>(i % 3); }

}  // namespace

CommandPolicy::CommandPolicy(bool infinite_above_vx1) {
  char tmpl[] = "/tmp/robot-edge-policy.XXXXXX";
  dir_ = ::mkdtemp(tmpl);
  std::vector<float> w(kPolicyJoints * kObservation, 0.0f), bias(kPolicyJoints);
  for (int i = 0; i < kPolicyJoints; ++i) {
    w[i * kObservation + kCommandAt + 0] = A(i);
    w[i * kObservation + kCommandAt + 1] = B(i);
    w[i * kObservation + kCommandAt + 2] = C(i);
    bias[i] = D(i);
  }
  policy::test::ModelBuilder b = policy::test::LinearModel(kObservation, kPolicyJoints, w, bias);
  if (infinite_above_vx1) {
    std::vector<float> pick(kObservation, 0.0f);
    pick[kCommandAt] = 1.0f;
    b.proto().mutable_graph()->mutable_node(0)->set_output(0, "linear");
    b.Initializer("pick", {kObservation, 1}, pick)
        .Initializer("two", {1}, {2.0f})
        .Initializer("one", {1}, {1.0f});
    b.Node("MatMul", {"obs", "pick"}, "vx2");
    b.Node("Sub", {"vx2", "two"}, "over");
    b.Node("Relu", {"over"}, "excess");
    b.Node("Sub", {"one", "excess"}, "divisor");
    b.Node("Div", {"linear", "divisor"}, "actions");
  }
  path_ = b.Write(dir_ + "/command.onnx");
}

CommandPolicy::~CommandPolicy() {
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

std::pair<std::string, std::string> CommandPolicy::ConfigEdit() const {
  return PolicyConfigEdit(path_);
}

std::pair<std::string, std::string> PolicyConfigEdit(const std::string& model,
                                                     const std::string& gains) {
  const std::string section = "policy:\n  model: " + model + "\n  " + gains + R"(
  rate_hz: 50
  stall_timeout_ms: 300      # user-mode-linux can hold a thread that long (default: 40 ms)
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
)";
  return {kBeforeSim, section + kBeforeSim};
}

float PolicyTarget(const config::Config& c, int i, float vx, float vy, float vyaw) {
  const float action = A(i) * (kCommandScale[0] * vx) + B(i) * (kCommandScale[1] * vy) +
                       C(i) * (kCommandScale[2] * vyaw) + D(i);
  return std::clamp(static_cast<float>(c.joints[i].stand_rad) + kActionScale * action,
                    static_cast<float>(c.joints[i].min_rad),
                    static_cast<float>(c.joints[i].max_rad));
}

}  // namespace robot_edge::test
