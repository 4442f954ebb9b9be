// bench_h1_reference: Unitree's own deploy loop (unitree_rl_gym deploy/deploy_mujoco/
// deploy_mujoco.py with configs/h1.yaml), re-implemented in C++ on Debian's libmujoco 2.2.2, as
// the reference the walk through robot-edged is measured against (examples/unitree-h1/,
// issue 28). No robot-edged, no CAN, no motor model: exactly the Python loop's arithmetic.
//
//   the model        h1.xml / scene.xml as sim/mjcf_compat translates it for 2.2.2 (autolimits;
//                    actuatorfrcrange applied below as MuJoCo 3 applies it, a clamp of the joint's
//                    actuator force); the robot at the model's qpos0 (pelvis 1.05 m, joints 0)
//   physics          simulation_dt 0.002 s
//   PD               every step: tau = (target - q)·kps + (0 - dq)·kds, from d.qpos[7:], d.qvel[6:]
//   policy           every control_decimation (10) steps, after mj_step: obs = omega (qvel[3:6])
//                    × 0.25, gravity_orientation(qpos[3:7]), cmd × (2, 2, 0.25), (q - default)
//                    × 1, dq × 0.05, the last action, sin / cos(2π·(counter·dt mod 0.8)/0.8); the
//                    network (the imported ONNX, through robot-edge's evaluator: the same graph the
//                    daemon runs; its LSTM state carried as the TorchScript module's buffers are);
//                    target = action × 0.25 + default_angles
//
// Usage: bench_h1_reference MODEL.xml POLICY.onnx SECONDS VX VY VYAW [JSON_OUT]
// Prints (and writes as JSON) the base's planar displacement, its x, the mean forward speed after
// the first second, the heading change (unwrapped), the largest tilt, the lowest pelvis height
// and whether it fell (tilt > 60°).
#include <mujoco/mujoco.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <string>
#include <vector>

#include "policy/runtime.hpp"
#include "sim/mjcf_compat.hpp"

namespace {

constexpr int kJoints = 10;
constexpr double kDt = 0.002;
constexpr int kDecimation = 10;
// configs/h1.yaml
constexpr std::array<double, kJoints> kKp = {150, 150, 150, 200, 40, 150, 150, 150, 200, 40};
constexpr std::array<double, kJoints> kKd = {2, 2, 2, 4, 2, 2, 2, 2, 4, 2};
constexpr std::array<double, kJoints> kDefault = {0, 0, -0.1, 0.3, -0.2, 0, 0, -0.1, 0.3, -0.2};
constexpr double kAngVelScale = 0.25, kDofPosScale = 1.0, kDofVelScale = 0.05;
constexpr double kActionScale = 0.25;
constexpr std::array<double, 3> kCmdScale = {2.0, 2.0, 0.25};
constexpr double kPeriod = 0.8;  // deploy_mujoco.py's gait clock
constexpr double kFallTiltDeg = 60;

double TiltDeg(const double* q) {  // angle between the base's z and the world's
  const double c = 1 - 2 * (q[1] * q[1] + q[2] * q[2]);
  return std::acos(std::clamp(c, -1.0, 1.0)) * 180 / M_PI;
}

double Yaw(const double* q) {
  return std::atan2(2 * (q[0] * q[3] + q[1] * q[2]), 1 - 2 * (q[2] * q[2] + q[3] * q[3]));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 7) {
    std::fprintf(stderr,
                 "usage: bench_h1_reference MODEL.xml POLICY.onnx SECONDS VX VY VYAW [JSON]\n");
    return 2;
  }
  try {
    const double seconds = std::atof(argv[3]);
    const std::array<double, 3> cmd = {std::atof(argv[4]), std::atof(argv[5]), std::atof(argv[6])};
    auto loaded = robot_edge::sim::LoadMjcf(argv[1]);
    mjModel* m = loaded.model;
    if (m->nq != 7 + kJoints || m->nv != 6 + kJoints || m->nu != kJoints) {
      std::fprintf(stderr, "bench_h1_reference: expected H1's 10 joints and 10 motors\n");
      return 2;
    }
    m->opt.timestep = kDt;
    // actuatorfrcrange per actuator (each of H1's motors drives one joint, gear 1)
    std::vector<double> lo(kJoints, -1e9), hi(kJoints, 1e9);
    for (int a = 0; a < m->nu; ++a) {
      const char* joint = mj_id2name(m, mjOBJ_JOINT, m->actuator_trnid[2 * a]);
      for (const auto& r : loaded.force_ranges) {
        if (joint && r.joint == joint) lo[a] = r.min, hi[a] = r.max;
      }
    }
    mjData* d = mj_makeData(m);
    auto net = robot_edge::policy::LoadOnnx(argv[2]);
    if (net->input_size() != 9 + 3 * kJoints + 2 || net->output_size() != kJoints) {
      std::fprintf(stderr, "bench_h1_reference: the policy is not 41 -> 10\n");
      return 2;
    }
    std::vector<float> obs(net->input_size(), 0.0f), action(kJoints, 0.0f);
    std::array<double, kJoints> target = kDefault;
    const double x0 = d->qpos[0], y0 = d->qpos[1];
    double max_tilt = 0, min_height = 1e9, fell_at = -1, vx_sum = 0;
    double yaw_change = 0, last_yaw = Yaw(d->qpos + 3);  // unwrapped, step by step
    int vx_n = 0;
    const long steps = std::lround(seconds / kDt);
    for (long counter = 1; counter <= steps; ++counter) {
      for (int j = 0; j < kJoints; ++j) {
        const double tau = (target[j] - d->qpos[7 + j]) * kKp[j] + (0 - d->qvel[6 + j]) * kKd[j];
        d->ctrl[j] = std::clamp(tau, lo[j], hi[j]);
      }
      mj_step(m, d);
      const double t = counter * kDt;
      const double tilt = TiltDeg(d->qpos + 3);
      const double yaw = Yaw(d->qpos + 3);
      yaw_change += std::remainder(yaw - last_yaw, 2 * M_PI);
      last_yaw = yaw;
      max_tilt = std::max(max_tilt, tilt);
      min_height = std::min(min_height, d->qpos[2]);
      if (fell_at < 0 && tilt > kFallTiltDeg) fell_at = t;
      if (t >= 1.0) {  // forward speed in the heading frame
        vx_sum += std::cos(yaw) * d->qvel[0] + std::sin(yaw) * d->qvel[1];
        ++vx_n;
      }
      if (counter % kDecimation != 0) continue;
      const double* q = d->qpos + 3;
      const double qw = q[0], qx = q[1], qy = q[2], qz = q[3];
      const double gravity[3] = {2 * (-qz * qx + qw * qy), -2 * (qz * qy + qw * qx),
                                 1 - 2 * (qw * qw + qz * qz)};
      std::size_t k = 0;
      for (int i = 0; i < 3; ++i) obs[k++] = static_cast<float>(d->qvel[3 + i] * kAngVelScale);
      for (int i = 0; i < 3; ++i) obs[k++] = static_cast<float>(gravity[i]);
      for (int i = 0; i < 3; ++i) obs[k++] = static_cast<float>(cmd[i] * kCmdScale[i]);
      for (int j = 0; j < kJoints; ++j) {
        obs[k++] = static_cast<float>((d->qpos[7 + j] - kDefault[j]) * kDofPosScale);
      }
      for (int j = 0; j < kJoints; ++j)
        obs[k++] = static_cast<float>(d->qvel[6 + j] * kDofVelScale);
      for (int j = 0; j < kJoints; ++j) obs[k++] = action[j];
      const double phase = std::fmod(t, kPeriod) / kPeriod;
      obs[k++] = static_cast<float>(std::sin(2 * M_PI * phase));
      obs[k++] = static_cast<float>(std::cos(2 * M_PI * phase));
      net->Run(obs, action);
      for (int j = 0; j < kJoints; ++j) target[j] = action[j] * kActionScale + kDefault[j];
    }
    const double dx = d->qpos[0] - x0, dy = d->qpos[1] - y0;
    const double distance = std::hypot(dx, dy);
    const double mean_vx = vx_n ? vx_sum / vx_n : 0;
    std::printf(
        "reference (deploy_mujoco.py's loop, MuJoCo %s): %.1f s at vx %.2f vy %.2f vyaw %.2f: "
        "displacement %.3f m (x %.3f, y %.3f), mean forward speed %.3f m/s after 1 s, heading "
        "change %.1f°, "
        "largest tilt %.1f°, lowest pelvis %.3f m, %s\n",
        mj_versionString(), seconds, cmd[0], cmd[1], cmd[2], distance, dx, dy, mean_vx,
        yaw_change * 180 / M_PI, max_tilt, min_height,
        fell_at < 0 ? "no fall" : ("FELL at " + std::to_string(fell_at) + " s").c_str());
    if (argc > 7) {
      std::ofstream(argv[7]) << "{\"seconds\": " << seconds << ", \"distance_m\": " << distance
                             << ", \"dx_m\": " << dx << ", \"dy_m\": " << dy
                             << ", \"mean_vx_m_s\": " << mean_vx << ", \"yaw_rad\": " << yaw_change
                             << ", \"max_tilt_deg\": " << max_tilt
                             << ", \"min_pelvis_m\": " << min_height
                             << ", \"fell\": " << (fell_at < 0 ? "false" : "true") << "}\n";
    }
    mj_deleteData(d);
    mj_deleteModel(m);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_h1_reference: %s\n", e.what());
    return 2;
  }
}
