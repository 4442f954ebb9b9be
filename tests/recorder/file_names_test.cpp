// The recording files' names (file_names.hpp): UTC stamps against known dates, names that sort
// in time order, parsing that accepts only our own names, and reasons fit for a file name.
#include "recorder/file_names.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace robot_edge::recorder {
namespace {

constexpr std::uint64_t kS = 1'000'000'000;
constexpr std::uint64_t kMay1Noon = 1'714'564'800 * kS;  // 2024-05-01 12:00:00 UTC

TEST(FileNames, UtcStamps) {
  EXPECT_EQ(UtcStamp(0), "19700101-000000");
  EXPECT_EQ(UtcStamp(kMay1Noon), "20240501-120000");
  EXPECT_EQ(UtcStamp(kMay1Noon + 59 * kS + 999'999'999), "20240501-120059");  // truncated
  EXPECT_EQ(UtcStampMs(kMay1Noon + 250'999'999), "20240501-120000.250");
  EXPECT_EQ(UtcStamp(951'782'400 * kS), "20000229-000000");  // a leap day
  EXPECT_EQ(UtcStamp(kMay1Noon - 1), "20240501-115959");
}

TEST(FileNames, ParseUtcStampIsTheInverse) {
  for (std::uint64_t t :
       {std::uint64_t{0}, kMay1Noon, kMay1Noon + 86'399 * kS, std::uint64_t{951'782'400} * kS}) {
    EXPECT_EQ(ParseUtcStamp(UtcStamp(t)), t);
  }
  EXPECT_EQ(ParseUtcStamp("20240501-120000.250"), kMay1Noon + 250'000'000);
  for (const char* bad : {"20241301-120000", "20240230-120000", "20240501-240000",
                          "20240501-126000", "20240501_120000", "2024050-1120000",
                          "20240501-120000.25", "20240501-120000,250", "19691231-235959", ""}) {
    EXPECT_FALSE(ParseUtcStamp(bad)) << bad;
  }
}

TEST(FileNames, RecordingNamesRoundTrip) {
  EXPECT_EQ(RecordingFileName("robot-edge", kMay1Noon, 42),
            "robot-edge_20240501-120000_000042.mcap");
  EXPECT_EQ(ParseRecordingFileName("robot-edge", "robot-edge_20240501-120000_000042.mcap"), 42u);
  EXPECT_EQ(ParseRecordingFileName("robot-edge", "robot-edge_20240501-120000_1234567.mcap"),
            1234567u);
}

TEST(FileNames, OnlyOurOwnRecordingNamesParse) {
  for (const char* foreign :
       {"robot-edge_notes.mcap", "other_20240501-120000_000001.mcap",
        "robot-edge_20240501-120000_000001.mcap.tmp", "robot-edge_20240501-120000_.mcap",
        "robot-edge_20240501-120000_00x1.mcap", "robot-edge-2_20240501-120000_000001.mcap",
        "robot-edge_20241301-120000_000001.mcap", "robot-edge_20240501-120000.250_x.mcap",
        "robot-edge_20240501-120000_000001", "robot-edge.mcap"}) {
    EXPECT_FALSE(ParseRecordingFileName("robot-edge", foreign)) << foreign;
  }
}

// Plain string order is recording order: by time, then by n within a second.
TEST(FileNames, RecordingNamesSortByTimeThenNumber) {
  const std::vector<std::string> in_order = {
      RecordingFileName("r", kMay1Noon - kS, 9),  RecordingFileName("r", kMay1Noon, 10),
      RecordingFileName("r", kMay1Noon, 11),      RecordingFileName("r", kMay1Noon + 1, 12),
      RecordingFileName("r", kMay1Noon + kS, 13), RecordingFileName("r", kMay1Noon + 3600 * kS, 14),
  };
  EXPECT_TRUE(std::is_sorted(in_order.begin(), in_order.end()));
  EXPECT_NE(in_order[1], in_order[2]);  // same second, different n
}

TEST(FileNames, PrefixesStayInTheirDirectory) {
  EXPECT_TRUE(IsFileNamePrefix("robot-edge"));
  EXPECT_TRUE(IsFileNamePrefix("black_box.v2"));
  EXPECT_TRUE(IsFileNamePrefix(".."));  // ".._20240501-...": still a name in the directory
  for (const char* bad : {"", "a/b", "/tmp/x", "a b", "x\n"})
    EXPECT_FALSE(IsFileNamePrefix(bad)) << bad;
}

TEST(FileNames, ReasonsAreSanitised) {
  EXPECT_EQ(SanitizeReason("FALL_DETECTED"), "FALL_DETECTED");
  EXPECT_EQ(SanitizeReason("MOTOR_OVERTEMP L_Knee"), "MOTOR_OVERTEMP_L_Knee");
  EXPECT_EQ(SanitizeReason("operator"), "operator");
  EXPECT_EQ(SanitizeReason("../../etc/passwd"), "etc_passwd");
  EXPECT_EQ(SanitizeReason("  a / b\n"), "a_b");
  EXPECT_EQ(SanitizeReason("temp 85.5\xc2\xb0"
                           "C"),
            "temp_85_5_C");
  EXPECT_EQ(SanitizeReason(""), "unknown");
  EXPECT_EQ(SanitizeReason("///"), "unknown");
  EXPECT_EQ(SanitizeReason(std::string(100, 'x')), std::string(64, 'x'));
}

TEST(FileNames, BlackBoxNamesRoundTrip) {
  const std::string name =
      BlackBoxFileName("blackbox", kMay1Noon + 250'000'000, "MOTOR_OVERTEMP L_Knee");
  EXPECT_EQ(name, "blackbox_20240501-120000.250_MOTOR_OVERTEMP_L_Knee.mcap");
  const auto parsed = ParseBlackBoxFileName("blackbox", name);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->trigger_time_ns, kMay1Noon + 250'000'000);
  EXPECT_EQ(parsed->reason, "MOTOR_OVERTEMP_L_Knee");
  EXPECT_FALSE(parsed->partial);
  const auto partial = ParseBlackBoxFileName("blackbox", name + ".partial");
  ASSERT_TRUE(partial);
  EXPECT_TRUE(partial->partial);
  EXPECT_EQ(partial->reason, "MOTOR_OVERTEMP_L_Knee");
  for (const char* foreign :
       {"blackbox_20240501-120000_x.mcap", "blackbox_20240501-120000.250_.mcap",
        "blackbox_20240501-120000.250_a b.mcap", "blackboxes_20240501-120000.250_x.mcap",
        "robot-edge_20240501-120000_000001.mcap", "blackbox_20240501-120000.250_x.mcap.part",
        "blackbox_20240501-120000.250_x.partial",
        "blackbox_20240501-120000.250_x.mcap.partial.mcap"}) {
    EXPECT_FALSE(ParseBlackBoxFileName("blackbox", foreign)) << foreign;
  }
}

}  // namespace
}  // namespace robot_edge::recorder
