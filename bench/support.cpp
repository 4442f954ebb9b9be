#include "support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "can/imu_codec.hpp"
#include "can/mit_codec.hpp"
#include "can/motor_scheduler.hpp"
#include "client/commands.hpp"

namespace robot_edge::bench {
namespace {

constexpr std::size_t kMotorsPerBus = 5;

std::vector<std::string> InterfacesOf(const config::Config& c) {
  std::vector<std::string> names;
  for (const auto& b : c.buses) names.push_back(b.interface);
  return names;
}

}  // namespace

const config::Config& DefaultConfig() {
  static const config::Config c = config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  return c;
}

config::Config GeneratedConfig(std::size_t joints) {
  const config::Config& base = DefaultConfig();
  if (joints == base.joints.size()) return base;
  config::Config c = base;
  c.source = "<generated: ";
  c.source += std::to_string(joints) + " joints>";
  c.lines.clear();
  const std::size_t buses =
      std::min(config::kMaxBuses, (joints + kMotorsPerBus - 1) / kMotorsPerBus);
  c.buses.clear();
  for (std::size_t b = 0; b < buses; ++b) {
    config::BusConfig bus = base.buses[0];
    // (Appended rather than "bus" + ...: GCC 12 warns wrongly about that form, PR 105329.)
    bus.name = "bus";
    bus.name += std::to_string(b);
    bus.interface = "vcan";
    bus.interface += std::to_string(b);
    c.buses.push_back(bus);
  }
  c.joints.clear();
  for (std::size_t j = 0; j < joints; ++j) {
    config::JointConfig joint = base.joints[j % base.joints.size()];
    joint.name += '_';
    joint.name += std::to_string(j);
    joint.bus = j % buses;
    joint.bus_name = c.buses[joint.bus].name;
    joint.can_id = static_cast<std::uint32_t>(j / buses + 1);
    c.joints.push_back(joint);
  }
  c.imu.bus = buses - 1;
  c.imu.bus_name = c.buses.back().name;
  const auto problems = config::Validate(c);
  if (!problems.empty()) throw config::ConfigError(problems);
  return c;
}

// ---- AnsweringRobot ----

AnsweringRobot::AnsweringRobot(const config::Config& config)
    : transport_(InterfacesOf(config), /*capacity=*/4 * 1024), replies_(config) {}

void AnsweringRobot::Answer() {
  transport_.ClearSent();
  for (const can::BusFrame& f : replies_.all()) transport_.Inject(f.bus, f.frame);
}

// ---- LoopRig ----

LoopRig::LoopRig(const config::Config& config)
    : config_(config),
      robot_(config),
      channels_(config, /*command_slots=*/32, /*event_capacity=*/4096),  // as daemon.cpp
      loop_(config, robot_.transport(), /*policy=*/nullptr, &channels_) {}

void LoopRig::Tick() {
  robot_.Answer();
  now_us_ += kPeriodUs;
  loop_.Tick(now_us_);
  daemon::ControlEvent e;
  while (channels_.events.Pop(&e)) {
  }
}

void LoopRig::Stand() {
  for (int i = 0; i < 10; ++i) Tick();  // every motor has replied: STAND is allowed
  daemon::CommandSlot* slot = AcquireSlot();
  slot->command.kind = sm::CommandKind::kMode;
  slot->command.mode = sm::ModeRequest::kStand;
  Send(slot);
  const std::int64_t ramp_us = static_cast<std::int64_t>(config_.control.stand_ramp_s * 1e6);
  for (std::int64_t t = 0; t <= ramp_us + 10 * kPeriodUs; t += kPeriodUs) Tick();
  if (channels_.snapshots.Latest().mode != sm::Mode::kStand) {
    throw std::runtime_error("the loop did not reach STAND");
  }
}

daemon::CommandSlot* LoopRig::AcquireSlot() {
  daemon::CommandSlot* slot = channels_.commands.Acquire();
  if (slot == nullptr) throw std::runtime_error("no free command slot");
  slot->command = sm::Command{};
  slot->command.received_us = now_us_;
  slot->client_id = 1;
  slot->want_result = true;
  return slot;
}

// ---- Commands ----

std::vector<std::vector<float>> StandSegments(const config::Config& config, std::size_t segments,
                                              float offset_rad) {
  std::vector<float> pose;
  for (const auto& j : config.joints) pose.push_back(static_cast<float>(j.stand_rad));
  std::vector<std::vector<float>> out(segments, pose);
  for (std::size_t s = 0; s < segments; ++s) {
    out[s][0] += offset_rad * static_cast<float>(s + 1) / static_cast<float>(segments);
  }
  return out;
}

namespace {

// Placeholders whose varints keep their length for every value FreshCommand writes: 5 bytes for
// sequences from 2^28, 8 bytes for wall-clock µs from 2^49 (year 2027 is 2^50.6).
constexpr std::uint32_t kFirstSequence = 1u << 28;
constexpr std::uint64_t kWallBaseUs = 1'800'000'000'000'000ull;

std::string Varint(std::uint64_t v) {
  std::string out;
  proto::AppendVarint(v, &out);
  return out;
}

void WriteVarint(std::uint64_t v, std::size_t width, char* out) {
  for (std::size_t i = 0; i < width; ++i, v >>= 7) {
    out[i] = static_cast<char>((v & 0x7F) | (i + 1 < width ? 0x80 : 0));
  }
}

}  // namespace

std::string TrajectoryBytes(const config::Config& config, std::size_t segments) {
  std::vector<float> kp, kd;
  for (const auto& j : config.joints) {
    kp.push_back(static_cast<float>(j.kp));
    kd.push_back(static_cast<float>(j.kd));
  }
  const auto rows = StandSegments(config, segments, 0.05f);
  // 256 segments with kp and kd are 77 KB: over the API's 64 KiB message limit.
  const bool gains = segments <= kMaxSegmentsWithGains;
  edge::ClientMessage message;
  *message.mutable_command() =
      gains ? client::MakeTrajectory(rows, kp, kd) : client::MakeTrajectory(rows);
  message.mutable_command()->set_sequence(kFirstSequence);
  message.mutable_command()->set_timestamp_us(kWallBaseUs);
  std::string bytes;
  if (!proto::AppendDelimited(message, &bytes)) throw std::runtime_error("command over 64 KiB");
  return bytes;
}

std::string JointCommandBytes(const config::Config& config) {
  std::vector<float> q, dq(config.joints.size(), 0.1f), tau(config.joints.size(), 0.5f), kp, kd;
  for (const auto& j : config.joints) {
    q.push_back(static_cast<float>(j.stand_rad));
    kp.push_back(static_cast<float>(j.kp));
    kd.push_back(static_cast<float>(j.kd));
  }
  edge::ClientMessage message;
  *message.mutable_joint_command() = client::MakeJointCommand({.position = q,
                                                               .velocity = dq,
                                                               .torque = tau,
                                                               .kp = kp,
                                                               .kd = kd,
                                                               .end_time_us = 1'000'000'000'000,
                                                               .user_command_key = 7,
                                                               .velocity_safety_limit = 6.0f});
  message.mutable_joint_command()->set_sequence(kFirstSequence);
  message.mutable_joint_command()->set_timestamp_us(kWallBaseUs);
  std::string bytes;
  if (!proto::AppendDelimited(message, &bytes)) throw std::runtime_error("command over 64 KiB");
  return bytes;
}

FreshCommand::FreshCommand(std::string bytes, bool joint)
    : bytes_(std::move(bytes)), sequence_(kFirstSequence) {
  const auto find = [&](char tag, std::uint64_t value) {
    const std::size_t at = bytes_.find(tag + Varint(value));
    if (at == std::string::npos) throw std::runtime_error("FreshCommand: placeholder not found");
    return at + 1;
  };
  // CloudCommand: timestamp_us = 1, sequence = 2; JointCommand: sequence = 1, timestamp_us = 2.
  timestamp_at_ = find(joint ? 0x10 : 0x08, kWallBaseUs);
  sequence_at_ = find(joint ? 0x08 : 0x10, kFirstSequence);
}

std::span<const std::uint8_t> FreshCommand::Next(std::int64_t now_us) {
  WriteVarint(++sequence_, 5, bytes_.data() + sequence_at_);
  WriteVarint(kWallBaseUs + static_cast<std::uint64_t>(now_us), 8, bytes_.data() + timestamp_at_);
  return std::span(reinterpret_cast<const std::uint8_t*>(bytes_.data()), bytes_.size());
}

// ---- CommandPath ----

CommandPath::CommandPath(const config::Config& config)
    : channels_(config, /*command_slots=*/32, /*event_capacity=*/16),  // as daemon.cpp
      intake_(config, &channels_, [this] { return wall_us_; }) {}

bool CommandPath::Handle(std::span<const std::uint8_t> bytes, std::int64_t now_us) {
  wall_us_ = static_cast<std::int64_t>(kWallBaseUs) + now_us;  // the clocks agree
  bool accepted = true;
  const auto status = reader_.Feed(bytes, [&](const edge::ClientMessage& message) {
    daemon::CommandIntake::Outcome outcome;
    if (message.msg_case() == edge::ClientMessage::kCommand) {
      outcome = intake_.Submit(client_, message.command(), now_us);
    } else if (message.msg_case() == edge::ClientMessage::kJointCommand) {
      outcome = intake_.Submit(client_, message.joint_command(), now_us);
    } else {
      return accepted = false;
    }
    accepted &= outcome.kind == daemon::CommandIntake::Outcome::Kind::kQueued;
    // The control thread's side: take it and give the slot back.
    while (daemon::CommandSlot* received = channels_.commands.Receive()) {
      channels_.commands.Release(received);
    }
    return true;
  });
  return accepted && status == daemon::MessageReader::Status::kOk;
}

// ---- Rows ----

void WriteRows(const std::string& path, const std::vector<Row>& rows) {
  std::ofstream out(path, std::ios::app);
  if (!out) throw std::runtime_error("cannot write " + path);
  for (const Row& r : rows) {
    out << r.section << '\t' << r.figure << '\t' << r.value << '\t' << r.budget << '\t' << r.unit
        << '\t' << r.verdict << '\t' << r.source << '\t' << r.note << '\n';
  }
}

namespace {

std::vector<std::size_t> MotorsPerBus(const config::Config& c) {
  std::vector<std::size_t> motors(c.buses.size(), 0);
  for (const auto& j : c.joints) ++motors[j.bus];
  return motors;
}

// The bus with the most motors.
std::size_t BusiestBus(const std::vector<std::size_t>& motors) {
  return static_cast<std::size_t>(std::max_element(motors.begin(), motors.end()) - motors.begin());
}

double Bitrate(const config::Config& c, std::size_t bus) {
  return c.buses[bus].bitrate > 0 ? c.buses[bus].bitrate : 1e6;
}

}  // namespace

double CanRateBoundHz(const config::Config& c, double frame_bits) {
  const std::vector<std::size_t> motors = MotorsPerBus(c);
  const std::size_t busiest = BusiestBus(motors);
  return Bitrate(c, busiest) / (2 * frame_bits * static_cast<double>(motors[busiest]));
}

std::vector<Row> CanLimitRows(const config::Config& c) {
  const std::vector<std::size_t> motors = MotorsPerBus(c);
  const std::size_t busiest = BusiestBus(motors);
  const double m = static_cast<double>(motors[busiest]);
  const double bitrate = Bitrate(c, busiest);
  const double rate = c.control.rate_hz;
  const double bound_nominal = CanRateBoundHz(c, kCanFrameBitsNominal);
  const double bound_worst = CanRateBoundHz(c, kCanFrameBitsWorst);
  const std::string bus = c.buses[busiest].name + " (" + c.buses[busiest].interface + ")";
  std::vector<Row> rows;
  const std::string section = "CAN limit (classical CAN, " + Format(bitrate / 1e6, 0) + " Mbit/s)";
  rows.push_back(
      {section, "motors on the busiest bus", Format(m, 0), "", "motors", "", "config", bus});
  rows.push_back({section, "rate bound, nominal: bitrate / (2 x 111 bits x motors)",
                  Format(bound_nominal, 0), "", "Hz", "", "config",
                  "a command + a reply per motor"});
  rows.push_back({section, "rate bound, worst-case stuffing: bitrate / (2 x 135 bits x motors)",
                  Format(bound_worst, 0), "", "Hz", "", "config", "741 Hz for 5 motors per bus"});
  rows.push_back({section, "configured control rate", Format(rate, 0),
                  "≤ " + Format(bound_worst, 0), "Hz", Verdict(rate, bound_worst), "config",
                  Format(100 * rate / bound_worst, 0) + " % of the worst-case bound"});
  for (std::size_t b = 0; b < c.buses.size(); ++b) {
    double frames = rate * 2.0 * static_cast<double>(motors[b]);
    std::string what = std::to_string(motors[b]) + " motors";
    if (b == c.imu.bus) {  // two IMU frames (8 and 6 bytes, counted as 8) at the sim's rate
      frames += 2 * c.sim.imu_rate_hz;
      what += " + IMU at " + Format(c.sim.imu_rate_hz, 0) + " Hz";
    }
    const double worst = frames * kCanFrameBitsWorst / bitrate;
    rows.push_back({section, "configured load " + c.buses[b].interface + ", nominal / worst case",
                    Format(100 * frames * kCanFrameBitsNominal / bitrate, 1), "≤ 100", "%",
                    Verdict(worst, 1.0), "config",
                    what + "; worst " + Format(100 * worst, 1) + " %"});
  }
  return rows;
}

std::string Format(double value, int decimals) {
  if (!std::isfinite(value)) return "n/a";
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  return buffer;
}

std::string Verdict(double value, double budget) { return value <= budget ? "ok" : "MISS"; }

}  // namespace robot_edge::bench
