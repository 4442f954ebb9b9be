// The latched stop kept on disk (daemon/api/stop_latch_file.hpp): what it holds, that anything
// unreadable still means a stop, and that the keeper writes it when a stop latches and removes
// it when released.
#include "daemon/api/stop_latch_file.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace robot_edge::daemon {
namespace {

sm::StopLatch Latched(const char* by, const char* holder) {
  sm::StopLatch l;
  l.latched = true;
  l.stopped_by = sm::MakeSenderLabel(by);
  l.holder = sm::MakeSenderLabel(holder);
  return l;
}

class StopLatchFile : public testing::Test {
 protected:
  StopLatchFile() {
    char pattern[] = "/tmp/stop-latch-XXXXXX";
    dir_ = ::mkdtemp(pattern);
    path_ = dir_ + "/stop-latch";
  }
  ~StopLatchFile() override { std::filesystem::remove_all(dir_); }
  void Write(const std::string& text) { std::ofstream(path_, std::ios::binary) << text; }

  std::string dir_, path_;
};

TEST_F(StopLatchFile, RoundTripsWhoStoppedTheRobotAndWhoMayRelease) {
  std::string problem;
  const sm::StopLatch l =
      DecodeStopLatch(EncodeStopLatch(Latched("'ble' (client 3, uid 0)", "cloud")), &problem);
  EXPECT_TRUE(problem.empty()) << problem;
  EXPECT_TRUE(l.latched);
  EXPECT_STREQ(l.stopped_by.data(), "'ble' (client 3, uid 0)");
  EXPECT_STREQ(l.holder.data(), "cloud");
}

TEST_F(StopLatchFile, NoFileIsNoStop) {
  std::string problem;
  EXPECT_FALSE(ReadStopLatch(path_, &problem));
  EXPECT_FALSE(ReadStopLatch("", &problem)) << "no path: nothing kept";
}

// A power cut or a broken disk can leave an empty or truncated file: still a stop, which only
// a local release lifts (no holder).
TEST_F(StopLatchFile, AnUnreadableRecordIsAStopOnlyALocalReleaseLifts) {
  const std::string whole = EncodeStopLatch(Latched("an observer", "cloud"));
  for (const std::string& text :
       {std::string(), whole.substr(0, whole.size() - 4), std::string("robot-edge stop-latch 2\n"),
        whole + "extra\n", std::string("\0\0\0\0", 4)}) {
    Write(text);
    std::string problem;
    const auto l = ReadStopLatch(path_, &problem);
    ASSERT_TRUE(l) << text;
    EXPECT_TRUE(l->latched);
    EXPECT_STREQ(l->holder.data(), "") << "nobody's STAND may release an unreadable stop";
    EXPECT_FALSE(problem.empty());
  }
}

// Found by the outside audit: a dangling symlink named stop-latch read as "no stop".
TEST_F(StopLatchFile, AnythingButARegularFileIsAStop) {
  ASSERT_EQ(::symlink((dir_ + "/nowhere").c_str(), path_.c_str()), 0);
  std::string problem;
  auto l = ReadStopLatch(path_, &problem);
  ASSERT_TRUE(l) << "a dangling symlink";
  EXPECT_TRUE(l->latched);
  EXPECT_EQ(problem, "not a regular file");
  std::filesystem::remove(path_);
  Write(EncodeStopLatch(Latched("an observer", "cloud")));
  ASSERT_EQ(::symlink(path_.c_str(), (dir_ + "/link").c_str()), 0);
  l = ReadStopLatch(dir_ + "/link", &problem);
  ASSERT_TRUE(l);
  EXPECT_STREQ(l->holder.data(), "") << "a symlink to a valid record is not trusted either";
  std::filesystem::remove(path_);
  std::filesystem::create_directory(path_);
  l = ReadStopLatch(path_, &problem);
  ASSERT_TRUE(l) << "a directory";
  EXPECT_TRUE(l->latched);
}

TEST_F(StopLatchFile, AMissingDirectoryKeepsNothingAndIsNoProblem) {
  EXPECT_EQ(StopLatchDirectoryProblem(dir_ + "/absent/stop-latch"), "");
  EXPECT_EQ(StopLatchDirectoryProblem(path_), "") << "a writable directory";
}

TEST_F(StopLatchFile, TheKeeperWritesOnLatchAndRemovesOnRelease) {
  StopLatchKeeper keeper(path_, sm::StopLatch{});
  using Kind = StopLatchKeeper::Change::Kind;
  EXPECT_EQ(keeper.Observe(sm::StopLatch{}).kind, Kind::kNone);
  EXPECT_FALSE(std::filesystem::exists(path_));
  EXPECT_EQ(keeper.Observe(Latched("an observer", "cloud")).kind, Kind::kWritten);
  std::string problem;
  auto kept = ReadStopLatch(path_, &problem);
  ASSERT_TRUE(kept);
  EXPECT_STREQ(kept->holder.data(), "cloud");
  EXPECT_EQ(keeper.Observe(Latched("an observer", "cloud")).kind, Kind::kNone) << "unchanged";
  EXPECT_EQ(keeper.Observe(sm::StopLatch{}).kind, Kind::kRemoved);
  EXPECT_FALSE(std::filesystem::exists(path_));
}

TEST_F(StopLatchFile, AFailureIsReportedAndTriedAgain) {
  StopLatchKeeper keeper(dir_ + "/missing/stop-latch", sm::StopLatch{});
  const auto change = keeper.Observe(Latched("an observer", ""));
  EXPECT_EQ(change.kind, StopLatchKeeper::Change::Kind::kFailed);
  EXPECT_NE(change.error.find("missing"), std::string::npos) << change.error;
  std::filesystem::create_directory(dir_ + "/missing");
  EXPECT_EQ(keeper.Observe(Latched("an observer", "")).kind,
            StopLatchKeeper::Change::Kind::kWritten);
}

TEST_F(StopLatchFile, ThePathFollowsTheUnitsStateDirectory) {
  EXPECT_EQ(StopLatchPath("/var/lib/robot-edge", "/run/robot-edge/damp-plan"),
            "/var/lib/robot-edge/stop-latch");
  EXPECT_EQ(StopLatchPath("/var/lib/a:/var/lib/b", ""), "/var/lib/a/stop-latch");
  EXPECT_EQ(StopLatchPath(nullptr, "/run/robot-edge/damp-plan"), "/run/robot-edge/stop-latch");
  EXPECT_EQ(StopLatchPath("", ""), "");
}

}  // namespace
}  // namespace robot_edge::daemon
