// The joints as the control path reads them: one table of floats in joint space, built once at
// start-up by config/ (config/joint_table.hpp: BuildJointTable) and handed to the state machine,
// the command validator and the policy's action map, so that the YAML's doubles are converted
// in one place. How each motor is mounted is can/'s (can::Wiring).
#pragma once

#include <vector>

namespace robot_edge::sm {

// One joint, joint space. The caps are what its motor's command fields can carry, seen from the
// joint (kp and kd also within the API's ranges): kp_cap = min(API, kp_max / gear_ratio²), v_cap
// = v_max · gear_ratio, t_cap = t_max / gear_ratio.
struct JointParams {
  float min_rad = 0, max_rad = 0;  // position limits
  float stand_rad = 0;             // stand pose
  float kp = 0, kd = 0;            // default gains (N·m/rad, N·m·s/rad)
  float damp_kd = 0;               // DAMP's damping (N·m·s/rad)
  float kp_cap = 0, kd_cap = 0;    // N·m/rad, N·m·s/rad
  float v_cap_rad_s = 0;           // rad/s
  float t_cap_nm = 0;              // N·m: the feed-forward torque's bound
  float reach_nm = 0;  // MOVE/JOINT_STREAM: kp·|q_des − q| + |τ_ff| at most this (N·m); 0 = none
                       // (joints[].max_torque when set; the motor saturates at t_max anyway)
  float velocity_trip_rad_s = 0;  // measured faster in a streamed MOVE: DAMP; 0 = none
  // Guards on streamed targets (yaml target_limits); 0 / 1 = none.
  float target_v_max = 0;     // rad/s
  float target_a_max = 0;     // rad/s²
  float target_low_pass = 1;  // a of y(k) = (1 - a)·y(k-1) + a·x(k)
};

using JointTable = std::vector<JointParams>;

}  // namespace robot_edge::sm
