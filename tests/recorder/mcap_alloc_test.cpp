// McapWriter::Write allocates nothing in steady state (the contract in mcap_writer.hpp): after
// the first chunks have grown its buffers, thousands of writes across many chunks, each closing,
// compressing and indexing its chunk, make no heap allocation. The model: ros2_control's
// test_rt_allocation.cpp. The plain build counts operator new; the sanitizer builds count every
// malloc too (zstd's and lz4's included), through the sanitizer's allocation hook.
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "allocation_counter.hpp"
#include "recorder/mcap_writer.hpp"

namespace robot_edge::recorder {
namespace {

using robot_edge::test::AllocationCounter;

// Counts the bytes and keeps none: a sink that does not allocate either.
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

// The counter itself works: otherwise "zero allocations" below would prove nothing.
TEST(RecorderAllocation, CounterSeesAnAllocation) {
  volatile std::size_t n = 100;
  std::size_t counted = 0;
  {
    AllocationCounter counter;
    std::vector<int> v;
    v.reserve(n);
    counted = counter.count();
  }
  EXPECT_GE(counted, 1u);
}

class SteadyState : public ::testing::TestWithParam<Compression> {};

// A 25-joint state (position, velocity, torque, temperature as doubles: 1.1 KB with a header)
// at 500 Hz with an IMU sample and a 50 Hz status on the side.
TEST_P(SteadyState, WriteDoesNotAllocate) {
  McapWriterOptions o;
  o.compression = GetParam();
  o.chunk_size = 64 * 1024;  // many chunks in a short test
  NullSink sink;
  McapWriter w(sink, o);
  const std::uint16_t joints = w.AddChannel(0, "/joints", "protobuf");
  const std::uint16_t imu = w.AddChannel(0, "/imu", "protobuf");
  const std::uint16_t status = w.AddChannel(0, "/status", "json");
  std::array<std::uint8_t, 1100> state{};
  std::array<std::uint8_t, 96> imu_sample{};
  std::array<std::uint8_t, 300> status_text{};
  auto tick = [&](std::uint32_t i) {
    for (std::size_t k = 0; k < state.size(); ++k) state[k] = static_cast<std::uint8_t>(i + k / 8);
    const std::uint64_t t = 1'700'000'000'000'000'000ull + i * 2'000'000ull;
    bool ok = w.Write(joints, i, t, t, state) && w.Write(imu, i, t, t, imu_sample);
    if (i % 10 == 0) ok = ok && w.Write(status, i / 10, t, t, status_text);
    return ok;
  };
  std::uint32_t i = 0;
  for (; i < 500; ++i) ASSERT_TRUE(tick(i));  // warm-up: a second of recording
  const std::uint32_t chunks_before = w.chunk_count();
  std::size_t allocations = 0;
  {
    AllocationCounter counter;
    for (; i < 5500; ++i) {
      if (!tick(i)) break;
    }
    allocations = counter.count();
  }
  ASSERT_EQ(i, 5500u) << w.error();
  EXPECT_GT(w.chunk_count() - chunks_before, 50u);
  EXPECT_EQ(allocations, 0u);
  EXPECT_TRUE(w.Close());
}

INSTANTIATE_TEST_SUITE_P(Compressions, SteadyState,
                         ::testing::Values(Compression::kNone, Compression::kZstd,
                                           Compression::kLz4),
                         [](const ::testing::TestParamInfo<Compression>& p) {
                           const std::string_view name = CompressionName(p.param);
                           return name.empty() ? std::string("none") : std::string(name);
                         });

}  // namespace
}  // namespace robot_edge::recorder
