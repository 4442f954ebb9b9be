// bench_g1_reference: unitree_rl_lab's own deploy loop for the G1 29-DoF velocity policy
// (deploy/include/isaaclab/** and deploy/robots/g1/**), re-implemented in C++ on Debian's
// libmujoco 2.2.2, started the way its sim2sim on unitree_mujoco starts: the robot hanging from
// unitree_mujoco's elastic band, released once the policy runs. The reference the walk through
// robot-edged is measured against (examples/unitree-g1-29dof/, issue 39). No robot-edged, no CAN,
// no motor model: the deploy code's arithmetic, read from deploy.yaml as its ManagerBasedRLEnv
// reads it (nothing of the policy is hard-coded here).
//
//   the model     g1_29dof.xml / scene_29dof.xml as sim/mjcf_compat translates it for 2.2.2
//                 (actuatorfrcrange applied as MuJoCo 3 applies it: a clamp of the actuator force);
//                 the robot at qpos0 (pelvis 0.793 m); timestep the model's (0.002 s)
//   motors        unitree_mujoco's bridge, every physics step: ctrl[i] = kp·(q* - q) + kd·(0 - dq),
//                 motor i = actuator i = the SDK's joint i (q, dq: its jointpos / jointvel sensors)
//   band          unitree_mujoco simulate's ElasticBand on torso_link: f = (200·(|p - x| - length)
//                 - 100·v)·(p - x)/|p - x|, p = (0, 0, 3), x = the base's position, v its velocity
//                 along p - x; length 0 at first
//   the sequence  as unitree_rl_lab's README runs sim2sim (its g1_ctrl's FSM on the band):
//                 FixStand (config.yaml: kp / kd, q from the measured pose to qs over 3 s);
//                 "press 8" (band length +0.1 m) every 0.5 s until both feet touch the floor;
//                 Velocity (the policy: State_RLBase) 0.5 s later; "press 9" (band off)
//                 RELEASE_S after it; the command COMMAND_DELAY_S after the release, for SECONDS
//   the policy    every step_dt / timestep physics steps (its policy thread at step_dt):
//                 ManagerBasedRLEnv::step: robot->update() (BaseArticulation: joint_pos[i] =
//                 q[joint_ids_map[i]], dq likewise; root_ang_vel_b = gyro; projected_gravity_b =
//                 quat⁻¹·(0, 0, -1)); ObservationManager::compute (terms in deploy.yaml's order,
//                 each: add to its history of history_length, then the history oldest first, each
//                 entry clipped by clip then × scale; term-major); the network; JointAction:
//                 processed[i] = raw[i]·scale[i] + offset[i] (then clip, if given);
//                 State_RLBase::run: q*[joint_ids_map[i]] = processed[i]; kp / kd = stiffness /
//                 damping (SDK order). On entering, env->reset(): actions 0, every history filled
//                 with the current observation. velocity_commands: the command clamped to
//                 commands.base_velocity.ranges. joint_pos_rel: q - default_joint_pos (network
//                 order); last_action: the raw network output.
//
// Usage: bench_g1_reference MODEL.xml POLICY.onnx DEPLOY.yaml CONFIG.yaml SECONDS VX VY VYAW
//                           [JSON_OUT] [RELEASE_S (0.5)] [COMMAND_DELAY_S (1.0)]
//   POLICY.onnx: the imported network or unitree_rl_lab's exported/policy.onnx (the same graph);
//   DEPLOY.yaml: params/deploy.yaml; CONFIG.yaml: deploy/robots/g1/config/config.yaml's FixStand,
//   or a file whose FSM.FixStand has kp, kd, ts, qs (empty: the example's g1.yaml is not it: the
//   FixStand pose is deploy.yaml's default pose in SDK order, its gains stiffness / damping).
// Prints (and writes as JSON) over the SECONDS of the command: the base's planar displacement, the
// mean forward speed after its first second, the heading change (unwrapped), the largest tilt,
// the lowest pelvis height and whether it fell (tilt > 60°, from the release on).
#include <mujoco/mujoco.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <exception>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "policy/runtime.hpp"
#include "sim/mjcf_compat.hpp"

namespace {

constexpr double kFallTiltDeg = 60;

// deploy.yaml as unitree_rl_lab's ManagerBasedRLEnv, ObservationManager and JointAction read it.
struct Term {
  std::string name;
  std::vector<float> scale, clip;
  int history_length = 1;
  std::deque<std::vector<float>> buffer;  // oldest first (ObservationTermCfg::buff_)

  void Add(std::vector<float> obs) {
    buffer.push_back(std::move(obs));
    if (static_cast<int>(buffer.size()) > history_length) buffer.pop_front();
  }
  void Reset(const std::vector<float>& obs) {
    for (int i = 0; i < history_length; ++i) Add(obs);
  }
  void AppendTo(std::vector<float>* out) const {  // ObservationTermCfg::get
    for (auto entry : buffer) {
      for (std::size_t j = 0; j < entry.size(); ++j) {
        if (!clip.empty()) entry[j] = std::clamp(entry[j], clip[0], clip[1]);
        if (!scale.empty()) entry[j] *= scale[j];
      }
      out->insert(out->end(), entry.begin(), entry.end());
    }
  }
};

struct Deploy {
  std::vector<int> joint_ids_map;  // network joint i -> SDK joint
  double step_dt = 0;
  std::vector<float> stiffness, damping;  // SDK order
  std::vector<float> default_joint_pos;   // network order
  std::vector<float> action_scale, action_offset;
  std::vector<std::vector<float>> action_clip;
  std::array<std::array<float, 2>, 3> command_range{};
  std::vector<Term> terms;
};

Deploy ReadDeploy(const std::string& path) {
  // PyYAML's tag on joint_ids: yaml-cpp reads the node as the sequence it is.
  const YAML::Node y = YAML::LoadFile(path);
  Deploy d;
  for (const auto& v : y["joint_ids_map"]) d.joint_ids_map.push_back(v.as<int>());
  d.step_dt = y["step_dt"].as<double>();
  d.stiffness = y["stiffness"].as<std::vector<float>>();
  d.damping = y["damping"].as<std::vector<float>>();
  d.default_joint_pos = y["default_joint_pos"].as<std::vector<float>>();
  const YAML::Node actions = y["actions"];
  if (actions.size() != 1 || !actions["JointPositionAction"]) {
    throw std::runtime_error(path + ": actions: only JointPositionAction is re-implemented");
  }
  const YAML::Node a = actions["JointPositionAction"];
  d.action_scale = a["scale"].as<std::vector<float>>();
  d.action_offset = a["offset"].as<std::vector<float>>();
  if (a["clip"] && !a["clip"].IsNull()) {
    d.action_clip = a["clip"].as<std::vector<std::vector<float>>>();
  }
  const YAML::Node r = y["commands"]["base_velocity"]["ranges"];
  const char* keys[3] = {"lin_vel_x", "lin_vel_y", "ang_vel_z"};
  for (int i = 0; i < 3; ++i) {
    d.command_range[i] = {r[keys[i]][0].as<float>(), r[keys[i]][1].as<float>()};
  }
  for (const auto& it : y["observations"]) {  // yaml-cpp keeps the document's order
    Term t;
    t.name = it.first.as<std::string>();
    t.history_length = it.second["history_length"].as<int>(1);
    t.scale = it.second["scale"].as<std::vector<float>>();
    if (it.second["clip"] && !it.second["clip"].IsNull()) {
      t.clip = it.second["clip"].as<std::vector<float>>();
    }
    d.terms.push_back(std::move(t));
  }
  const std::size_t n = d.joint_ids_map.size();
  if (d.stiffness.size() != n || d.damping.size() != n || d.default_joint_pos.size() != n ||
      d.action_scale.size() != n || d.action_offset.size() != n) {
    throw std::runtime_error(path + ": per-joint lists of different lengths");
  }
  return d;
}

struct FixStand {
  std::vector<float> kp, kd, qs;
  double duration_s = 0;
};

FixStand ReadFixStand(const std::string& path) {
  const YAML::Node f = YAML::LoadFile(path)["FSM"]["FixStand"];
  FixStand s;
  s.kp = f["kp"].as<std::vector<float>>();
  s.kd = f["kd"].as<std::vector<float>>();
  const auto ts = f["ts"].as<std::vector<float>>();
  const auto qs = f["qs"].as<std::vector<std::vector<float>>>();
  if (ts.size() != 2 || qs.size() != 2 || ts[0] != 0) {
    throw std::runtime_error(path + ": FSM.FixStand: expected ts [0, T] and qs [[], pose]");
  }
  s.qs = qs[1];
  s.duration_s = ts[1];
  return s;
}

// unitree_mujoco simulate's ElasticBand (its defaults).
struct ElasticBand {
  double stiffness = 200, damping = 100, length = 0;
  std::array<double, 3> point = {0, 0, 3};
  bool enabled = true;

  std::array<double, 3> Force(const double* x, const double* dx) const {
    const double delta[3] = {point[0] - x[0], point[1] - x[1], point[2] - x[2]};
    const double distance =
        std::sqrt(delta[0] * delta[0] + delta[1] * delta[1] + delta[2] * delta[2]);
    const double dir[3] = {delta[0] / distance, delta[1] / distance, delta[2] / distance};
    const double v = dx[0] * dir[0] + dx[1] * dir[1] + dx[2] * dir[2];
    const double f = stiffness * (distance - length) - damping * v;
    return {f * dir[0], f * dir[1], f * dir[2]};
  }
};

double TiltDeg(const double* q) {  // angle between the base's z and the world's
  const double c = 1 - 2 * (q[1] * q[1] + q[2] * q[2]);
  return std::acos(std::clamp(c, -1.0, 1.0)) * 180 / M_PI;
}

double Yaw(const double* q) {
  return std::atan2(2 * (q[0] * q[3] + q[1] * q[2]), 1 - 2 * (q[2] * q[2] + q[3] * q[3]));
}

// Contacts between the floor and each foot (the ankle roll links carry the feet's geoms).
int FeetOnFloor(const mjModel* m, const mjData* d, int floor, const std::array<int, 2>& feet) {
  int on = 0;
  for (int foot : feet) {
    for (int c = 0; c < d->ncon; ++c) {
      const int b1 = m->geom_bodyid[d->contact[c].geom1], b2 = m->geom_bodyid[d->contact[c].geom2];
      const bool floor_contact = d->contact[c].geom1 == floor || d->contact[c].geom2 == floor;
      if (floor_contact && (b1 == foot || b2 == foot)) {
        ++on;
        break;
      }
    }
  }
  return on;
}

class Reference {
 public:
  Reference(mjModel* m, mjData* d, Deploy deploy, robot_edge::policy::InferenceRuntime* net)
      : m_(m),
        d_(d),
        deploy_(std::move(deploy)),
        net_(net),
        n_(deploy_.joint_ids_map.size()),
        joint_pos_(n_),
        joint_vel_(n_),
        raw_(n_, 0.0f),
        processed_(n_, 0.0f) {}

  // State_RLBase::enter: update, env->reset() (actions 0, histories filled with this observation).
  void Enter() {
    Update();
    std::fill(raw_.begin(), raw_.end(), 0.0f);
    for (auto& t : deploy_.terms) {
      t.buffer.clear();
      t.Reset(TermValue(t.name));
    }
  }

  // ManagerBasedRLEnv::step: the targets in SDK order come out through Target().
  void Step() {
    Update();
    obs_.clear();
    for (auto& t : deploy_.terms) {
      t.Add(TermValue(t.name));
      t.AppendTo(&obs_);
    }
    if (obs_.size() != net_->input_size()) {
      throw std::runtime_error("the observation has " + std::to_string(obs_.size()) +
                               " values, the network takes " + std::to_string(net_->input_size()));
    }
    net_->Run(obs_, raw_);
    for (std::size_t i = 0; i < n_; ++i) {
      processed_[i] = raw_[i] * deploy_.action_scale[i] + deploy_.action_offset[i];
      if (!deploy_.action_clip.empty()) {
        processed_[i] =
            std::clamp(processed_[i], deploy_.action_clip[i][0], deploy_.action_clip[i][1]);
      }
    }
  }

  // State_RLBase::run: motor_cmd[joint_ids_map[i]].q = processed[i].
  void Targets(std::vector<double>* q_sdk) const {
    for (std::size_t i = 0; i < n_; ++i) (*q_sdk)[deploy_.joint_ids_map[i]] = processed_[i];
  }

  std::array<double, 3> command = {0, 0, 0};

 private:
  void Update() {  // BaseArticulation::update
    // the imu site: the pelvis' origin and frame. quat⁻¹·(0, 0, -1) = -(R's third row)
    const double* q = d_->qpos + 3;
    const double w = q[0], x = q[1], y = q[2], z = q[3];
    gravity_[0] = static_cast<float>(-2 * (x * z - w * y));
    gravity_[1] = static_cast<float>(-2 * (y * z + w * x));
    gravity_[2] = static_cast<float>(-(1 - 2 * (x * x + y * y)));
    for (int i = 0; i < 3; ++i) ang_vel_[i] = static_cast<float>(d_->qvel[3 + i]);
    for (std::size_t i = 0; i < n_; ++i) {
      const int sdk = deploy_.joint_ids_map[i];
      joint_pos_[i] = static_cast<float>(d_->qpos[m_->jnt_qposadr[sdk + 1]]);
      joint_vel_[i] = static_cast<float>(d_->qvel[m_->jnt_dofadr[sdk + 1]]);
    }
  }

  std::vector<float> TermValue(const std::string& name) const {
    if (name == "base_ang_vel") return {ang_vel_.begin(), ang_vel_.end()};
    if (name == "projected_gravity") return {gravity_.begin(), gravity_.end()};
    if (name == "velocity_commands") {
      std::vector<float> v(3);
      for (int i = 0; i < 3; ++i) {
        v[i] = std::clamp(static_cast<float>(command[i]), deploy_.command_range[i][0],
                          deploy_.command_range[i][1]);
      }
      return v;
    }
    if (name == "joint_pos_rel") {
      std::vector<float> v(n_);
      for (std::size_t i = 0; i < n_; ++i) v[i] = joint_pos_[i] - deploy_.default_joint_pos[i];
      return v;
    }
    if (name == "joint_vel_rel") return joint_vel_;
    if (name == "last_action") return raw_;
    throw std::runtime_error("observation term '" + name + "' is not re-implemented here");
  }

  mjModel* m_;
  mjData* d_;
  Deploy deploy_;
  robot_edge::policy::InferenceRuntime* net_;
  std::size_t n_;
  std::array<float, 3> ang_vel_{}, gravity_{};
  std::vector<float> joint_pos_, joint_vel_, raw_, processed_, obs_;
};

struct Result {
  double distance = 0, dx = 0, dy = 0, mean_vx = 0, yaw_change = 0, max_tilt = 0;
  double min_height = 1e9, fell_at = -1, policy_at = 0, released_at = 0, band_length = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 9) {
    std::fprintf(stderr,
                 "usage: bench_g1_reference MODEL.xml POLICY.onnx DEPLOY.yaml CONFIG.yaml SECONDS "
                 "VX VY VYAW [JSON] [RELEASE_S] [COMMAND_DELAY_S]\n");
    return 2;
  }
  try {
    const double seconds = std::atof(argv[5]);
    const std::array<double, 3> cmd = {std::atof(argv[6]), std::atof(argv[7]), std::atof(argv[8])};
    const double release_s = argc > 10 ? std::atof(argv[10]) : 0.5;
    const double command_delay_s = argc > 11 ? std::atof(argv[11]) : 1.0;
    auto loaded = robot_edge::sim::LoadMjcf(argv[1]);
    mjModel* m = loaded.model;
    Deploy deploy = ReadDeploy(argv[3]);
    const FixStand stand = ReadFixStand(argv[4]);
    const int n = static_cast<int>(deploy.joint_ids_map.size());
    if (m->nq != 7 + n || m->nv != 6 + n || m->nu != n || m->jnt_type[0] != mjJNT_FREE) {
      std::fprintf(stderr,
                   "bench_g1_reference: the model is not a floating base with %d joints, "
                   "%d motors\n",
                   n, n);
      return 2;
    }
    for (int a = 0; a < n; ++a) {  // unitree_mujoco: motor i drives the SDK's joint i
      if (m->actuator_trnid[2 * a] != a + 1) {
        std::fprintf(stderr, "bench_g1_reference: actuator %d does not drive joint %d\n", a, a + 1);
        return 2;
      }
    }
    std::vector<double> lo(n, -1e9), hi(n, 1e9);  // actuatorfrcrange per actuator (gear 1)
    for (int a = 0; a < n; ++a) {
      const char* joint = mj_id2name(m, mjOBJ_JOINT, a + 1);
      for (const auto& r : loaded.force_ranges) {
        if (joint && r.joint == joint) lo[a] = r.min, hi[a] = r.max;
      }
    }
    const int decimation = static_cast<int>(std::lround(deploy.step_dt / m->opt.timestep));
    const int torso = mj_name2id(m, mjOBJ_BODY, "torso_link");
    const int floor = mj_name2id(m, mjOBJ_GEOM, "floor");
    const std::array<int, 2> feet = {mj_name2id(m, mjOBJ_BODY, "left_ankle_roll_link"),
                                     mj_name2id(m, mjOBJ_BODY, "right_ankle_roll_link")};
    if (torso < 0 || floor < 0 || feet[0] < 0 || feet[1] < 0) {
      std::fprintf(stderr, "bench_g1_reference: no torso_link, floor or ankle roll links\n");
      return 2;
    }
    mjData* d = mj_makeData(m);
    mj_forward(m, d);
    auto net = robot_edge::policy::LoadOnnx(argv[2]);
    if (static_cast<int>(net->output_size()) != n) {
      std::fprintf(stderr, "bench_g1_reference: the policy has %zu outputs, not %d\n",
                   net->output_size(), n);
      return 2;
    }
    Reference ref(m, d, deploy, net.get());
    ElasticBand band;
    std::vector<double> target(n), kp(n), kd(n), q0(n);
    for (int i = 0; i < n; ++i) q0[i] = d->qpos[7 + i];  // FixStand starts at the measured pose
    kp.assign(stand.kp.begin(), stand.kp.end());
    kd.assign(stand.kd.begin(), stand.kd.end());

    enum class Phase { kStand, kLower, kPolicy } phase = Phase::kStand;
    Result r;
    double next_press = stand.duration_s, x0 = 0, y0 = 0, last_yaw = 0, vx_sum = 0;
    long vx_n = 0, policy_steps = 0;
    bool walking = false;
    double walk_start = 0;
    const long max_steps = std::lround((stand.duration_s + 30 + seconds) / m->opt.timestep);
    for (long k = 0; k < max_steps; ++k) {
      const double t = d->time;
      // the FSM and the operator's keys
      if (phase == Phase::kStand) {
        const double alpha = std::min(t / stand.duration_s, 1.0);
        for (int i = 0; i < n; ++i) target[i] = q0[i] * (1 - alpha) + stand.qs[i] * alpha;
        if (t >= stand.duration_s) phase = Phase::kLower;
      }
      if (phase == Phase::kLower) {
        if (FeetOnFloor(m, d, floor, feet) == 2) {
          phase = Phase::kPolicy;
          r.policy_at = t + 0.5;
        } else if (t >= next_press) {
          band.length += 0.1;  // "press 8"
          next_press = t + 0.5;
        }
        if (band.length > 3) throw std::runtime_error("lowered 3 m: the feet never touched");
      }
      if (phase == Phase::kPolicy && policy_steps == 0 && t >= r.policy_at) {
        for (int i = 0; i < n; ++i) kp[i] = deploy.stiffness[i], kd[i] = deploy.damping[i];
        ref.Enter();
        r.released_at = r.policy_at + release_s;
        walk_start = r.released_at + command_delay_s;
      }
      if (phase == Phase::kPolicy && t >= r.policy_at) {
        if (band.enabled && t >= r.released_at) band.enabled = false;  // "press 9"
        if (!walking && t >= walk_start) {
          walking = true;
          ref.command = cmd;
          x0 = d->qpos[0], y0 = d->qpos[1], last_yaw = Yaw(d->qpos + 3);
        }
        if (policy_steps % decimation == 0) {  // the policy thread, every step_dt
          ref.Step();
          ref.Targets(&target);
        }
        ++policy_steps;
      }
      // unitree_mujoco's bridge and band, then mj_step
      for (int i = 0; i < n; ++i) {
        const double tau = kp[i] * (target[i] - d->qpos[7 + i]) + kd[i] * (0 - d->qvel[6 + i]);
        d->ctrl[i] = std::clamp(tau, lo[i], hi[i]);
      }
      for (int i = 0; i < 3; ++i) d->xfrc_applied[6 * torso + i] = 0;
      if (band.enabled) {
        const auto f = band.Force(d->qpos, d->qvel);
        for (int i = 0; i < 3; ++i) d->xfrc_applied[6 * torso + i] = f[i];
      }
      mj_step(m, d);
      const double tilt = TiltDeg(d->qpos + 3);
      if (!band.enabled && r.fell_at < 0 && tilt > kFallTiltDeg) r.fell_at = d->time;
      if (!walking) continue;
      const double yaw = Yaw(d->qpos + 3);
      r.yaw_change += std::remainder(yaw - last_yaw, 2 * M_PI);
      last_yaw = yaw;
      r.max_tilt = std::max(r.max_tilt, tilt);
      r.min_height = std::min(r.min_height, d->qpos[2]);
      if (d->time - walk_start >= 1.0) {  // forward speed in the heading frame
        vx_sum += std::cos(yaw) * d->qvel[0] + std::sin(yaw) * d->qvel[1];
        ++vx_n;
      }
      if (d->time - walk_start >= seconds - 1e-9) break;
    }
    if (!walking) throw std::runtime_error("the policy never started");
    r.dx = d->qpos[0] - x0, r.dy = d->qpos[1] - y0;
    r.distance = std::hypot(r.dx, r.dy);
    r.mean_vx = vx_n ? vx_sum / static_cast<double>(vx_n) : 0;
    r.band_length = band.length;
    const bool fell = r.fell_at >= 0;
    std::printf(
        "reference (unitree_rl_lab's deploy loop, MuJoCo %s): on the band lowered %.1f m, the "
        "policy at %.2f s, released at %.2f s; %.1f s at vx %.2f vy %.2f vyaw %.2f: displacement "
        "%.3f m (x %.3f, y %.3f), mean forward speed %.3f m/s after 1 s, heading change %.1f°, "
        "largest tilt %.1f°, lowest pelvis %.3f m, %s\n",
        mj_versionString(), r.band_length, r.policy_at, r.released_at, seconds, cmd[0], cmd[1],
        cmd[2], r.distance, r.dx, r.dy, r.mean_vx, r.yaw_change * 180 / M_PI, r.max_tilt,
        r.min_height, fell ? ("FELL at " + std::to_string(r.fell_at) + " s").c_str() : "no fall");
    if (argc > 9 && std::string(argv[9]) != "-") {
      std::ofstream(argv[9]) << "{\"seconds\": " << seconds << ", \"distance_m\": " << r.distance
                             << ", \"dx_m\": " << r.dx << ", \"dy_m\": " << r.dy
                             << ", \"mean_vx_m_s\": " << r.mean_vx
                             << ", \"yaw_rad\": " << r.yaw_change
                             << ", \"max_tilt_deg\": " << r.max_tilt
                             << ", \"min_pelvis_m\": " << r.min_height
                             << ", \"band_length_m\": " << r.band_length
                             << ", \"policy_at_s\": " << r.policy_at
                             << ", \"released_at_s\": " << r.released_at
                             << ", \"fell\": " << (fell ? "true" : "false") << "}\n";
    }
    mj_deleteData(d);
    mj_deleteModel(m);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_g1_reference: %s\n", e.what());
    return 2;
  }
}
