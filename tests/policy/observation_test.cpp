// Observation assembly, seen by a network that copies its input to its output: each term at its
// position with its scale, clipping, history oldest first in both layouts, Reset.
#include "policy/observation.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "model_builder.hpp"
#include "policy/onnx_graph.hpp"
#include "statemachine/imu_math.hpp"
#include "test_config.hpp"

namespace robot_edge::policy {
namespace {

// Policy joints L_Knee (3), R_Knee (9), L_Elbow (15) with default pose 0.5, 0.7, 0.2; one
// joint_pos term over other joints (L_Hip_Pitch: stand -0.3, Neck_Yaw: stand 0).
std::string Section(int history, const std::string& extra = "") {
  return R"(
policy:
  model: m.onnx
  joints: [L_Knee, R_Knee, L_Elbow]
  default_pose: [0.5, 0.7, 0.2]
  action_scale: 0.25
  observation:
    - {term: base_ang_vel, scale: 0.25}
    - {term: projected_gravity, scale: [1, 2, 3]}
    - {term: command, scale: [2.0, 2.0, 0.25]}
    - {term: joint_pos, scale: 1.5}
    - {term: joint_vel, scale: 0.05}
    - {term: last_action, scale: [1, 10, 100]}
    - {term: joint_pos, joints: [L_Hip_Pitch, Neck_Yaw]}
  history: )" +
         std::to_string(history) + "\n" + extra;
}

struct Robot {
  std::vector<float> pos = std::vector<float>(25, 0.0f);
  std::vector<float> vel = std::vector<float>(25, 0.0f);
  std::vector<float> last = {0.1f, 0.2f, 0.3f};
  ObservationInputs In(float vx = 0.5f) const {
    ObservationInputs in;
    in.gyro_rad_s = {0.4f, -0.8f, 1.2f};
    in.quat_wxyz = {std::sqrt(0.5f), std::sqrt(0.5f), 0.0f, 0.0f};  // 90° about x
    in.command = {vx, -0.25f, 1.0f};
    in.joint_pos_rad = pos;
    in.joint_vel_rad_s = vel;
    in.last_action = last;
    return in;
  }
};

// The network's view: Assemble, then run a copying network.
std::vector<float> Seen(Observation& o, const ObservationInputs& in) {
  const auto identity = OnnxGraph::FromBytes(test::IdentityModel(o.size()).Bytes(), "identity");
  std::vector<float> obs(o.size()), out(o.size());
  o.Assemble(in, obs);
  identity->Run(obs, out);
  return out;
}

TEST(Observation, EachTermAtItsPositionWithItsScale) {
  const config::Config c = test::WithPolicy(Section(1));
  Observation o(config::PolicySetupOf(c));
  EXPECT_EQ(o.frame_size(), 3u + 3 + 3 + 3 + 3 + 3 + 2);
  EXPECT_EQ(o.size(), o.frame_size());
  EXPECT_EQ(o.Describe(),
            "base_ang_vel 3 + projected_gravity 3 + command 3 + joint_pos 3 + joint_vel 3 + "
            "last_action 3 + joint_pos 2 = 20");
  Robot r;
  r.pos[3] = 1.0f, r.pos[9] = 0.3f, r.pos[15] = 0.2f, r.pos[0] = -0.1f, r.pos[24] = 0.4f;
  r.vel[3] = 2.0f, r.vel[9] = -4.0f, r.vel[15] = 6.0f;
  const auto y = Seen(o, r.In());
  ASSERT_EQ(y.size(), 20u);
  const float expected[20] = {0.1f,  -0.2f, 0.3f,   // gyro × 0.25
                              0.0f,  -2.0f, 0.0f,   // gravity (0, -1, 0) × (1, 2, 3)
                              1.0f,  -0.5f, 0.25f,  // command × (2, 2, 0.25)
                              0.75f, -0.6f, 0.0f,   // (pos - default) × 1.5
                              0.1f,  -0.2f, 0.3f,   // vel × 0.05
                              0.1f,  2.0f,  30.0f,  // last action × (1, 10, 100)
                              0.2f,  0.4f};         // pos - stand, other joints, × 1
  for (std::size_t i = 0; i < 20; ++i) {
    EXPECT_NEAR(y[i], expected[i], 1e-6 * std::max(1.0f, std::fabs(expected[i])))
        << "position " << i;
  }
  // Projected gravity is the state machine's.
  const auto g = sm::ProjectedGravity(r.In().quat_wxyz);
  EXPECT_NEAR(y[3], g[0], 1e-6);
  EXPECT_NEAR(y[4], 2 * g[1], 1e-6);
}

TEST(Observation, HistoryIsOldestFirstAndStartsOverOnReset) {
  const config::Config c = test::WithPolicy(Section(3));
  Observation o(config::PolicySetupOf(c));
  ASSERT_EQ(o.size(), 60u);
  EXPECT_NE(o.Describe().find("= 20 × history 3 = 60"), std::string::npos) << o.Describe();
  Robot r;
  const auto vx_of = [](const std::vector<float>& y, int frame) { return y[frame * 20 + 6] / 2; };
  auto y = Seen(o, r.In(1.0f));  // the first frame fills the history
  EXPECT_FLOAT_EQ(vx_of(y, 0), 1.0f);
  EXPECT_FLOAT_EQ(vx_of(y, 1), 1.0f);
  EXPECT_FLOAT_EQ(vx_of(y, 2), 1.0f);
  y = Seen(o, r.In(2.0f));
  EXPECT_FLOAT_EQ(vx_of(y, 0), 1.0f);
  EXPECT_FLOAT_EQ(vx_of(y, 1), 1.0f);
  EXPECT_FLOAT_EQ(vx_of(y, 2), 2.0f);
  y = Seen(o, r.In(3.0f));
  y = Seen(o, r.In(4.0f));
  EXPECT_FLOAT_EQ(vx_of(y, 0), 2.0f);
  EXPECT_FLOAT_EQ(vx_of(y, 1), 3.0f);
  EXPECT_FLOAT_EQ(vx_of(y, 2), 4.0f);
  for (int f = 0; f < 3; ++f) {  // the other terms repeat in every frame
    EXPECT_FLOAT_EQ(y[f * 20 + 0], 0.1f);
    EXPECT_FLOAT_EQ(y[f * 20 + 17], 30.0f);
  }
  o.Reset();
  y = Seen(o, r.In(-1.0f));
  EXPECT_FLOAT_EQ(vx_of(y, 0), -1.0f);
  EXPECT_FLOAT_EQ(vx_of(y, 1), -1.0f);
  EXPECT_FLOAT_EQ(vx_of(y, 2), -1.0f);
}

TEST(Observation, TermMajorHistoryKeepsEachTermsFramesTogether) {
  const config::Config c = test::WithPolicy(Section(3, "  history_layout: term_major\n"));
  Observation o(config::PolicySetupOf(c));
  ASSERT_EQ(o.size(), 60u);
  EXPECT_NE(o.Describe().find("= 20 × history 3 = 60 (term_major)"), std::string::npos)
      << o.Describe();
  Robot r;
  Seen(o, r.In(1.0f));
  Seen(o, r.In(2.0f));
  const auto y = Seen(o, r.In(3.0f));
  // Term blocks of 3 frames each: gyro [0, 9), gravity [9, 18), command [18, 27), joint_pos
  // [27, 36), joint_vel [36, 45), last_action [45, 54), the other joint_pos [54, 60).
  for (int f = 0; f < 3; ++f) {
    EXPECT_FLOAT_EQ(y[f * 3 + 0], 0.1f) << "gyro x, frame " << f;
    EXPECT_FLOAT_EQ(y[f * 3 + 2], 0.3f) << "gyro z, frame " << f;
    EXPECT_FLOAT_EQ(y[18 + f * 3] / 2, static_cast<float>(f + 1)) << "vx, frame " << f;
    EXPECT_FLOAT_EQ(y[18 + f * 3 + 1], -0.5f) << "vy, frame " << f;
    EXPECT_FLOAT_EQ(y[45 + f * 3 + 2], 30.0f) << "last action 3, frame " << f;
    EXPECT_FLOAT_EQ(y[54 + f * 2 + 0], 0.3f) << "L_Hip_Pitch - stand, frame " << f;
  }
  // The same measurements in frame-major order are a permutation of these values.
  const config::Config fc = test::WithPolicy(Section(3));
  Observation fo(config::PolicySetupOf(fc));
  Seen(fo, r.In(1.0f));
  Seen(fo, r.In(2.0f));
  const auto z = Seen(fo, r.In(3.0f));
  EXPECT_FLOAT_EQ(z[0 * 20 + 6] / 2, 1.0f);
  EXPECT_FLOAT_EQ(z[2 * 20 + 6] / 2, 3.0f);
  auto sorted_y = y, sorted_z = z;
  std::sort(sorted_y.begin(), sorted_y.end());
  std::sort(sorted_z.begin(), sorted_z.end());
  EXPECT_EQ(sorted_y, sorted_z);
}

// Isaac Lab's per-term history_length: each term keeps its own frames, term by term, oldest
// first; the ring holds the longest.
TEST(Observation, TermsKeepTheirOwnHistoryTermByTerm) {
  const config::Config c = test::WithPolicy(R"(
policy:
  model: m.onnx
  joints: [L_Knee, R_Knee, L_Elbow]
  action_scale: 0.25
  observation:
    - {term: base_ang_vel, history: 1}
    - {term: command, history: 4}
    - {term: last_action}
  history: 2
  history_layout: term_major
)");
  Observation o(config::PolicySetupOf(c));
  ASSERT_EQ(o.size(), 3u * 1 + 3u * 4 + 3u * 2);
  EXPECT_NE(o.Describe().find("each term's history (term_major) 1 4 2 = 21"), std::string::npos)
      << o.Describe();
  Robot r;
  std::vector<float> y;
  for (int step = 1; step <= 5; ++step) {
    r.last = {static_cast<float>(step), 0.0f, 0.0f};
    y = Seen(o, r.In(static_cast<float>(step)));
  }
  // gyro [0, 3): the newest frame only; command [3, 15): vx of steps 2..5; last_action
  // [15, 21): steps 4, 5.
  EXPECT_FLOAT_EQ(y[0], 0.4f);
  for (int f = 0; f < 4; ++f) EXPECT_FLOAT_EQ(y[3 + f * 3], static_cast<float>(f + 2)) << f;
  EXPECT_FLOAT_EQ(y[15], 4.0f);
  EXPECT_FLOAT_EQ(y[18], 5.0f);
}

TEST(Observation, ATermsOwnHistoryNeedsTermMajor) {
  const std::string section = R"(
policy:
  model: m.onnx
  joints: [L_Knee]
  action_scale: 0.25
  observation:
    - {term: command, history: 4}
  history: 2
)";
  const auto errors = test::PolicyErrors(section);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("policy.observation[0].history: 4 differs from policy.history (2): a "
                           "term's own history needs history_layout: term_major"),
            std::string::npos)
      << errors[0];
}

TEST(Observation, ScaledValuesAreClippedWhenAClipIsSet) {
  const config::Config c = test::WithPolicy(Section(1, "  observation_clip: 1.5\n"));
  Observation o(config::PolicySetupOf(c));
  EXPECT_NE(o.Describe().find("clipped to ±1.5"), std::string::npos) << o.Describe();
  Robot r;
  r.vel[9] = -100.0f;  // × 0.05 = -5
  const auto y = Seen(o, r.In(3.0f));
  EXPECT_FLOAT_EQ(y[6], 1.5f);    // vx 3 × 2 = 6
  EXPECT_FLOAT_EQ(y[7], -0.5f);   // within the clip: unchanged
  EXPECT_FLOAT_EQ(y[13], -1.5f);  // R_Knee velocity -5
  EXPECT_FLOAT_EQ(y[16], 1.5f);   // last action 0.2 × 10 = 2
  EXPECT_FLOAT_EQ(y[17], 1.5f);   // 30
  EXPECT_FLOAT_EQ(y[15], 0.1f);
}

// Isaac Lab's per-term clip (and a command's trained ranges): the raw value is clamped, then
// scaled; observation_clip still applies after the scale.
TEST(Observation, ATermsClipBoundsTheRawValueBeforeItsScale) {
  std::string section = Section(1, "  observation_clip: 5\n");
  const std::string command = "{term: command, scale: [2.0, 2.0, 0.25]}";
  section.replace(section.find(command), command.size(),
                  "{term: command, scale: [2.0, 2.0, 0.25], clip: [[-0.5, 1.0], [-0.3, 0.3], "
                  "[-0.2, 0.2]]}");
  const std::string vel = "{term: joint_vel, scale: 0.05}";
  section.replace(section.find(vel), vel.size(), "{term: joint_vel, scale: 0.05, clip: [-40, 40]}");
  const config::Config c = test::WithPolicy(section);
  Observation o(config::PolicySetupOf(c));
  Robot r;
  r.vel[3] = 60.0f, r.vel[9] = -100.0f, r.vel[15] = 20.0f;
  const auto y = Seen(o, r.In(3.0f));  // command (3, -0.25, 1)
  EXPECT_FLOAT_EQ(y[6], 2.0f) << "vx 3 clamped to 1.0, then × 2";
  EXPECT_FLOAT_EQ(y[7], -0.5f) << "vy -0.25 within ±0.3: × 2";
  EXPECT_FLOAT_EQ(y[8], 0.05f) << "vyaw 1 clamped to 0.2, then × 0.25";
  EXPECT_FLOAT_EQ(y[12], 2.0f) << "60 rad/s clamped to 40, then × 0.05";
  EXPECT_FLOAT_EQ(y[13], -2.0f);
  EXPECT_FLOAT_EQ(y[14], 1.0f) << "20 rad/s within ±40";
}

TEST(Observation, UprightIsGravityDown) {
  const config::Config c = test::WithPolicy(Section(1));
  Observation o(config::PolicySetupOf(c));
  Robot r;
  auto in = r.In();
  in.quat_wxyz = {1, 0, 0, 0};
  const auto y = Seen(o, in);
  EXPECT_FLOAT_EQ(y[3], 0.0f);
  EXPECT_FLOAT_EQ(y[4], 0.0f);
  EXPECT_FLOAT_EQ(y[5], -3.0f);  // -1 × 3
}

// ---- phase ----

TEST(Observation, PhaseIsSinAndCosOfTheTimeOverThePeriod) {
  const config::Config c = test::WithPolicy(R"(
policy:
  model: m.onnx
  joints: [L_Knee]
  action_scale: 0.25
  observation:
    - {term: phase, period_s: 0.8}
    - {term: phase, period_s: 0.5, values: sin, scale: 2}
    - {term: phase, period_s: 2, values: cos, since: start}
)");
  Observation o(config::PolicySetupOf(c));
  EXPECT_EQ(o.Describe(), "phase 2 + phase 1 + phase 1 = 4");
  const double two_pi = 2 * std::acos(-1.0);
  for (const double t : {0.0, 0.3, 0.79, 1.7, 123.45}) {
    Robot r;
    ObservationInputs in = r.In();
    in.policy_time_s = t;
    in.start_time_s = t + 10.5;
    const auto y = Seen(o, in);
    ASSERT_EQ(y.size(), 4u);
    EXPECT_NEAR(y[0], std::sin(two_pi * t / 0.8), 1e-6) << t;
    EXPECT_NEAR(y[1], std::cos(two_pi * t / 0.8), 1e-6) << t;
    EXPECT_NEAR(y[2], 2 * std::sin(two_pi * t / 0.5), 2e-6) << t;
    EXPECT_NEAR(y[3], std::cos(two_pi * (t + 10.5) / 2), 1e-6) << t;
  }
}

// unitree_rl_gym's deploy_mujoco.py (configs/h1.yaml), its observation of 41 written out as it
// computes it, against the terms that express it.
TEST(Observation, ExpressesUnitreeH1sObservation) {
  const config::Config c = test::WithPolicy(R"(
policy:
  model: m.onnx
  joints: [L_Hip_Yaw, L_Hip_Roll, L_Hip_Pitch, L_Knee, L_Ankle_A,
           R_Hip_Yaw, R_Hip_Roll, R_Hip_Pitch, R_Knee, R_Ankle_A]
  default_pose: [0, 0.0, -0.1, 0.3, -0.2, 0, 0.0, -0.1, 0.3, -0.2]
  action_scale: 0.25
  observation:
    - {term: base_ang_vel, scale: 0.25}
    - {term: projected_gravity}
    - {term: command, scale: [2.0, 2.0, 0.25]}
    - {term: joint_pos, scale: 1.0}
    - {term: joint_vel, scale: 0.05}
    - {term: last_action}
    - {term: phase, period_s: 0.8}
)");
  Observation o(config::PolicySetupOf(c));
  ASSERT_EQ(o.size(), 41u);
  const std::size_t joints[10] = {2, 1, 0, 3, 4, 8, 7, 6, 9, 10};  // firmware indices
  const float defaults[10] = {0, 0, -0.1f, 0.3f, -0.2f, 0, 0, -0.1f, 0.3f, -0.2f};
  std::vector<float> pos(25), vel(25), action(10);
  for (std::size_t i = 0; i < 25; ++i) {
    pos[i] = 0.05f * static_cast<float>(i) - 0.4f;
    vel[i] = 0.7f * static_cast<float>(i % 7) - 2.0f;
  }
  for (std::size_t i = 0; i < 10; ++i) action[i] = 0.1f * static_cast<float>(i) - 0.45f;
  const float q[4] = {0.98f, 0.1f, -0.15f, 0.05f};  // w, x, y, z; not quite unit
  const float norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  const float qw = q[0] / norm, qx = q[1] / norm, qy = q[2] / norm, qz = q[3] / norm;
  const std::array<float, 3> omega{0.3f, -1.1f, 0.6f}, cmd{0.5f, 0.1f, -0.3f};
  const int counter = 1230;  // simulation steps of 0.002 s
  const double simulation_dt = 0.002;

  ObservationInputs in;
  in.gyro_rad_s = omega;
  in.quat_wxyz = {qw, qx, qy, qz};
  in.command = cmd;
  in.joint_pos_rad = pos;
  in.joint_vel_rad_s = vel;
  in.last_action = action;
  in.policy_time_s = counter * simulation_dt;
  const auto y = Seen(o, in);

  // deploy_mujoco.py, line by line.
  std::vector<float> obs(41);
  for (int i = 0; i < 3; ++i) obs[i] = omega[i] * 0.25f;
  obs[3] = 2 * (-qz * qx + qw * qy);  // get_gravity_orientation
  obs[4] = -2 * (qz * qy + qw * qx);
  obs[5] = 1 - 2 * (qw * qw + qz * qz);
  const float cmd_scale[3] = {2.0f, 2.0f, 0.25f};
  for (int i = 0; i < 3; ++i) obs[6 + i] = cmd[i] * cmd_scale[i];
  for (int i = 0; i < 10; ++i) {
    obs[9 + i] = (pos[joints[i]] - defaults[i]) * 1.0f;
    obs[19 + i] = vel[joints[i]] * 0.05f;
    obs[29 + i] = action[i];
  }
  const double period = 0.8;
  const double count = counter * simulation_dt;
  const double phase = std::fmod(count, period) / period;
  obs[39] = static_cast<float>(std::sin(2 * std::acos(-1.0) * phase));
  obs[40] = static_cast<float>(std::cos(2 * std::acos(-1.0) * phase));
  for (std::size_t i = 0; i < 41; ++i) EXPECT_NEAR(y[i], obs[i], 1e-5) << "position " << i;
}

}  // namespace
}  // namespace robot_edge::policy
