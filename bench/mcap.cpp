// The flight recorder's write path (recorder/McapWriter), Google Benchmark, no system calls in
// the measured code (the sink discards the bytes):
//
//   McapWrite/zstd3   one 1.1 KB message (a 25-joint state: position, velocity, torque,
//                     temperature and a few scalars as doubles) into 1 MiB chunks compressed with
//                     zstd level 3, amortised over the chunk closes
//   McapWrite/lz4     the same with LZ4 (frame format, fast level)
//   McapWrite/none    the same uncompressed (copy, index, CRC)
//
// Time per iteration = per message; bytes/s counts message payload bytes; `ratio` is file bytes
// over payload bytes. Not part of bench/run's table: run it by hand (bench_mcap).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "recorder/mcap_writer.hpp"

namespace {

using robot_edge::recorder::ByteSink;
using robot_edge::recorder::Compression;
using robot_edge::recorder::McapWriter;
using robot_edge::recorder::McapWriterOptions;

constexpr std::size_t kMessageBytes = 1100;
constexpr int kJoints = 25;

class NullSink final : public ByteSink {
 public:
  bool Write(std::span<const std::uint8_t> bytes) override {
    bytes_ += bytes.size();
    return true;
  }
  const std::string& error() const override { return error_; }
  std::uint64_t bytes() const { return bytes_; }

 private:
  std::uint64_t bytes_ = 0;
  std::string error_;
};

// 1000 successive states of a robot moving smoothly, with sensor noise in the low bits.
std::vector<std::vector<std::uint8_t>> States() {
  std::vector<std::vector<std::uint8_t>> states;
  std::uint32_t noise = 1;
  for (int tick = 0; tick < 1000; ++tick) {
    std::vector<double> v;
    const double t = tick * 0.002;
    v.push_back(t);
    for (int j = 0; j < kJoints; ++j) {
      auto n = [&noise] { return ((noise = noise * 1664525u + 1013904223u) >> 20) * 1e-7; };
      v.push_back(0.5 * std::sin(t * 2.0 + j) + n());        // rad
      v.push_back(1.0 * std::cos(t * 2.0 + j) + n());        // rad/s
      v.push_back(3.0 * std::sin(t * 5.0 + 0.3 * j) + n());  // N·m
      v.push_back(35.0 + 0.01 * j + n());                    // °C
    }
    std::vector<std::uint8_t> bytes(kMessageBytes, 0);
    std::memcpy(bytes.data(), v.data(), std::min(kMessageBytes, v.size() * sizeof(double)));
    states.push_back(std::move(bytes));
  }
  return states;
}

void McapWrite(benchmark::State& state, Compression compression) {
  static const std::vector<std::vector<std::uint8_t>> states = States();
  NullSink sink;
  McapWriterOptions options;
  options.compression = compression;
  options.zstd_level = 3;
  McapWriter writer(sink, options);
  const std::uint16_t channel = writer.AddChannel(0, "/joints", "protobuf");
  std::uint32_t i = 0;
  for (auto _ : state) {
    const std::uint64_t t = 1'700'000'000'000'000'000ull + i * 2'000'000ull;
    if (!writer.Write(channel, i, t, t, states[i % states.size()])) state.SkipWithError("write");
    ++i;
  }
  writer.Close();
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kMessageBytes));
  state.counters["ratio"] =
      static_cast<double>(sink.bytes()) / static_cast<double>(state.iterations() * kMessageBytes);
}

BENCHMARK_CAPTURE(McapWrite, zstd3, Compression::kZstd)->MinTime(2.0);
BENCHMARK_CAPTURE(McapWrite, lz4, Compression::kLz4)->MinTime(2.0);
BENCHMARK_CAPTURE(McapWrite, none, Compression::kNone)->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
