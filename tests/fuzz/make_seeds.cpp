// Writes the fuzz targets' seed corpora (tests/fuzz/corpus/<target>/) from the messages, frames
// and files the tests use, so that each fuzzer starts from inputs that go deep:
//   fuzz_make_seeds OUT_DIR
// The corpora are checked in; rerun this when an input format changes (scripts/fuzz --seeds).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "can/bms_codec.hpp"
#include "can/damiao_codec.hpp"
#include "can/imu_codec.hpp"
#include "can/mit_codec.hpp"
#include "can/motor_scheduler.hpp"
#include "can/robstride_codec.hpp"
#include "client/commands.hpp"
#include "config/config.hpp"
#include "edge_api.pb.h"
#include "proto/framing.hpp"
#include "recorder/mcap_writer.hpp"

namespace {

using namespace robot_edge;
namespace fs = std::filesystem;

void Write(const fs::path& dir, const std::string& name, const std::string& bytes) {
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary) << bytes;
}

std::string Framed(const edge::ClientMessage& m) {
  std::string out;
  proto::AppendDelimited(m, &out);
  return out;
}

std::string Hello(const std::string& role) {
  edge::ClientMessage m;
  m.mutable_hello()->set_controller(role);
  m.mutable_hello()->set_want_command_results(true);
  return Framed(m);
}

std::string CommandBytes(edge::CloudCommand c, std::uint32_t sequence) {
  c.set_sequence(sequence);
  c.set_timestamp_us(1'800'000'000'000'000ull + 20'000ull * sequence);
  edge::ClientMessage m;
  *m.mutable_command() = c;
  return Framed(m);
}

// A JointCommand framed as the fuzz target's n-th message would be: its end_time just ahead of
// the target's clock (1 s + 2 ms a message).
std::string JointBytes(edge::JointCommand c, std::uint32_t sequence, std::uint32_t message) {
  c.set_sequence(sequence);
  c.set_timestamp_us(1'800'000'000'000'000ull + 20'000ull * sequence);
  c.set_end_time_us(1'000'000 + 2'000 * static_cast<std::int64_t>(message) + 50'000);
  edge::ClientMessage m;
  *m.mutable_joint_command() = c;
  return Framed(m);
}

void ApiSeeds(const config::Config& c, const fs::path& dir) {
  std::vector<float> pose, kp, kd;
  for (const auto& j : c.joints) {
    pose.push_back(static_cast<float>(j.stand_rad));
    kp.push_back(static_cast<float>(j.kp));
    kd.push_back(static_cast<float>(j.kd));
  }
  const auto stand = client::MakeMode(edge::MODE_STAND);
  const auto damp = client::MakeMode(edge::MODE_DAMP);
  Write(dir, "stand-walk-damp",
        Hello("cloud") + CommandBytes(stand, 1) +
            CommandBytes(client::MakeVelocity(0.3f, 0, 0.1f), 2) + CommandBytes(damp, 3));
  std::string stream = Hello("cloud");
  for (std::uint32_t s = 1; s <= 6; ++s) {
    stream += CommandBytes(
        s % 2 ? client::MakeTrajectory(pose, kp, kd) : client::MakeTrajectory(pose), s);
  }
  Write(dir, "trajectory-stream", stream);
  std::vector<std::vector<float>> segments(8, pose);
  Write(dir, "trajectory-segments",
        Hello("ble") + CommandBytes(client::MakeTrajectory(segments), 1));
  Write(dir, "replay",
        Hello("cloud") + CommandBytes(stand, 5) + CommandBytes(stand, 5) + CommandBytes(stand, 4));
  Write(dir, "observer-damp", Hello("") + CommandBytes(damp, 1) + CommandBytes(stand, 2));

  std::vector<float> velocity(pose.size(), 0.3f), torque(pose.size(), -0.5f);
  std::string joint = Hello("cloud");
  for (std::uint32_t s = 1; s <= 8; ++s) {
    client::JointCommandFields f{.position = pose, .velocity = velocity, .torque = torque};
    if (s == 1) {
      f.kp = kp;
      f.kd = kd;
    }
    f.end_time_us = 1;  // set by JointBytes
    f.reference_time_us = 1'000'000 + 2'000 * s;
    f.extrapolation_duration_us = 10'000;
    f.user_command_key = s;
    f.velocity_safety_limit = s == 8 ? 0.01f : 5.0f;
    joint += JointBytes(client::MakeJointCommand(f), s, s);
  }
  Write(dir, "joint-stream", joint);
  edge::ClientMessage sync;
  sync.mutable_time_sync()->set_request_id(1);
  sync.mutable_time_sync()->set_client_send_us(42);
  client::JointCommandFields no_gains{.position = pose, .end_time_us = 1};
  client::JointCommandFields gains{.position = pose, .kp = kp, .kd = kd, .end_time_us = 1};
  Write(dir, "joint-stream-mixed",
        Hello("cloud") + Framed(sync) + JointBytes(client::MakeJointCommand(no_gains), 1, 2) +
            CommandBytes(stand, 2) + JointBytes(client::MakeJointCommand(gains), 3, 4) +
            CommandBytes(client::MakeTrajectory(pose), 4) + CommandBytes(damp, 5) +
            JointBytes(client::MakeJointCommand(gains), 6, 7));
}

std::string Frame(std::uint8_t bus, std::uint32_t id, const std::uint8_t* data, std::uint8_t len) {
  std::string f(12, '\0');
  f[0] = static_cast<char>(bus);
  f[1] = static_cast<char>(id >> 8);
  f[2] = static_cast<char>(id & 0xFF);
  f[3] = static_cast<char>(len);
  for (std::uint8_t i = 0; i < len && i < 8; ++i) f[4 + i] = static_cast<char>(data[i]);
  return f;
}

void CanSeeds(const config::Config& c, const fs::path& dir) {
  std::string healthy;
  std::string first_tick;
  for (int tick = 0; tick < 4; ++tick) {
    for (std::size_t j = 0; j < c.joints.size(); ++j) {
      const auto& joint = c.joints[j];
      can::MitReply reply{static_cast<std::uint8_t>(joint.can_id),
                          static_cast<float>(joint.stand_rad),
                          0.1f,
                          0.5f,
                          static_cast<std::uint8_t>(tick == 3 && j == 3 ? 85 : 35),
                          static_cast<std::uint8_t>(tick == 2 && j == 9 ? 2 : 0)};
      can::Payload p;
      const auto len = can::EncodeReply(reply, can::ProtocolOf(c.motor_of(j)).ranges,
                                        can::ProtocolOf(c.motor_of(j)).layout, &p);
      healthy +=
          Frame(static_cast<std::uint8_t>(joint.bus), c.buses[joint.bus].master_id, p.data(), len);
    }
    const auto q = can::EncodeImuQuaternion({0.99f, 0.0f, 0.1f, 0.0f});
    healthy += Frame(static_cast<std::uint8_t>(c.imu.bus), c.imu.quat_id, q.data(), 8);
    const auto g = can::EncodeImuGyro({0.01f, -0.02f, 0.3f});
    healthy += Frame(static_cast<std::uint8_t>(c.imu.bus), c.imu.gyro_id, g.data(), 6);
    if (c.imu.accel_id != 0) {
      const auto a = can::EncodeImuAccel({0.3f, -0.1f, 9.7f});
      healthy += Frame(static_cast<std::uint8_t>(c.imu.bus), c.imu.accel_id, a.data(), 6);
    }
    if (c.battery.source == config::BatteryConfig::Source::kCan) {  // 80 %, then low at tick 3
      const auto b = can::EncodeBms({47.5f, 6.2f, tick == 3 ? 18.0f : 80.0f, 31.0f, 1});
      healthy += Frame(static_cast<std::uint8_t>(c.battery.bus), c.battery.can_id, b.data(), 8);
    }
    healthy += '\xFF';  // the tick runs,
    healthy += '\x00';  // one period later
    if (tick == 0) first_tick = healthy;
  }
  Write(dir, "replies-imu-overtemp-fault", healthy);
  // One tick of replies, then the buses fall silent for 62 ms and 130 ms: MOTOR_TIMEOUT, IMU loss.
  Write(dir, "replies-then-silence", first_tick + "\xFF\x1E" + "\xFF\x40");
  // fuzz_can_receive's mixed joints in their own families: L_Hip_Roll (Damiao, id 2) enabled with
  // MOS 40 °C and rotor 90 °C, then L_Knee (Robstride, id 4) in run mode, overtemperature bit.
  std::string mixed = first_tick;
  can::damiao::Feedback dm{2, 1, 0.1f, 0.0f, 0.5f, 40, 90};
  const can::Payload d = can::damiao::EncodeFeedback(dm, can::ProtocolOf(c.motor_of(1)).ranges);
  mixed += Frame(0, c.buses[0].master_id, d.data(), 8);
  can::robstride::Feedback rs{4, 0, 0x04, 2, 0.3f, 0.0f, 1.0f, 50.0f};
  const can_frame r = can::robstride::EncodeFeedback(rs, can::ProtocolOf(c.motor_of(3)).ranges);
  std::string f(12, '\0');  // the 29-bit frame as fuzz_can_receive reads it: type 2, area 2
  f[0] = 0;
  f[1] = static_cast<char>((r.can_id >> 16) & 0xFF);
  f[2] = static_cast<char>((r.can_id >> 8) & 0xFF);
  f[3] = static_cast<char>(8 | 0x10 | (((r.can_id >> 24) & 0x7) << 5));
  for (int i = 0; i < 8; ++i) f[4 + i] = static_cast<char>(r.data[i]);
  mixed += f + "\xFF\x00";
  Write(dir, "mixed-families", mixed);
  // The BMS: charging at 15 %, then frames it must refuse (a state of charge of 150, status 9, six
  // bytes), then unknown charge and temperature.
  std::string bms = first_tick;
  const auto bus = static_cast<std::uint8_t>(c.battery.bus);
  can::Payload b = can::EncodeBms({50.1f, -4.0f, 15.0f, 28.0f, 2});
  bms += Frame(bus, c.battery.can_id, b.data(), 8) + "\xFF\x00";
  b[4] = 150;
  bms += Frame(bus, c.battery.can_id, b.data(), 8);
  b = can::EncodeBms({50.1f, -4.0f, 15.0f, 28.0f, 9});
  bms += Frame(bus, c.battery.can_id, b.data(), 8);
  bms += Frame(bus, c.battery.can_id, b.data(), 6) + "\xFF\x00";
  b = can::EncodeBms({46.0f, 3.0f, NAN, NAN, 0});
  bms += Frame(bus, c.battery.can_id, b.data(), 8) + "\xFF\x00";
  Write(dir, "bms-charging-garbled-unknown", bms);
}

void SimSeeds(const config::Config& c, const fs::path& dir) {
  std::string lines =
      "temp L_Knee 81\nsilence R_Knee on\nfault L_Elbow 2\ntilt 10 -20\nimu off\n"
      "battery 15\nbattery off\nbattery on\n"
      "get Neck_Yaw\nstatus\nhelp\ntemp L_Knee release\n\n";
  const auto enter = can::EncodeSpecial(can::SpecialCommand::kEnterMotorMode);
  for (std::size_t j = 0; j < c.joints.size(); ++j) {
    lines += static_cast<char>(c.joints[j].bus);
    lines += static_cast<char>(c.joints[j].can_id);
    lines += '\x08';
    lines.append(reinterpret_cast<const char*>(enter.data()), 8);
    const auto cmd =
        can::EncodeCommand({0.2f, 0.0f, 60.0f, 2.0f, 0.5f}, can::ProtocolOf(c.motor_of(j)).ranges);
    lines += static_cast<char>(c.joints[j].bus);
    lines += static_cast<char>(c.joints[j].can_id);
    lines += '\x08';
    lines.append(reinterpret_cast<const char*>(cmd.data()), 8);
  }
  Write(dir, "control-then-frames", lines);
}

// Small recordings for the reader (whole, and cut inside a chunk) and writer programs (any bytes
// that do not start with the MCAP magic: fuzz_mcap decodes them as calls to McapWriter).
void McapSeeds(const fs::path& dir) {
  using recorder::Compression;
  for (const auto& [name, compression] : {std::pair{"tiny-none.mcap", Compression::kNone},
                                          std::pair{"tiny-zstd.mcap", Compression::kZstd},
                                          std::pair{"tiny-lz4.mcap", Compression::kLz4}}) {
    recorder::MemorySink sink;
    recorder::McapWriterOptions o;
    o.compression = compression;
    o.chunk_size = 256;
    recorder::McapWriter w(sink, o);
    const std::string schema = R"({"type":"object"})";
    const std::uint16_t s =
        w.AddSchema("Joint", "jsonschema",
                    {reinterpret_cast<const std::uint8_t*>(schema.data()), schema.size()});
    const std::uint16_t a = w.AddChannel(s, "/joints", "json", {{"rate_hz", "500"}});
    const std::uint16_t b = w.AddChannel(0, "/log", "json");
    w.AddMetadata("robot", {{"name", "h1"}});
    for (std::uint32_t i = 0; i < 24; ++i) {
      const std::string text = "{\"q\":" + std::to_string(i * 3) + "}";
      w.Write(i % 4 ? a : b, i, 1000 * i, 1000 * i,
              {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
    }
    w.Close();
    const std::string bytes(sink.bytes().begin(), sink.bytes().end());
    Write(dir, name, bytes);
    if (compression == Compression::kZstd) Write(dir, "cut-zstd.mcap", bytes.substr(0, 300));
  }
  std::string program;
  for (int i = 0; i < 256; ++i) program += static_cast<char>(i * 37 + 11);
  Write(dir, "writer-program", program);
  Write(dir, "writer-program-short", program.substr(0, 40));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_make_seeds OUT_DIR\n");
    return 2;
  }
  const config::Config c = config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  const fs::path out = argv[1];
  ApiSeeds(c, out / "fuzz_api_session");
  CanSeeds(c, out / "fuzz_can_receive");
  SimSeeds(c, out / "fuzz_sim_control");
  McapSeeds(out / "fuzz_mcap");
  for (const char* file :
       {"robot-edge.yaml", "examples/hardware.yaml", "examples/sim-with-policy.yaml"}) {
    std::ifstream in(std::string(ROBOT_EDGE_CONFIG_DIR) + "/" + file);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    Write(out / "fuzz_config", fs::path(file).filename().string(), text);
  }
  std::printf("seeds written to %s\n", out.c_str());
  return 0;
}
