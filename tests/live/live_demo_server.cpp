// live_demo_server: LiveServer on an ephemeral port with the real schemas and synthetic,
// deterministic data, for the Node and Chromium checks (tests/js/live_*.mjs, dashboard_check.mjs)
// and for looking at the dashboard by hand.
//
//   live_demo_server --config config/robot-edge.yaml --web-root live/web
//                    [--port 0] [--token T] [--operator-token O]
//
// Publishes /joint_state (edge.JointState) at 500 Hz: every joint a sinusoid about its stand pose
// (joint i: amplitude 0.05 + 0.01·(i mod 5) rad, period 2 + 0.1·i s; L_Knee swings to within
// 0.05 rad of its lower limit), q lagging q_des by 20 ms; control_mode STAND, fw_mode STAND;
// temperatures 40 + i °C except L_Knee at 72 °C (above the 70 °C clear threshold).
// /telemetry (edge.EdgeTelemetry) at 10 Hz with one active alert (CAN_BUS_OFF on bus 2, warning).
// /events (edge.EdgeEvent): a controller event ("cloud" acquired) at start, diagnostics at 1 Hz,
// an error every 2 s (alternating MOTOR_TIMEOUT / TRAJECTORY_TIMEOUT).
// Serves the web root and /robot.json (RobotDocument of the config). Service /robot_edge/damp
// (operator only) counts its calls; after the first, control_mode and fw_mode are DAMP.
//
// stdout, one line each: "port N" once listening, "damp N" after each DAMP call. Stops when
// stdin closes or on SIGTERM / SIGINT.
#include <signal.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>

#include "config/config.hpp"
#include "edge_api.pb.h"
#include "edge_cloud.pb.h"
#include "live/live_server.hpp"
#include "live/robot_document.hpp"
#include "proto/schema.hpp"

namespace {

using namespace robot_edge;
using Clock = std::chrono::steady_clock;

volatile sig_atomic_t g_signalled = 0;
void OnSignal(int) { g_signalled = 1; }

struct Args {
  std::string config = "config/robot-edge.yaml";
  live::LiveOptions options;
};

Args ParseArgs(int argc, char** argv) {
  Args args;
  args.options.port = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--config")
      args.config = value;
    else if (key == "--web-root")
      args.options.web_root = value;
    else if (key == "--port")
      args.options.port = static_cast<std::uint16_t>(std::stoi(value));
    else if (key == "--token")
      args.options.token = value;
    else if (key == "--operator-token")
      args.options.operator_token = value;
    else
      throw std::invalid_argument("unknown option " + key);
  }
  return args;
}

live::ChannelSpec ChannelOf(std::string topic, const google::protobuf::Descriptor* type) {
  live::ChannelSpec spec;
  spec.topic = std::move(topic);
  spec.schema_name = type->full_name();
  spec.schema = proto::FileDescriptorSetOf(type);
  return spec;
}

std::uint64_t WallNs() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

// The robot's state at control tick `tick` (500 Hz); a pure function of the tick and the mode.
edge::JointState StateAt(const config::Config& config, std::uint64_t tick, bool damped) {
  const double t = static_cast<double>(tick) / config.control.rate_hz;
  edge::JointState s;
  s.set_timestamp_us(WallNs() / 1000);
  s.set_robot_time_us(static_cast<std::uint64_t>(t * 1e6));
  s.set_tick(tick);
  s.set_fw_mode(damped ? edge::FW_MODE_DAMP : edge::FW_MODE_STAND);
  s.set_control_mode(damped ? edge::CONTROL_MODE_DAMP : edge::CONTROL_MODE_STAND);
  s.set_error_flags(edge::ERROR_FLAG_CAN_BUS_OFF);
  for (std::size_t i = 0; i < config.joints.size(); ++i) {
    const auto& joint = config.joints[i];
    const bool knee = joint.name == "L_Knee";
    const double amplitude = knee ? joint.stand_rad - joint.min_rad - 0.05 : 0.05 + 0.01 * (i % 5);
    const double omega = 2 * M_PI / (2.0 + 0.1 * static_cast<double>(i));
    const double lag = 0.02;
    s.add_q_des(static_cast<float>(joint.stand_rad + amplitude * std::sin(omega * t)));
    s.add_dq_des(static_cast<float>(amplitude * omega * std::cos(omega * t)));
    s.add_q(static_cast<float>(joint.stand_rad + amplitude * std::sin(omega * (t - lag))));
    s.add_dq(static_cast<float>(amplitude * omega * std::cos(omega * (t - lag))));
    s.add_tau(static_cast<float>(joint.kp * amplitude * 0.05 * std::sin(omega * t + 0.3)));
    s.add_temperature_c(knee ? 72.0f : 40.0f + static_cast<float>(i));
    s.add_motor_fault(0);
    s.add_kp(damped ? 0.0f : static_cast<float>(joint.kp));
    s.add_kd(static_cast<float>(damped ? joint.damp_kd : joint.kd));
    s.add_tau_ff(0.0f);
  }
  const double yaw = 0.3 * std::sin(0.5 * t), roll = 0.05 * std::sin(1.3 * t);
  s.add_imu_quat(static_cast<float>(std::cos(yaw / 2) * std::cos(roll / 2)));
  s.add_imu_quat(static_cast<float>(std::cos(yaw / 2) * std::sin(roll / 2)));
  s.add_imu_quat(static_cast<float>(-std::sin(yaw / 2) * std::sin(roll / 2)));
  s.add_imu_quat(static_cast<float>(std::sin(yaw / 2) * std::cos(roll / 2)));
  s.add_imu_gyro(static_cast<float>(0.05 * 1.3 * std::cos(1.3 * t)));
  s.add_imu_gyro(0.0f);
  s.add_imu_gyro(static_cast<float>(0.3 * 0.5 * std::cos(0.5 * t)));
  s.mutable_timing()->set_period_us(2000.0f + static_cast<float>(tick % 7));
  s.mutable_timing()->set_work_us(150.0f);
  s.mutable_timing()->set_wake_latency_us(20.0f);
  s.set_last_command_sequence(7);
  return s;
}

edge::EdgeTelemetry TelemetryOf(const edge::JointState& state, std::uint32_t sequence) {
  edge::EdgeTelemetry t;
  t.set_timestamp_us(state.timestamp_us());
  t.set_fw_timestamp_us(state.timestamp_us());
  t.set_sequence(sequence);
  t.set_fw_mode(state.fw_mode());
  *t.mutable_joint_pos() = state.q();
  *t.mutable_joint_vel() = state.dq();
  *t.mutable_joint_temp() = state.temperature_c();
  *t.mutable_imu_quat() = state.imu_quat();
  *t.mutable_imu_gyro() = state.imu_gyro();
  t.set_error_flags(state.error_flags());
  auto* alert = t.add_active_alerts();
  alert->set_id(edge::ALERT_CAN_BUS_OFF);
  alert->set_severity(edge::SEVERITY_WARNING);
  alert->set_value(1);
  alert->set_threshold(0);
  alert->set_source_id(2);
  alert->set_first_set_us(1'000'000);
  return t;
}

edge::EdgeEvent EventAt(std::uint64_t tick, std::uint32_t sequence) {
  edge::EdgeEvent e;
  e.set_timestamp_us(WallNs() / 1000);
  e.set_sequence(sequence);
  if (tick == 0) {
    auto* c = e.mutable_controller();
    c->set_current("cloud");
    c->set_reason("acquired");
  } else if (tick % 1000 == 0) {
    auto* error = e.mutable_error();
    const bool odd = (tick / 1000) % 2 == 1;
    error->set_subsystem(edge::SUBSYSTEM_FW_LINK);
    error->set_code(odd ? "MOTOR_TIMEOUT" : "TRAJECTORY_TIMEOUT");
    error->set_message(odd ? "L_Ankle_A stopped replying for 60 ms"
                           : "no trajectory segment for 200 ms: DAMP");
  } else {
    auto* d = e.mutable_diagnostics();
    d->set_controller("cloud");
    d->set_provisioned(true);
    d->set_cloud_connected(true);
  }
  return e;
}

}  // namespace

int main(int argc, char** argv) {
  spdlog::set_default_logger(spdlog::stderr_color_st("live_demo_server"));
  Args args;
  config::Config config;
  try {
    args = ParseArgs(argc, argv);
    config = config::LoadConfig(args.config);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "live_demo_server: %s\n", e.what());
    return 2;
  }
  live::LiveServer server(args.options);
  const auto joint_state =
      server.AddChannel(ChannelOf("/joint_state", edge::JointState::descriptor()));
  const auto telemetry =
      server.AddChannel(ChannelOf("/telemetry", edge::EdgeTelemetry::descriptor()));
  const auto events = server.AddChannel(ChannelOf("/events", edge::EdgeEvent::descriptor()));
  server.SetDocument("/robot.json", "application/json", live::RobotDocument(config));
  std::atomic<int> damps{0};
  server.AddService({"/robot_edge/damp", "robot_edge/Damp", R"({"type":"object"})",
                     R"({"type":"object","properties":{"accepted":{"type":"boolean"}}})", true},
                    [&](std::string_view) {
                      std::printf("damp %d\n", ++damps);
                      std::fflush(stdout);
                      return live::ServiceReply{true, R"({"accepted":true,"mode":"DAMP"})"};
                    });
  server.Start();
  std::printf("port %u\n", server.port());
  std::fflush(stdout);

  signal(SIGTERM, OnSignal);
  signal(SIGINT, OnSignal);
  std::atomic<bool> stdin_closed{false};
  std::thread([&] {
    while (std::cin.get() != EOF) {
    }
    stdin_closed = true;
  }).detach();

  const auto period = std::chrono::microseconds(config.period_us());
  auto next = Clock::now();
  std::uint32_t telemetry_sequence = 0, event_sequence = 0;
  std::string bytes;
  for (std::uint64_t tick = 0; !g_signalled && !stdin_closed; ++tick) {
    const edge::JointState state = StateAt(config, tick, damps > 0);
    const std::uint64_t now_ns = WallNs();
    state.SerializeToString(&bytes);
    server.Publish(joint_state, now_ns, bytes);
    if (tick % 50 == 0) {
      TelemetryOf(state, ++telemetry_sequence).SerializeToString(&bytes);
      server.Publish(telemetry, now_ns, bytes);
    }
    if (tick % 500 == 0) {
      EventAt(tick, ++event_sequence).SerializeToString(&bytes);
      server.Publish(events, now_ns, bytes);
    }
    next += period;
    std::this_thread::sleep_until(next);
  }
  server.Stop();
  return 0;
}
