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
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>

#include <cstdio>
#include <set>
#include <string>

#include "edge_cloud.pb.h"
#include "recorder/mcap_writer.hpp"

namespace {

using robot_edge::recorder::Compression;
using robot_edge::recorder::FileSink;
using robot_edge::recorder::McapWriter;
using robot_edge::recorder::McapWriterOptions;

constexpr std::uint64_t kT0 = 1'700'000'000'000'000'000ull;
constexpr std::uint64_t kTick = 2'000'000;  // ns: 500 Hz
constexpr std::uint32_t kTicks = 10'000;
constexpr int kJoints = 25;

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
  const std::string imu_schema =
      R"({"type":"object","properties":{"seq":{"type":"integer"},"gyro_mrad_s":{"type":"array"}}})";
  const std::uint16_t imu_schema_id = w.AddSchema("Imu", "jsonschema", AsBytes(imu_schema));
  const std::uint16_t telemetry = w.AddChannel(telemetry_schema, "/telemetry", "protobuf");
  const std::uint16_t imu = w.AddChannel(imu_schema_id, "/imu", "json", {{"frame_id", "base"}});
  const std::uint16_t log = w.AddChannel(0, "/log", "json");
  bool ok = true;
  for (std::uint32_t i = 0; i < kTicks && ok; ++i) {
    const std::uint64_t t = kT0 + i * kTick;
    ok = w.Write(telemetry, i, t, t - 100'000, AsBytes(Telemetry(i, t)));
    const std::string imu_json = "{\"seq\":" + std::to_string(i) + ",\"gyro_mrad_s\":[" +
                                 std::to_string(i % 7) + "," + std::to_string(-int(i % 5)) + ",3]}";
    ok = ok && w.Write(imu, i, t + 500'000, t + 500'000, AsBytes(imu_json));
    if (i % 50 == 0) {
      const std::string text = R"({"level":"info","text":"tick )" + std::to_string(i) + "\"}";
      ok = ok && w.Write(log, i / 50, t + 1'000'000, t + 1'000'000, AsBytes(text));
    }
  }
  ok = ok && w.Close() && sink.Close();
  if (!ok) std::fprintf(stderr, "mcap_sample: %s: %s\n", path.c_str(), w.error().c_str());
  std::printf("mcap_sample: %s: %llu messages, %u chunks, %llu bytes\n", path.c_str(),
              static_cast<unsigned long long>(w.message_count()), w.chunk_count(),
              static_cast<unsigned long long>(w.bytes_written()));
  return ok;
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
                  WriteSample(dir + "/sample_none.mcap", Compression::kNone);
  return ok ? 0 : 1;
}
