// mcap_sample OUT_DIR: writes sample_{zstd,lz4,none}.mcap for tests/js/mcap_check.mjs, which reads
// them with @mcap/core's McapIndexedReader (an independent implementation) and recomputes every
// payload. The pattern below is duplicated there: change both together.
//
//   20 s at 500 Hz from T0 = 1.7e18 ns, tick i at T0 + i * 2 ms, chunks of 64 KiB:
//   /telemetry  protobuf edge.EdgeTelemetry (schema: a serialized FileDescriptorSet), each tick:
//               log T0+2ms*i, publish log-100us, sequence i, timestamp_us = log/1000,
//               joint_pos[j] = j + (i%64)/64, joint_vel[j] = i%8 - j, joint_temp[j] = 30+j (25
//               joints), imu_quat = [1, 0, 0, 0]
//   /imu        json (jsonschema), each tick: log = publish = T0+2ms*i+0.5ms, sequence i,
//               {"seq":i,"gyro_mrad_s":[i%7,-(i%5),3]}
//   /log        json (no schema), every 50th tick: log = publish = T0+2ms*i+1ms, sequence i/50,
//               {"level":"info","text":"tick i"}
//   Metadata "robot": name sample-h1, daemon_version 0.1.0, config_digest sha256:00
//
// and sample_blackbox_20231114-221334.000_FALL_DETECTED.mcap: the same stream through a BlackBox
// (pre 10 s, post 2 s, chunks of 64 KiB) triggered "FALL_DETECTED" at tick 7000 (T0 + 14 s),
// Polled after every tick: the messages of [T0 + 4 s, T0 + 16 s], publish = log time, metadata
// "robot" (name sample-h1) then "blackbox". /imu has no channel metadata there.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>

#include <cstdio>
#include <optional>
#include <set>
#include <string>

#include "edge_cloud.pb.h"
#include "recorder/black_box.hpp"
#include "recorder/file_system.hpp"
#include "recorder/mcap_writer.hpp"

namespace {

using robot_edge::recorder::BlackBox;
using robot_edge::recorder::BlackBoxOptions;
using robot_edge::recorder::Compression;
using robot_edge::recorder::FileSink;
using robot_edge::recorder::McapWriter;
using robot_edge::recorder::McapWriterOptions;

constexpr std::uint64_t kT0 = 1'700'000'000'000'000'000ull;
constexpr std::uint64_t kTick = 2'000'000;  // ns: 500 Hz
constexpr std::uint32_t kTicks = 10'000;
constexpr int kJoints = 25;
const std::string kImuSchema =
    R"({"type":"object","properties":{"seq":{"type":"integer"},"gyro_mrad_s":{"type":"array"}}})";

// `file` and every file it imports, dependencies first (as protoc --include_imports writes).
void AddWithImports(const google::protobuf::FileDescriptor* file, std::set<std::string>* seen,
                    google::protobuf::FileDescriptorSet* set) {
  if (!seen->insert(file->name()).second) return;
  for (int i = 0; i < file->dependency_count(); ++i) AddWithImports(file->dependency(i), seen, set);
  file->CopyTo(set->add_file());
}

std::string TelemetrySchema() {
  google::protobuf::FileDescriptorSet set;
  std::set<std::string> seen;
  AddWithImports(edge::EdgeTelemetry::descriptor()->file(), &seen, &set);
  return set.SerializeAsString();
}

std::span<const std::uint8_t> AsBytes(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

std::string Telemetry(std::uint32_t i, std::uint64_t log_ns) {
  edge::EdgeTelemetry t;
  t.set_timestamp_us(log_ns / 1000);
  t.set_sequence(i);
  for (int j = 0; j < kJoints; ++j) {
    t.add_joint_pos(static_cast<float>(j) + static_cast<float>(i % 64) / 64.0f);
    t.add_joint_vel(static_cast<float>(static_cast<int>(i % 8) - j));
    t.add_joint_temp(30.0f + static_cast<float>(j));
  }
  for (float q : {1.0f, 0.0f, 0.0f, 0.0f}) t.add_imu_quat(q);
  return t.SerializeAsString();
}

std::string ImuJson(std::uint32_t i) {
  return "{\"seq\":" + std::to_string(i) + ",\"gyro_mrad_s\":[" + std::to_string(i % 7) + "," +
         std::to_string(-int(i % 5)) + ",3]}";
}

std::string LogText(std::uint32_t i) {
  return R"({"level":"info","text":"tick )" + std::to_string(i) + "\"}";
}

bool WriteSample(const std::string& path, Compression compression) {
  FileSink sink;
  if (!sink.Open(path)) {
    std::fprintf(stderr, "mcap_sample: %s\n", sink.error().c_str());
    return false;
  }
  McapWriterOptions options;
  options.compression = compression;
  options.chunk_size = 64 * 1024;
  McapWriter w(sink, options);
  w.AddMetadata(
      "robot",
      {{"name", "sample-h1"}, {"daemon_version", "0.1.0"}, {"config_digest", "sha256:00"}});
  const std::string schema = TelemetrySchema();
  const std::uint16_t telemetry_schema =
      w.AddSchema(edge::EdgeTelemetry::descriptor()->full_name(), "protobuf", AsBytes(schema));
  const std::uint16_t imu_schema_id = w.AddSchema("Imu", "jsonschema", AsBytes(kImuSchema));
  const std::uint16_t telemetry = w.AddChannel(telemetry_schema, "/telemetry", "protobuf");
  const std::uint16_t imu = w.AddChannel(imu_schema_id, "/imu", "json", {{"frame_id", "base"}});
  const std::uint16_t log = w.AddChannel(0, "/log", "json");
  bool ok = true;
  for (std::uint32_t i = 0; i < kTicks && ok; ++i) {
    const std::uint64_t t = kT0 + i * kTick;
    ok = w.Write(telemetry, i, t, t - 100'000, AsBytes(Telemetry(i, t)));
    ok = ok && w.Write(imu, i, t + 500'000, t + 500'000, AsBytes(ImuJson(i)));
    if (i % 50 == 0) {
      ok = ok && w.Write(log, i / 50, t + 1'000'000, t + 1'000'000, AsBytes(LogText(i)));
    }
  }
  ok = ok && w.Close() && sink.Close();
  if (!ok) std::fprintf(stderr, "mcap_sample: %s: %s\n", path.c_str(), w.error().c_str());
  std::printf("mcap_sample: %s: %llu messages, %u chunks, %llu bytes\n", path.c_str(),
              static_cast<unsigned long long>(w.message_count()), w.chunk_count(),
              static_cast<unsigned long long>(w.bytes_written()));
  return ok;
}

bool WriteBlackBox(const std::string& dir) {
  BlackBoxOptions o;
  o.directory = dir;
  o.prefix = "sample_blackbox";
  o.pre_ns = 10'000'000'000;
  o.post_ns = 2'000'000'000;
  o.mcap.chunk_size = 64 * 1024;
  o.metadata = {{"robot", {{"name", "sample-h1"}}}};
  robot_edge::recorder::PosixFileSystem fs;
  BlackBox box(o,
               {{"/telemetry", edge::EdgeTelemetry::descriptor()->full_name(), "protobuf",
                 TelemetrySchema(), "protobuf"},
                {"/imu", "Imu", "jsonschema", kImuSchema, "json"},
                {"/log", "", "", "", "json"}},
               fs);
  std::optional<robot_edge::recorder::DumpResult> result;
  for (std::uint32_t i = 0; i < kTicks; ++i) {
    const std::uint64_t t = kT0 + i * kTick;
    box.Add(0, t, AsBytes(Telemetry(i, t)));
    box.Add(1, t + 500'000, AsBytes(ImuJson(i)));
    if (i % 50 == 0) box.Add(2, t + 1'000'000, AsBytes(LogText(i)));
    if (i == 7000) box.Trigger(t, "FALL_DETECTED");
    if (auto r = box.Poll(t)) result = std::move(r);
  }
  while (!result && box.dumping()) result = box.Poll(kT0 + kTicks * kTick);
  if (!result || !result->ok) {
    std::fprintf(stderr, "mcap_sample: black box: %s\n",
                 result ? result->error.c_str() : "no dump");
    return false;
  }
  std::printf("mcap_sample: %s: %llu messages, %llu bytes\n", result->path.c_str(),
              static_cast<unsigned long long>(result->messages),
              static_cast<unsigned long long>(result->bytes));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: mcap_sample OUT_DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  const bool ok = WriteSample(dir + "/sample_zstd.mcap", Compression::kZstd) &&
                  WriteSample(dir + "/sample_lz4.mcap", Compression::kLz4) &&
                  WriteSample(dir + "/sample_none.mcap", Compression::kNone) && WriteBlackBox(dir);
  return ok ? 0 : 1;
}
