// Observation assembly, seen by a network that copies its input to its output: each term at its
// position with its scale, history oldest first, Reset.
#include "policy/observation.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "model_builder.hpp"
#include "policy/onnx_graph.hpp"
#include "statemachine/imu_math.hpp"
#include "test_config.hpp"

namespace robot_edge::policy {
namespace {

// Policy joints L_Knee (3), R_Knee (9), L_Elbow (15) with default pose 0.5, 0.7, 0.2; one
// joint_pos term over other joints (L_Hip_Pitch: stand -0.3, Neck_Yaw: stand 0).
std::string Section(int history) {
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
         std::to_string(history) + "\n";
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
  Observation o(c);
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
  Observation o(c);
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

TEST(Observation, UprightIsGravityDown) {
  const config::Config c = test::WithPolicy(Section(1));
  Observation o(c);
  Robot r;
  auto in = r.In();
  in.quat_wxyz = {1, 0, 0, 0};
  const auto y = Seen(o, in);
  EXPECT_FLOAT_EQ(y[3], 0.0f);
  EXPECT_FLOAT_EQ(y[4], 0.0f);
  EXPECT_FLOAT_EQ(y[5], -3.0f);  // -1 × 3
}

}  // namespace
}  // namespace robot_edge::policy
