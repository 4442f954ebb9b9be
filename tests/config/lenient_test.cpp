// The config as --emergency-damp reads it without a DAMP plan: buses and motors only, whatever
// else is wrong with the file.
#include "config/lenient.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace robot_edge::config {
namespace {

std::string DefaultText() {
  std::ifstream in(ROBOT_EDGE_DEFAULT_CONFIG);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void Replace(std::string* text, const std::string& from, const std::string& to) {
  const auto at = text->find(from);
  ASSERT_NE(at, std::string::npos) << from;
  text->replace(at, from.size(), to);
}

// The same motors, buses and DAMP fields as the full parse of the unbroken file.
void ExpectSameMotors(const Config& lenient, const Config& full) {
  ASSERT_EQ(lenient.joints.size(), full.joints.size());
  ASSERT_EQ(lenient.buses.size(), full.buses.size());
  for (std::size_t b = 0; b < full.buses.size(); ++b) {
    EXPECT_EQ(lenient.buses[b].interface, full.buses[b].interface);
    EXPECT_EQ(lenient.buses[b].master_id, full.buses[b].master_id);
  }
  for (std::size_t j = 0; j < full.joints.size(); ++j) {
    const JointConfig &a = lenient.joints[j], &b = full.joints[j];
    EXPECT_EQ(a.bus, b.bus) << b.name;
    EXPECT_EQ(a.can_id, b.can_id) << b.name;
    EXPECT_EQ(a.damp_kd, b.damp_kd) << b.name;
    EXPECT_EQ(a.direction, b.direction) << b.name;
    EXPECT_EQ(a.gear_ratio, b.gear_ratio) << b.name;
    EXPECT_EQ(lenient.motor_of(j).family, full.motor_of(j).family) << b.name;
    EXPECT_EQ(lenient.motor_of(j).kd_max, full.motor_of(j).kd_max) << b.name;
  }
}

TEST(Lenient, AnUnknownKeyAndAnEmptyCalibrationFileStillGiveEveryMotor) {
  const Config full = LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  std::string text = DefaultText();
  text += "\nunknown_section: 1\ncalibration: /dev/null\n";
  Replace(&text, "damp_kd:", "colour: red, damp_kd:");  // an unknown key inside a joint
  EXPECT_THROW(ParseConfig(text, "broken.yaml"), ConfigError) << "the full parse refuses it";
  std::vector<std::string> skipped;
  const Config c = ParseMotorsLeniently(text, "broken.yaml", &skipped);
  EXPECT_TRUE(skipped.empty()) << skipped.front();
  ExpectSameMotors(c, full);
}

TEST(Lenient, AnUnusableEntryIsSkippedAndNamedTheRestRead) {
  std::string text = DefaultText();
  Replace(&text, "motor: ak80_9", "motor: no_such_motor");   // the first joint's
  Replace(&text, "interface: vcan4", "interface: [vcan4]");  // the last bus
  std::vector<std::string> skipped;
  const Config c = ParseMotorsLeniently(text, "broken.yaml", &skipped);
  ASSERT_GE(skipped.size(), 2u);
  EXPECT_EQ(skipped[0], "buses[4]: no usable name, interface or master_id");
  EXPECT_EQ(skipped[1], "joints[0]: motor 'no_such_motor' is not usable");
  const Config full = LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG);
  std::size_t on_bus4 = 0;
  for (const JointConfig& j : full.joints) on_bus4 += j.bus == 4;
  EXPECT_EQ(c.joints.size(), full.joints.size() - 1 - on_bus4);
  EXPECT_EQ(c.joints.front().name, full.joints[1].name);
}

TEST(Lenient, TextThatIsNotYamlIsAnError) {
  std::vector<std::string> skipped;
  EXPECT_THROW(ParseMotorsLeniently("buses: [", "bad.yaml", &skipped), ConfigError);
  EXPECT_THROW(ParseMotorsLeniently("- a list", "bad.yaml", &skipped), ConfigError);
  EXPECT_THROW(ReadMotorsLeniently("/nonexistent/robot-edge.yaml", &skipped), ConfigError);
}

}  // namespace
}  // namespace robot_edge::config
