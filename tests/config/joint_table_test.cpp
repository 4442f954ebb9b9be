// The joint table (joint space, floats, built once), the mounting keys (offset, direction,
// gear_ratio) and the calibration file that supplies the offsets.
#include "config/joint_table.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

namespace robot_edge::config {
namespace {

// One bus, one motor model (p_max 12.5, kp_max 500, kd_max 5, v_max 50, t_max 18), two joints;
// `extra` goes into the second joint's mapping.
std::string Yaml(const std::string& extra = "", const std::string& top = "") {
  return top + R"(
motors:
  m: {p_max: 12.5, v_max: 50.0, t_max: 18.0, kp_max: 500.0, kd_max: 5.0, can_timeout_ms: 100}
buses:
  - {name: leg, interface: vcan0}
joints:
  - {name: Hip, bus: leg, can_id: 1, motor: m, min: -1.0, max: 1.0, kp: 50, kd: 1, stand: 0}
  - {name: Knee, bus: leg, can_id: 2, motor: m, min: 0.0, max: 2.0, kp: 40, kd: 2, stand: 0.5)" +
         extra + R"(}
imu: {bus: leg}
)";
}

std::vector<std::string> Problems(const std::string& text) {
  try {
    return Validate(ParseConfig(text, "robot.yaml"));
  } catch (const ConfigError& e) {
    return e.problems();
  }
}

bool Mentions(const std::vector<std::string>& problems, const std::string& key,
              const std::string& message) {
  for (const auto& p : problems) {
    if (p.find(key + ": ") != std::string::npos && p.find(message) != std::string::npos) {
      return true;
    }
  }
  return false;
}

TEST(JointTable, DefaultsAreTheMotorMountedAsItsJoint) {
  const Config c = ParseConfig(Yaml(), "robot.yaml");
  ASSERT_TRUE(Validate(c).empty());
  const JointTable t = BuildJointTable(c);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_FLOAT_EQ(t[1].min_rad, 0.0f);
  EXPECT_FLOAT_EQ(t[1].max_rad, 2.0f);
  EXPECT_FLOAT_EQ(t[1].stand_rad, 0.5f);
  EXPECT_FLOAT_EQ(t[1].kp, 40.0f);
  EXPECT_FLOAT_EQ(t[1].kd, 2.0f);
  EXPECT_FLOAT_EQ(t[1].damp_kd, 1.0f);
  EXPECT_FLOAT_EQ(t[1].kp_cap, 500.0f);
  EXPECT_FLOAT_EQ(t[1].kd_cap, 5.0f);
  EXPECT_FLOAT_EQ(t[1].v_cap_rad_s, 50.0f);
  EXPECT_FLOAT_EQ(t[1].t_cap_nm, 18.0f);
  EXPECT_FLOAT_EQ(TransformOf(c.joints[1]).offset_rad, 0.0f);
  EXPECT_FLOAT_EQ(TransformOf(c.joints[1]).direction, 1.0f);
  EXPECT_FLOAT_EQ(TransformOf(c.joints[1]).gear_ratio, 1.0f);
}

TEST(JointTable, AGearedJointSeesTheMotorsFieldsThroughTheRatio) {
  // A 2:1 reduction after the motor: the joint turns half as fast with twice the torque, and
  // the motor's gain fields carry a quarter of the joint's gains.
  const Config c = ParseConfig(Yaml(", offset: 0.3, direction: -1, gear_ratio: 0.5"), "robot.yaml");
  ASSERT_TRUE(Validate(c).empty()) << Validate(c).front();
  const JointParams knee = BuildJointTable(c)[1];
  EXPECT_FLOAT_EQ(TransformOf(c.joints[1]).offset_rad, 0.3f);
  EXPECT_FLOAT_EQ(TransformOf(c.joints[1]).direction, -1.0f);
  EXPECT_FLOAT_EQ(TransformOf(c.joints[1]).gear_ratio, 0.5f);
  EXPECT_FLOAT_EQ(knee.v_cap_rad_s, 25.0f);
  EXPECT_FLOAT_EQ(knee.t_cap_nm, 36.0f);
  EXPECT_FLOAT_EQ(knee.kp_cap, 500.0f);  // 2000 through the ratio, the API's 500 first
  EXPECT_FLOAT_EQ(knee.kd_cap, 5.0f);    // 20, the API's 5
}

TEST(JointTable, RejectsADirectionThatIsNotASign) {
  EXPECT_TRUE(Mentions(Problems(Yaml(", direction: 0")), "joints[1].direction", "not +1 or -1"));
  EXPECT_TRUE(Mentions(Problems(Yaml(", direction: 2")), "joints[1].direction", "not +1 or -1"));
}

TEST(JointTable, RejectsARatioOutsideTheRange) {
  EXPECT_TRUE(Mentions(Problems(Yaml(", gear_ratio: 0")), "joints[1].gear_ratio", "outside"));
  EXPECT_TRUE(Mentions(Problems(Yaml(", gear_ratio: 500")), "joints[1].gear_ratio", "outside"));
}

TEST(JointTable, LimitsMustBeWithinTheMotorsReachFromTheOffset) {
  // p_max 12.5 at ratio 0.1 reaches ±1.25 rad around the offset: max 2.0 is beyond it.
  EXPECT_TRUE(Mentions(Problems(Yaml(", gear_ratio: 0.1")), "joints[1].max", "outside"));
  EXPECT_TRUE(Problems(Yaml(", gear_ratio: 0.1, offset: 1.0")).empty());
}

TEST(JointTable, GainsMustFitTheMotorsFieldsThroughTheRatio) {
  // Ratio 4 (the joint turns 4x the motor): kp_max 500 / 16 = 31.25 < kp 40.
  EXPECT_TRUE(Mentions(Problems(Yaml(", gear_ratio: 4")), "joints[1].kp", "outside"));
}

TEST(Calibration, OffsetsReplaceTheConfigsAndMarkTheJointsCalibrated) {
  Config c = ParseConfig(Yaml(", offset: 0.1"), "robot.yaml");
  ApplyCalibration("calibrated_at: \"2026-11-24T19:00:00Z\"\npose: stand\noffsets: {Knee: -0.25}\n",
                   "calibration.yaml", &c);
  EXPECT_DOUBLE_EQ(c.joints[1].offset_rad, -0.25);
  EXPECT_TRUE(c.joints[1].calibrated);
  EXPECT_FALSE(c.joints[0].calibrated);
  EXPECT_EQ(c.calibrated_at, "2026-11-24T19:00:00Z");
}

TEST(Calibration, FormatReadsBackToTheSameOffsets) {
  Config c = ParseConfig(Yaml(), "robot.yaml");
  const std::string text = FormatCalibration(c, {0.123456, -1.5}, "jig", "2026-11-24T19:00:00Z");
  Config d = ParseConfig(Yaml(), "robot.yaml");
  ApplyCalibration(text, "calibration.yaml", &d);
  EXPECT_NEAR(d.joints[0].offset_rad, 0.123456, 1e-9);
  EXPECT_NEAR(d.joints[1].offset_rad, -1.5, 1e-9);
  EXPECT_EQ(d.calibrated_at, "2026-11-24T19:00:00Z");
}

TEST(Calibration, UnknownJointsWrongTypesAndHugeOffsetsAreAllReported) {
  Config c = ParseConfig(Yaml(), "robot.yaml");
  try {
    ApplyCalibration("offsets:\n  Elbow: 0.1\n  Hip: left\n  Knee: 7.0\nextra: 1\n",
                     "calibration.yaml", &c);
    FAIL() << "accepted";
  } catch (const ConfigError& e) {
    ASSERT_EQ(e.problems().size(), 4u) << e.what();
    EXPECT_NE(std::string(e.what()).find("calibration.yaml:2: offsets.Elbow: no joint"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("calibration.yaml:3: offsets.Hip: expected an offset"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("calibration.yaml:4: offsets.Knee: offset beyond"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("extra: unknown key"), std::string::npos) << e.what();
  }
  EXPECT_DOUBLE_EQ(c.joints[1].offset_rad, 0.0);
}

class CalibrationFile : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("robot-edge-calibration-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  std::filesystem::path dir_;
};

TEST_F(CalibrationFile, IsReadFromBesideTheConfig) {
  const std::string config = Write("robot.yaml", Yaml("", "calibration: calibration.yaml\n"));
  Write("calibration.yaml", "offsets: {Hip: 0.05}\n");
  const Config c = LoadConfig(config);
  EXPECT_EQ(c.calibration_path, (dir_ / "calibration.yaml").string());
  EXPECT_DOUBLE_EQ(c.joints[0].offset_rad, 0.05);
  EXPECT_TRUE(Warnings(c).empty());
}

TEST_F(CalibrationFile, AMissingFileIsAWarningNotAnError) {
  const std::string config = Write("robot.yaml", Yaml("", "calibration: calibration.yaml\n"));
  const Config c = LoadConfig(config);
  EXPECT_DOUBLE_EQ(c.joints[0].offset_rad, 0.0);
  const auto warnings = Warnings(c);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("does not exist"), std::string::npos) << warnings[0];
}

TEST_F(CalibrationFile, ABrokenFileStopsTheStartWithItsLine) {
  const std::string config = Write("robot.yaml", Yaml("", "calibration: calibration.yaml\n"));
  Write("calibration.yaml", "offsets:\n  Nobody: 0.1\n");
  try {
    LoadConfig(config);
    FAIL() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("calibration.yaml:2: offsets.Nobody"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace robot_edge::config
