// What the micro benchmarks, the allocation count and the callgrind driver share: configs of any
// joint count, a robot behind a FakeTransport that answers every motor each tick, the daemon's
// command path from socket bytes to the control thread's queue, and one result row of the table.
//
// Everything here runs on one thread and calls the project's real code; the only stand-ins are
// the transport (FakeTransport: no system calls) and the session's socket (bytes are handed in).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "can/fake_transport.hpp"
#include "config/config.hpp"
#include "daemon/api/command_intake.hpp"
#include "daemon/api/message_reader.hpp"
#include "daemon/control/control_loop.hpp"
#include "edge_api.pb.h"
#include "sim/canned_replies.hpp"

namespace robot_edge::bench {

inline constexpr std::int64_t kPeriodUs = 2000;  // 500 Hz

// The default configuration (config/robot-edge.yaml, 25 joints on 5 buses).
const config::Config& DefaultConfig();

// A configuration of `joints` joints generated from the default one: joint j copies the default
// joint j % 25 (limits, gains, stand pose) under a unique name; buses hold 5 motors each (at most
// 16 buses, config::kMaxBuses, so 100 joints are 16 buses of 6 or 7). Validated like a file;
// throws config::ConfigError if a rule is broken.
config::Config GeneratedConfig(std::size_t joints);

// A robot that answers from the robot double's canned mode (sim::CannedReplies): before each
// tick, Answer() forgets the frames sent and queues one reply per motor (its stand pose, 30 °C,
// no error) and the IMU's two frames. The replies are encoded once, so a tick's cost is not mixed
// with the robot's (bench_sim measures the simulated robot's own).
class AnsweringRobot {
 public:
  explicit AnsweringRobot(const config::Config& config);
  can::FakeTransport& transport() { return transport_; }
  void Answer();
  // Makes motor `joint` report `celsius` from now on (to raise and clear alerts).
  void SetTemperature(std::size_t joint, std::uint8_t celsius) {
    replies_.SetTemperature(joint, celsius);
  }

 private:
  can::FakeTransport transport_;
  sim::CannedReplies replies_;
};

// The control thread's objects, driven by hand: the loop ticks every 2 ms of a fake clock.
class LoopRig {
 public:
  explicit LoopRig(const config::Config& config);
  // One tick at the next 2 ms step, the robot having answered the previous one. The events the
  // tick queued are taken off (the API thread's job).
  void Tick();
  // Ticks until STAND's 2 s ramp is over (steady STAND).
  void Stand();
  // Queues `command` (kind kTrajectory uses the slot's trajectory as filled by `fill`).
  daemon::CommandSlot* AcquireSlot();
  void Send(daemon::CommandSlot* slot) { channels_.commands.Send(slot); }
  std::int64_t now_us() const { return now_us_; }
  AnsweringRobot& robot() { return robot_; }
  daemon::ControlChannels& channels() { return channels_; }
  const config::Config& config() const { return config_; }

 private:
  const config::Config& config_;
  AnsweringRobot robot_;
  daemon::ControlChannels channels_;
  daemon::ControlLoop loop_;
  std::int64_t now_us_ = 0;
};

// Segments of a trajectory: every joint at its stand pose, plus `offset_rad` on joint 0
// (clamped by the validator if it leaves the limits).
std::vector<std::vector<float>> StandSegments(const config::Config& config, std::size_t segments,
                                              float offset_rad = 0.0f);

// Most segments TrajectoryBytes() sends with kp and kd: 25 joints x 3 x 4 bytes per segment, so
// 256 segments (config max_segments) would be 77 KB, over the API's 64 KiB message limit.
inline constexpr std::size_t kMaxSegmentsWithGains = 128;

// A framed ClientMessage{command: TrajectoryRequest} as a session reads it from its socket:
// `segments` segments with positions and, up to kMaxSegmentsWithGains, explicit kp / kd (so the
// validator checks and clamps all three rows); longer ones carry positions only. Its sequence and
// timestamp are FreshCommand's placeholders.
std::string TrajectoryBytes(const config::Config& config, std::size_t segments);
// A framed ClientMessage{joint_command} of the joint stream: every field per joint (position,
// velocity, torque, kp, kd), an end time, a key and a velocity limit. FreshCommand's placeholders.
std::string JointCommandBytes(const config::Config& config);

// A framed command sent again and again as a new one: each Next() rewrites its sequence (+1) and
// timestamp_us (the wall clock of `now_us`) in place — same varint lengths, so the cost is a few
// bytes — and the daemon's freshness rules (no replays, no stale commands) accept it.
class FreshCommand {
 public:
  // From TrajectoryBytes(), or JointCommandBytes() with `joint` (its fields are numbered
  // differently).
  explicit FreshCommand(std::string bytes, bool joint = false);
  std::span<const std::uint8_t> Next(std::int64_t now_us);
  std::size_t size() const { return bytes_.size(); }

 private:
  std::string bytes_;
  std::size_t sequence_at_, timestamp_at_;  // offsets of the two varints
  std::uint32_t sequence_;
};

// The daemon's path of commands on the API thread, without the socket: bytes into the
// MessageReader (frame decoder, arena parse), then CommandIntake (controller arbiter, freshness,
// validation into a free CommandPipe slot, hand-off to the control thread's queue) — the code
// Session and Hub run. The control side only takes the slot back (Receive + Release) so that
// the pool never runs dry.
class CommandPath {
 public:
  explicit CommandPath(const config::Config& config);
  // Returns false if a command was dropped.
  bool Handle(std::span<const std::uint8_t> bytes, std::int64_t now_us);
  const sm::Counters& counters() const { return intake_.counters(); }

 private:
  daemon::ControlChannels channels_;
  std::int64_t wall_us_ = 0;  // robot-edged's wall clock, as FreshCommand stamps (its base + now)
  daemon::CommandIntake intake_;
  daemon::MessageReader reader_;
  const daemon::CommandIntake::Client client_{1, "cloud", true, ""};
};

// One row of the results table (bench/report.cpp reads these): tab-separated
//   section, figure, value, budget, unit, verdict, source, note
// verdict: "ok", "MISS", or "" (no budget). source: where the number comes from.
struct Row {
  std::string section, figure, value, budget, unit, verdict, source, note;
};
void WriteRows(const std::string& path, const std::vector<Row>& rows);

// The physical limit of classical CAN at the buses' bitrate: an 8-byte standard frame is 111 bits
// nominal, 135 with worst-case bit stuffing; a command and a reply per motor per tick bound the
// rate at bitrate / (2 x bits x motors on the busiest bus). Rows comparing the configured rate
// and load (the IMU's frames included) against it. Computed from the config, not measured.
std::vector<Row> CanLimitRows(const config::Config& config);
inline constexpr double kCanFrameBitsNominal = 111, kCanFrameBitsWorst = 135;
// That bound, Hz, for frames of `frame_bits`.
double CanRateBoundHz(const config::Config& config, double frame_bits);
std::string Format(double value, int decimals);
// "ok" when value <= budget, else "MISS".
std::string Verdict(double value, double budget);

}  // namespace robot_edge::bench
