// A latched stop outlives robot-edged (issue 38, C2 and M1), on vcan through real restarts: an
// observer's DAMP while 'cloud' holds control is kept on disk; after SIGKILL (restarted as the
// unit does) and after a clean stop and start, the reconnecting stream and another controller's
// STAND are refused and no motor is driven; a restart to apply a config is refused while it
// holds; only 'cloud''s STAND, or a local release, lifts it.
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "harness.hpp"

namespace robot_edge::e2e {
namespace {

// Frames that drive a motor (kp > 0) since `since_us`.
std::size_t DrivingFrames(Robot& robot, std::int64_t since_us) {
  std::size_t n = 0;
  for (const auto& f : robot.monitor().Since(since_us)) {
    if (!f.special && robot.monitor().JointOf(f) >= 0 && f.command.kp > 0) ++n;
  }
  return n;
}

// 'cloud' stands the robot up, an observer DAMPs it: latched, and kept in the stop record.
void LatchAStop(Robot& robot) {
  auto cloud = robot.Connect("cloud");
  auto observer = robot.Connect("");
  WaitMotorsReady(cloud);
  ASSERT_TRUE(StandWithin(cloud));
  ASSERT_TRUE(Command(observer, Mode(edge::MODE_DAMP)).accepted());
  const std::string record = robot.dir() + "/stop-latch";
  ASSERT_TRUE(Eventually([&] { return std::filesystem::exists(record); }, 5s))
      << "the stop is not kept on disk";
}

// What a reconnecting stream and another controller get after a restart: refusals, no motion.
void ExpectStillStopped(Robot& robot, const char* when) {
  auto cloud = robot.ConnectWhenUp("cloud");
  auto ble = robot.Connect("ble");
  WaitMotorsReady(cloud);
  const std::int64_t since = NowUs();
  const auto pose = StandPose(robot.config());
  for (int i = 0; i < 10; ++i) {
    const auto r = Command(cloud, Trajectory(pose));
    EXPECT_FALSE(r.accepted()) << when << ": the stream moved the robot";
    EXPECT_EQ(r.reason(), "stop_latched") << when;
    std::this_thread::sleep_for(20ms);
  }
  const auto ble_stand = Command(ble, Mode(edge::MODE_STAND));
  EXPECT_FALSE(ble_stand.accepted()) << when << ": another controller released the stop";
  EXPECT_EQ(ble_stand.reason(), "stop_latched") << when;
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(DrivingFrames(robot, since), 0u) << when << ": a motor was driven";
  const auto diag = WaitDiagnostics(cloud, 3s, [](const edge::ServerMessage& m) {
    return !m.diagnostics_extension().stop_latched_by().empty();
  });
  ASSERT_TRUE(diag) << when << ": diagnostics do not say a stop is latched";
  EXPECT_EQ(diag->diagnostics_extension().stop_release_holder(), "cloud");
}

std::optional<edge::MaintenanceResult> Ask(client::Client& c, edge::MaintenanceRequest r) {
  static std::uint32_t id = 1;
  r.set_request_id(id++);
  return c.Maintain(r, 3s);
}

TEST(StopLatchAcrossRestarts, SigkillAndACleanRestartKeepItUntilTheControllerStands) {
  Robot robot;
  LatchAStop(robot);
  if (HasFatalFailure()) return;

  // A restart to apply a config would be a way around the stop: refused.
  auto maintainer = robot.Connect("maintainer");
  edge::MaintenanceRequest apply;
  apply.mutable_apply_config();
  const auto applied = Ask(maintainer, apply);
  ASSERT_TRUE(applied);
  EXPECT_FALSE(applied->ok());
  EXPECT_NE(applied->error().find("a stop is latched"), std::string::npos) << applied->error();

  robot.RestartLikeSystemd();
  robot.SignalDaemon(SIGKILL);
  ExpectStillStopped(robot, "after SIGKILL");

  ASSERT_EQ(robot.StopDaemon(), 0) << "a clean stop";
  robot.StartDaemonAgain();
  ExpectStillStopped(robot, "after a clean stop and start");

  // The controller that held control when it latched releases it, and may move the robot.
  auto cloud = robot.ConnectWhenUp("cloud");
  WaitMotorsReady(cloud);
  ASSERT_TRUE(StandWithin(cloud));
  EXPECT_TRUE(Eventually([&] { return !std::filesystem::exists(robot.dir() + "/stop-latch"); }, 5s))
      << "the record outlived the release";
}

// A command the state machine refuses takes no control: 'ble' outranks 'cloud', but its STAND,
// refused while cloud's stop is latched, leaves control with cloud, whose STAND then releases
// the stop at once (before, ble's refused STAND took control and cloud's was not_controller).
TEST(StopLatchAcrossRestarts, AnotherControllersRefusedStandLeavesControlWithTheHolder) {
  Robot robot;
  LatchAStop(robot);
  if (HasFatalFailure()) return;
  auto cloud = robot.Connect("cloud");
  WaitMotorsReady(cloud);
  ASSERT_TRUE(Command(cloud, Mode(edge::MODE_DAMP)).accepted()) << "cloud takes control";
  auto ble = robot.Connect("ble");
  const auto ble_stand = Command(ble, Mode(edge::MODE_STAND));
  EXPECT_FALSE(ble_stand.accepted());
  EXPECT_EQ(ble_stand.reason(), "stop_latched");
  const auto stand = Command(cloud, Mode(edge::MODE_STAND));
  EXPECT_TRUE(stand.accepted()) << "cloud lost control to a refused command: " << stand.reason();
  EXPECT_TRUE(Eventually([&] { return !std::filesystem::exists(robot.dir() + "/stop-latch"); }, 5s))
      << "the stop was not released";
}

TEST(StopLatchAcrossRestarts, OnlySomeoneOnTheRobotReleasesItLocally) {
  Robot robot;
  LatchAStop(robot);
  if (HasFatalFailure()) return;
  auto maintainer = robot.Connect("maintainer");
  edge::MaintenanceRequest release;
  release.mutable_release_stop();
  const auto released = Ask(maintainer, release);
  ASSERT_TRUE(released);
  EXPECT_TRUE(released->ok()) << released->error();
  EXPECT_TRUE(
      Eventually([&] { return !std::filesystem::exists(robot.dir() + "/stop-latch"); }, 5s));
  const auto again = Ask(maintainer, release);
  ASSERT_TRUE(again);
  EXPECT_FALSE(again->ok()) << "nothing left to release";
  EXPECT_NE(again->error().find("no stop is latched"), std::string::npos) << again->error();
  // Released, not moved: the robot is still in DAMP, and 'ble' may now stand it up.
  auto ble = robot.Connect("ble");
  EXPECT_TRUE(StandWithin(ble));
}

// Found by the outside audit: with its state directory read-only, robot-edged could not keep a
// stop and carried on; after a restart the stop was gone. Now it starts latched (it cannot know
// that no stop is in force) and only a local release lifts it. Runs as root under vcan/run.
TEST(StopLatchAcrossRestarts, AStateDirectoryThatCannotBeWrittenStartsLatched) {
  char pattern[] = "/tmp/stop-latch-ro-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  const std::string dir = pattern;
  ASSERT_EQ(std::system(("mount -t tmpfs -o ro,size=64k none " + dir).c_str()), 0)
      << "mounting a read-only tmpfs (the test runs as root inside the vcan harness)";
  {
    RobotOptions options;
    options.daemon_env = {"STATE_DIRECTORY=" + dir};
    Robot robot(options);
    auto cloud = robot.Connect("cloud");
    WaitMotorsReady(cloud);
    const auto stand = Command(cloud, Mode(edge::MODE_STAND));
    EXPECT_FALSE(stand.accepted());
    EXPECT_EQ(stand.reason(), "stop_latched");
    EXPECT_NE(robot.DaemonLog().find("is not writable"), std::string::npos);
    auto maintainer = robot.Connect("maintainer");
    edge::MaintenanceRequest release;
    release.mutable_release_stop();
    const auto released = Ask(maintainer, release);
    ASSERT_TRUE(released);
    EXPECT_TRUE(released->ok()) << released->error();
    EXPECT_TRUE(StandWithin(cloud)) << "released locally";
  }
  std::system(("umount " + dir).c_str());
  ::rmdir(dir.c_str());
}

}  // namespace
}  // namespace robot_edge::e2e
