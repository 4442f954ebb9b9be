// The control language: every command parses into the command it names, and every malformed line
// is refused with a message that says what is wrong.
#include "sim/control_protocol.hpp"

#include <gtest/gtest.h>

#include "sim_test_util.hpp"

namespace robot_edge::sim {
namespace {

const config::Config& Config() {
  static const config::Config c = test::SmallConfig();
  return c;
}

ControlCommand Parse(std::string_view line) {
  const ParseResult r = ParseControlLine(line, Config());
  EXPECT_TRUE(r.command.has_value()) << "'" << line << "': " << r.error;
  return r.command.value_or(ControlCommand{});
}

std::string Error(std::string_view line) {
  const ParseResult r = ParseControlLine(line, Config());
  EXPECT_FALSE(r.command.has_value()) << "'" << line << "' was accepted";
  return r.error;
}

TEST(ControlProtocol, Temp) {
  ControlCommand c = Parse("temp Hip 85.5");
  EXPECT_EQ(c.verb, ControlVerb::kTemp);
  EXPECT_EQ(c.joint, 1u);
  EXPECT_DOUBLE_EQ(c.celsius, 85.5);
  c = Parse("temp 2 release");
  EXPECT_EQ(c.verb, ControlVerb::kTempRelease);
  EXPECT_EQ(c.joint, 2u);
  EXPECT_DOUBLE_EQ(Parse("temp Knee -5").celsius, -5);
}

TEST(ControlProtocol, SilenceAndFault) {
  ControlCommand c = Parse("silence Knee on");
  EXPECT_EQ(c.verb, ControlVerb::kSilence);
  EXPECT_EQ(c.joint, 0u);
  EXPECT_TRUE(c.on);
  EXPECT_FALSE(Parse("silence Knee off").on);
  c = Parse("fault Elbow 6");
  EXPECT_EQ(c.verb, ControlVerb::kFault);
  EXPECT_EQ(c.joint, 2u);
  EXPECT_EQ(c.code, 6);
  EXPECT_EQ(Parse("fault 0 0").code, 0);
  EXPECT_EQ(Parse("fault 0 255").code, 255);
}

TEST(ControlProtocol, Mount) {
  const ControlCommand c = Parse("mount Hip -0.25 -1");
  EXPECT_EQ(c.verb, ControlVerb::kMount);
  EXPECT_EQ(c.joint, 1u);
  EXPECT_DOUBLE_EQ(c.offset_rad, -0.25);
  EXPECT_DOUBLE_EQ(c.direction, -1);
  EXPECT_EQ(Error("mount Hip 0.1 0"), "direction must be 1 or -1");
  EXPECT_NE(Error("mount Hip 9 1").find("outside"), std::string::npos);
}

TEST(ControlProtocol, TiltAndImu) {
  ControlCommand c = Parse("tilt 10.5 -90");
  EXPECT_EQ(c.verb, ControlVerb::kTilt);
  EXPECT_DOUBLE_EQ(c.roll_deg, 10.5);
  EXPECT_DOUBLE_EQ(c.pitch_deg, -90);
  c = Parse("imu off");
  EXPECT_EQ(c.verb, ControlVerb::kImu);
  EXPECT_FALSE(c.on);
  EXPECT_TRUE(Parse("imu on").on);
}

TEST(ControlProtocol, Battery) {
  ControlCommand c = Parse("battery 15");
  EXPECT_EQ(c.verb, ControlVerb::kBatteryCharge);
  EXPECT_DOUBLE_EQ(c.percent, 15);
  EXPECT_DOUBLE_EQ(Parse("battery 0").percent, 0);
  EXPECT_DOUBLE_EQ(Parse("battery 99.5").percent, 99.5);
  c = Parse("battery off");
  EXPECT_EQ(c.verb, ControlVerb::kBattery);
  EXPECT_FALSE(c.on);
  c = Parse("battery on");
  EXPECT_EQ(c.verb, ControlVerb::kBattery);
  EXPECT_TRUE(c.on);
  EXPECT_EQ(Error("battery 101"), "state of charge (%) 101 is outside 0..100");
  EXPECT_EQ(Error("battery -1"), "state of charge (%) -1 is outside 0..100");
  EXPECT_EQ(Error("battery full"), "bad number 'full' for state of charge (%)");
  EXPECT_EQ(Error("battery"), "missing argument, usage: battery PERCENT|on|off");
  EXPECT_EQ(Error("battery 50 on"), "too many arguments, usage: battery PERCENT|on|off");
  EXPECT_NE(std::string(kControlHelp).find("battery PERCENT|on|off;"), std::string::npos);
}

TEST(ControlProtocol, GantryPushAndTruth) {
  ControlCommand g = Parse("gantry 0.9");
  EXPECT_EQ(g.verb, ControlVerb::kGantry);
  EXPECT_TRUE(g.on);
  EXPECT_DOUBLE_EQ(g.height_m, 0.9);
  g = Parse("gantry off");
  EXPECT_EQ(g.verb, ControlVerb::kGantry);
  EXPECT_FALSE(g.on);
  const ControlCommand p = Parse("push torso 0 -250.5 10 0.2");
  EXPECT_EQ(p.verb, ControlVerb::kPush);
  EXPECT_EQ(p.body, "torso");
  EXPECT_DOUBLE_EQ(p.force_n[1], -250.5);
  EXPECT_DOUBLE_EQ(p.force_n[2], 10);
  EXPECT_DOUBLE_EQ(p.seconds, 0.2);
  EXPECT_EQ(Parse("truth").verb, ControlVerb::kTruth);
  EXPECT_EQ(Parse("record").verb, ControlVerb::kRecord);
  EXPECT_EQ(Parse("qpos").verb, ControlVerb::kQpos);
  EXPECT_EQ(Error("gantry high"), "bad number 'high' for gantry height (m)");
  EXPECT_EQ(Error("gantry 6"), "gantry height (m) 6 is outside 0..5");
  EXPECT_EQ(Error("push torso 9000 0 0 1"), "force (N) 9000 is outside -5000..5000");
  EXPECT_EQ(Error("push torso 1 0 0"), "missing argument, usage: push BODY FX FY FZ SECONDS");
}

TEST(ControlProtocol, BusCommandsTakeANameOrAnInterface) {
  ControlCommand c = Parse("busoff arm");
  EXPECT_EQ(c.verb, ControlVerb::kBusOff);
  EXPECT_EQ(c.bus, 1u);
  c = Parse("restarted vcan0");
  EXPECT_EQ(c.verb, ControlVerb::kRestarted);
  EXPECT_EQ(c.bus, 0u);
  c = Parse("link vcan1 down");
  EXPECT_EQ(c.verb, ControlVerb::kLink);
  EXPECT_EQ(c.bus, 1u);
  EXPECT_FALSE(c.on);
  EXPECT_TRUE(Parse("link leg up").on);
}

TEST(ControlProtocol, Reports) {
  ControlCommand c = Parse("get Elbow");
  EXPECT_EQ(c.verb, ControlVerb::kGet);
  EXPECT_EQ(c.joint, 2u);
  EXPECT_EQ(Parse("status").verb, ControlVerb::kStatus);
  EXPECT_EQ(Parse("help").verb, ControlVerb::kHelp);
}

TEST(ControlProtocol, ToleratesSpacingAndCarriageReturn) {
  EXPECT_EQ(Parse("  get\tKnee  ").joint, 0u);
  EXPECT_EQ(Parse("status\r").verb, ControlVerb::kStatus);
}

TEST(ControlProtocol, RefusesUnknownCommands) {
  EXPECT_EQ(Error("explode Knee"), "unknown command 'explode' (try help)");
  EXPECT_EQ(Error("TEMP Knee 50"), "unknown command 'TEMP' (try help)");
  EXPECT_EQ(Error(""), "empty command (try help)");
  EXPECT_EQ(Error("   \r"), "empty command (try help)");
}

TEST(ControlProtocol, RefusesUnknownJointsAndBuses) {
  EXPECT_EQ(Error("get Kne"), "unknown joint 'Kne' (a joint name or 0..2)");
  EXPECT_EQ(Error("get 3"), "unknown joint '3' (a joint name or 0..2)");
  EXPECT_EQ(Error("get -1"), "unknown joint '-1' (a joint name or 0..2)");
  EXPECT_EQ(Error("busoff vcan7"), "unknown bus 'vcan7' (known: leg, arm, or their interfaces)");
}

TEST(ControlProtocol, RefusesBadNumbers) {
  EXPECT_EQ(Error("temp Knee hot"), "bad number 'hot' for temperature (°C)");
  EXPECT_EQ(Error("temp Knee 5x"), "bad number '5x' for temperature (°C)");
  EXPECT_EQ(Error("temp Knee nan"), "bad number 'nan' for temperature (°C)");
  EXPECT_EQ(Error("temp Knee 400"), "temperature (°C) 400 is outside -50..300");
  EXPECT_EQ(Error("tilt 0 x"), "bad number 'x' for pitch (°)");
  EXPECT_EQ(Error("tilt 181 0"), "roll (°) 181 is outside -180..180");
  EXPECT_EQ(Error("fault Knee 256"), "bad error code '256' (an integer 0..255)");
  EXPECT_EQ(Error("fault Knee 1.5"), "bad error code '1.5' (an integer 0..255)");
  EXPECT_EQ(Error("silence Knee yes"), "expected on or off, got 'yes'");
  EXPECT_EQ(Error("link leg off"), "expected up or down, got 'off'");
}

TEST(ControlProtocol, RefusesMissingAndExtraArguments) {
  EXPECT_EQ(Error("temp Knee"), "missing argument, usage: temp JOINT CELSIUS|release");
  EXPECT_EQ(Error("silence"), "missing argument, usage: silence JOINT on|off");
  EXPECT_EQ(Error("tilt 10"), "missing argument, usage: tilt ROLL_DEG PITCH_DEG");
  EXPECT_EQ(Error("link leg"), "missing argument, usage: link BUS down|up");
  EXPECT_EQ(Error("busoff"), "missing argument, usage: busoff BUS");
  EXPECT_EQ(Error("status now"), "too many arguments, usage: status");
  EXPECT_EQ(Error("get Knee Hip"), "too many arguments, usage: get JOINT");
}

}  // namespace
}  // namespace robot_edge::sim
