// Hashing, the retry loop with a fake transport and clock, and the black-box desk
// (uplink/sha256.hpp, uplink/upload.hpp, uplink/blackbox.hpp).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <deque>
#include <fstream>
#include <set>
#include <thread>

#include "uplink/announced_file.hpp"
#include "uplink/blackbox.hpp"
#include "uplink/sha256.hpp"
#include "uplink/upload.hpp"

namespace robot_edge::uplink {
namespace {

using State = UploadReport::State;

TEST(Sha256, GoldenDigestsInHexAndBase64) {
  EXPECT_EQ(Hex(Sha256Of("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Base64(Sha256Of("abc")), "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=");
  EXPECT_EQ(Hex(Sha256Of("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

class Dir : public ::testing::Test {
 protected:
  void SetUp() override {
    char path[] = "/tmp/upload_test.XXXXXX";
    ASSERT_NE(::mkdtemp(path), nullptr);
    dir_ = path;
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  void Write(const std::string& name, const std::string& bytes) {
    std::ofstream(dir_ + "/" + name, std::ios::binary) << bytes;
  }
  std::string dir_;
};

TEST_F(Dir, FileHashEqualsTheBytesHash) {
  std::string bytes(300'000, 'x');
  for (std::size_t i = 0; i < bytes.size(); i += 7) bytes[i] = static_cast<char>(i);
  Write("f.mcap", bytes);
  std::string error;
  const int fd = OpenInDirectory(dir_, "f.mcap", &error);
  ASSERT_GE(fd, 0) << error;
  EXPECT_EQ(Hex(*Sha256OfFile(fd, bytes.size())), Hex(Sha256Of(bytes)));
  EXPECT_FALSE(Sha256OfFile(fd, bytes.size() + 1));  // shorter than said
  ::close(fd);
}

TEST_F(Dir, SymlinksAndNonFilesAreNeverOpened) {
  Write("real.mcap", "data");
  ASSERT_EQ(::symlink("/etc/passwd", (dir_ + "/out.mcap").c_str()), 0);
  ASSERT_EQ(::symlink((dir_ + "/real.mcap").c_str(), (dir_ + "/in.mcap").c_str()), 0);
  ASSERT_EQ(::mkdir((dir_ + "/sub").c_str(), 0700), 0);
  std::string error;
  EXPECT_LT(OpenInDirectory(dir_, "out.mcap", &error), 0);
  EXPECT_NE(error.find("symbolic link"), std::string::npos) << error;
  EXPECT_LT(OpenInDirectory(dir_, "in.mcap", &error), 0);
  EXPECT_LT(OpenInDirectory(dir_, "sub", &error), 0);
  EXPECT_NE(error.find("not a regular file"), std::string::npos) << error;
  EXPECT_LT(OpenInDirectory(dir_, "../" + dir_.substr(5) + "/real.mcap", &error), 0);
  EXPECT_LT(OpenInDirectory(dir_, "missing.mcap", &error), 0);
  // Red team round six, F4: a hard link to another file, named like a recording.
  Write("secret", "token");
  ASSERT_EQ(::link((dir_ + "/secret").c_str(),
                   (dir_ + "/robot-edge_20261130-000000_000001.mcap").c_str()),
            0);
  EXPECT_LT(OpenInDirectory(dir_, "robot-edge_20261130-000000_000001.mcap", &error), 0);
  EXPECT_NE(error.find("2 hard links"), std::string::npos) << error;
  const int real = OpenInDirectory(dir_, "real.mcap", &error);
  EXPECT_GE(real, 0) << error;
  if (real >= 0) ::close(real);
}

TEST(Backoff, DoublesUpToItsCap) {
  const Backoff b{5, 1'000'000, 5'000'000};
  EXPECT_EQ(b.DelayUs(1), 1'000'000);
  EXPECT_EQ(b.DelayUs(2), 2'000'000);
  EXPECT_EQ(b.DelayUs(3), 4'000'000);
  EXPECT_EQ(b.DelayUs(4), 5'000'000);
  EXPECT_EQ(b.DelayUs(30), 5'000'000);
}

// Answers from a script; records each PUT's checksum header.
class FakeTransport : public PutTransport {
 public:
  PutResult Put(const std::string&, int fd, std::uint64_t bytes,
                const std::string& checksum) override {
    checksums.push_back(checksum);
    hashes.push_back(Hex(*Sha256OfFile(fd, bytes)));
    if (on_put) on_put();
    if (script.empty()) return {true, 200, "", false};
    PutResult r = script.front();
    script.pop_front();
    return r;
  }
  std::deque<PutResult> script;
  std::vector<std::string> checksums, hashes;
  std::function<void()> on_put;
};

class FakeClock : public UploadClock {
 public:
  std::int64_t WallSeconds() override { return 1'700'000'000 + us / 1'000'000; }
  std::int64_t MonotonicMicros() override { return us; }
  bool Sleep(std::int64_t delay) override {
    slept.push_back(delay);
    us += delay;
    return true;
  }
  std::int64_t us = 0;
  std::vector<std::int64_t> slept;
};

class Run : public Dir {
 protected:
  std::vector<UploadReport> Upload(const std::string& name, std::int64_t expires_in_s = 600) {
    UploadJob job{
        {"job-1", name, "https://h/k", 1'700'000'000 + expires_in_s, true}, dir_, 1 << 20, false};
    std::vector<UploadReport> reports;
    RunUpload(job, transport, clock, Backoff{4, 1'000'000, 60'000'000},
              [&](const UploadReport& r) { reports.push_back(r); });
    return reports;
  }
  std::vector<State> States(const std::vector<UploadReport>& reports) {
    std::vector<State> states;
    for (const UploadReport& r : reports) states.push_back(r.state);
    return states;
  }
  FakeTransport transport;
  FakeClock clock;
};

TEST_F(Run, A500ThenADroppedConnectionAreRetriedWithBackoffUntilOk) {
  Write("bb.mcap", "black box bytes");
  transport.script = {{false, 500, "HTTP 500: try again", true},
                      {false, 0, "Connection reset by peer", true}};
  const auto reports = Upload("bb.mcap");
  EXPECT_EQ(States(reports),
            (std::vector<State>{State::kUploading, State::kRetrying, State::kUploading,
                                State::kRetrying, State::kUploading, State::kOk}));
  EXPECT_EQ(clock.slept, (std::vector<std::int64_t>{1'000'000, 2'000'000}));
  EXPECT_EQ(reports[1].http_status, 500);
  EXPECT_EQ(reports[1].retry_in_ms, 1000);
  const UploadReport& ok = reports.back();
  EXPECT_EQ(ok.attempt, 3);
  EXPECT_EQ(ok.bytes, 15u);
  EXPECT_EQ(ok.sha256, Hex(Sha256Of("black box bytes")));
  EXPECT_DOUBLE_EQ(ok.seconds, 3.0);
  for (const std::string& c : transport.checksums)
    EXPECT_EQ(c, Base64(Sha256Of("black box bytes")));
  EXPECT_EQ(ReportJson(ok),
            R"({"type":"upload","id":"job-1","state":"ok","file":"bb.mcap","bytes":15,)"
            R"("sha256":")" +
                ok.sha256 + R"(","attempt":3,"seconds":3.000000})");
}

TEST_F(Run, A403EndsTheJobAtOnce) {
  Write("bb.mcap", "x");
  transport.script = {{false, 403, "HTTP 403: SignatureDoesNotMatch", false}};
  const auto reports = Upload("bb.mcap");
  EXPECT_EQ(States(reports), (std::vector<State>{State::kUploading, State::kError}));
  EXPECT_EQ(reports.back().http_status, 403);
  EXPECT_NE(ReportJson(reports.back()).find(R"("http_status":403,"reason":"HTTP 403: Sig)"),
            std::string::npos);
}

TEST_F(Run, GivesUpAfterMaxAttempts) {
  Write("bb.mcap", "x");
  transport.script.assign(10, {false, 503, "HTTP 503", true});
  const auto reports = Upload("bb.mcap");
  EXPECT_EQ(transport.hashes.size(), 4u);
  EXPECT_EQ(reports.back().state, State::kError);
  EXPECT_EQ(reports.back().attempt, 4);
}

TEST_F(Run, NeverRetriesPastTheUrlsExpiry) {
  Write("bb.mcap", "x");
  transport.script.assign(10, {false, 503, "HTTP 503", true});
  const auto reports = Upload("bb.mcap", 3);  // fails at 0 s and 1 s; the next would be at 3 s
  EXPECT_EQ(transport.hashes.size(), 2u);
  EXPECT_NE(reports.back().reason.find("expires"), std::string::npos);
}

TEST_F(Run, AFileThatChangesBetweenAttemptsIsNotSent) {
  Write("bb.mcap", "first");
  transport.script = {{false, 500, "HTTP 500", true}};
  transport.on_put = [&] { Write("bb.mcap", "first and more"); };
  const auto reports = Upload("bb.mcap");
  EXPECT_EQ(transport.hashes.size(), 1u);
  EXPECT_EQ(reports.back().state, State::kError);
  EXPECT_NE(reports.back().reason.find("changed"), std::string::npos);
}

TEST_F(Run, TheSizeCapAndASymlinkRefuseBeforeAnyPut) {
  Write("big.mcap", std::string((1 << 20) + 1, 'b'));
  EXPECT_NE(Upload("big.mcap").back().reason.find("cap"), std::string::npos);
  ASSERT_EQ(::symlink("/etc/passwd", (dir_ + "/link.mcap").c_str()), 0);
  EXPECT_NE(Upload("link.mcap").back().reason.find("symbolic link"), std::string::npos);
  EXPECT_TRUE(transport.hashes.empty());
}

// ---- the desk

RecordingListing Listing(std::vector<RecordingListing::File> boxes, bool writing = false,
                         std::string recording = "") {
  return {"/rec", writing, std::move(recording), std::move(boxes), {}};
}

UploadRequest Ask(const std::string& file) {
  return {"j", file, "https://h/k", 2'000'000'000, true};
}

TEST(BlackboxDesk, LatestIsTheNewestClosedBlackBox) {
  BlackboxDesk desk(AnnouncePolicy::kOff, 100);
  EXPECT_FALSE(desk.ShouldList(0));  // nothing waiting, nothing to announce
  ASSERT_TRUE(desk.Request(Ask("latest")));
  EXPECT_TRUE(desk.ShouldList(0));
  EXPECT_FALSE(desk.ShouldList(1));  // asked already
  const auto out = desk.OnListing(Listing({{"a.mcap", 5, "fault", 1}, {"b.mcap", 6, "fault", 2}}));
  ASSERT_EQ(out.jobs.size(), 1u);
  EXPECT_EQ(out.jobs[0].request.file, "b.mcap");
  EXPECT_EQ(out.jobs[0].directory, "/rec");
  EXPECT_FALSE(out.jobs[0].announce_only);
}

TEST(BlackboxDesk, TheBlackBoxBeingWrittenAndTheOpenRecordingAreRefused) {
  BlackboxDesk desk(AnnouncePolicy::kOff, 100);
  desk.Request(Ask("latest"));
  desk.Request(Ask("b.mcap"));
  desk.Request(Ask("a.mcap"));
  desk.Request(Ask("rec-1.mcap"));
  desk.ShouldList(0);
  const auto out = desk.OnListing(
      Listing({{"a.mcap", 5, "fault", 1}, {"b.mcap", 6, "fault", 2}}, true, "/rec/rec-1.mcap"));
  ASSERT_EQ(out.refusals.size(), 3u);
  EXPECT_NE(out.refusals[0].reason.find("still writing"), std::string::npos);
  EXPECT_NE(out.refusals[1].reason.find("still writing"), std::string::npos);
  EXPECT_NE(out.refusals[2].reason.find("recording"), std::string::npos);
  ASSERT_EQ(out.jobs.size(), 1u);
  EXPECT_EQ(out.jobs[0].request.file, "a.mcap");
}

// M3 (issue 38): a name robot-edged did not list (a token file, any other file of the
// directory) is refused before anything is opened; a listed black box still goes.
TEST(BlackboxDesk, OnlyAFileRobotEdgedListsIsUploaded) {
  BlackboxDesk desk(AnnouncePolicy::kOff, 100);
  desk.Request(Ask("token"));
  desk.Request(Ask("fleet.key"));
  desk.Request(Ask("a.mcap"));
  desk.ShouldList(0);
  const auto out = desk.OnListing(Listing({{"a.mcap", 5, "fault", 1}}));
  ASSERT_EQ(out.refusals.size(), 2u);
  EXPECT_EQ(out.refusals[0].file, "token");
  EXPECT_NE(out.refusals[0].reason.find("does not offer"), std::string::npos)
      << out.refusals[0].reason;
  EXPECT_EQ(out.refusals[1].file, "fleet.key");
  ASSERT_EQ(out.jobs.size(), 1u);
  EXPECT_EQ(out.jobs[0].request.file, "a.mcap");
}

// Issue 38 item 4: robot-edged offers its recordings too (RecorderResult.recording_files); a
// listed one uploads, the open one does not, nor a name of the pattern it does not list.
TEST(BlackboxDesk, ARecordingRobotEdgedListsIsUploadedButNotTheOpenOne) {
  BlackboxDesk desk(AnnouncePolicy::kAll, 100);
  desk.Request(Ask("robot-edge_20240501-120000_000001.mcap"));
  desk.Request(Ask("robot-edge_20240501-130000_000002.mcap"));
  desk.Request(Ask("robot-edge_20240501-140000_000009.mcap"));
  desk.ShouldList(0);
  RecordingListing listing = Listing({}, false, "/rec/robot-edge_20240501-130000_000002.mcap");
  listing.recordings = {{"robot-edge_20240501-120000_000001.mcap", 7, "", 0},
                        {"robot-edge_20240501-130000_000002.mcap", 3, "", 0}};
  const auto out = desk.OnListing(listing);
  ASSERT_EQ(out.jobs.size(), 1u) << "and no announcement of recordings";
  EXPECT_EQ(out.jobs[0].request.file, "robot-edge_20240501-120000_000001.mcap");
  EXPECT_FALSE(out.jobs[0].announce_only);
  ASSERT_EQ(out.refusals.size(), 2u);
  EXPECT_NE(out.refusals[0].reason.find("recording robot-edged is writing"), std::string::npos)
      << out.refusals[0].reason;
  EXPECT_NE(out.refusals[1].reason.find("does not offer"), std::string::npos)
      << out.refusals[1].reason;
}

// Red team round five, F2: a black box cut short (robot-edged names it "….mcap.partial") is
// neither "latest" nor announced; asked for by name, it is uploaded as what it is.
TEST(BlackboxDesk, APartialBlackBoxIsNeitherLatestNorAnnounced) {
  BlackboxDesk desk(AnnouncePolicy::kAll, 100);
  desk.Restore({"a.mcap"});
  desk.Request(Ask("latest"));
  desk.Request(Ask("b.mcap.partial"));
  desk.ShouldList(0);
  const auto out = desk.OnListing(Listing({{"a.mcap", 5, "fault", 1},
                                           {"b.mcap.partial", 6, "fault", 2},
                                           {"c.mcap.partial", 6, "fault", 3}}));
  EXPECT_TRUE(out.refusals.empty());
  ASSERT_EQ(out.jobs.size(), 2u) << "no announcement of b or c";
  EXPECT_EQ(out.jobs[0].request.file, "a.mcap");
  EXPECT_EQ(out.jobs[1].request.file, "b.mcap.partial");
  EXPECT_FALSE(out.jobs[1].announce_only);
  EXPECT_EQ(
      desk.OnListing(Listing({{"a.mcap", 5, "fault", 1}, {"c.mcap", 6, "fault", 3}})).jobs.size(),
      1u)
      << "announced once whole";
  // While the newest is being written, "latest" waits for it rather than taking an older one.
  desk.Request(Ask("latest"));
  desk.ShouldList(0);
  const auto writing =
      desk.OnListing(Listing({{"a.mcap", 5, "fault", 1}, {"d.mcap.partial", 6, "fault", 4}}, true));
  ASSERT_EQ(writing.refusals.size(), 1u);
  EXPECT_NE(writing.refusals[0].reason.find("still writing"), std::string::npos)
      << writing.refusals[0].reason;
}

TEST(BlackboxDesk, NewAlertBlackBoxesAreAnnouncedOnceAfterTheBaseline) {
  BlackboxDesk desk(AnnouncePolicy::kAlerts, 100);
  EXPECT_TRUE(desk.ShouldList(0));
  EXPECT_TRUE(desk.OnListing(Listing({{"old.mcap", 1, "fault", 1}})).jobs.empty());
  EXPECT_FALSE(desk.ShouldList(BlackboxDesk::kListPeriodUs - 1));
  EXPECT_TRUE(desk.ShouldList(BlackboxDesk::kListPeriodUs));
  auto out = desk.OnListing(Listing({{"old.mcap", 1, "fault", 1},
                                     {"op.mcap", 1, "manual-operator", 2},
                                     {"new.mcap", 1, "overcurrent", 3}},
                                    true));
  EXPECT_TRUE(out.jobs.empty());  // new.mcap is still being written
  desk.ShouldList(2 * BlackboxDesk::kListPeriodUs);
  out = desk.OnListing(Listing({{"old.mcap", 1, "fault", 1},
                                {"op.mcap", 1, "manual-operator", 2},
                                {"new.mcap", 1, "overcurrent", 3}}));
  ASSERT_EQ(out.jobs.size(), 1u);
  EXPECT_EQ(out.jobs[0].request.file, "new.mcap");
  EXPECT_TRUE(out.jobs[0].announce_only);
  desk.ShouldList(3 * BlackboxDesk::kListPeriodUs);
  EXPECT_TRUE(desk.OnListing(Listing({{"new.mcap", 1, "overcurrent", 3}})).jobs.empty());
}

// A restarted uplink (Restore: what the previous run had seen): no baseline, so a black box
// written while it was down is announced; the ones seen before are not; names of deleted files
// are dropped from the set, which is then to be saved.
TEST(BlackboxDesk, AfterARestartABlackBoxWrittenMeanwhileIsAnnounced) {
  BlackboxDesk desk(AnnouncePolicy::kAlerts, 100);
  desk.Restore({"old.mcap", "gone.mcap"});
  desk.ShouldList(0);
  const auto out = desk.OnListing(
      Listing({{"old.mcap", 1, "fault", 1}, {"while-down.mcap", 1, "overcurrent", 2}}));
  ASSERT_EQ(out.jobs.size(), 1u);
  EXPECT_EQ(out.jobs[0].request.file, "while-down.mcap");
  EXPECT_TRUE(out.jobs[0].announce_only);
  EXPECT_TRUE(desk.TakeKnownChanged());
  EXPECT_FALSE(desk.TakeKnownChanged());
  EXPECT_EQ(desk.known(), (std::set<std::string>{"old.mcap", "while-down.mcap"}));
}

// The first run ever: its baseline is saved even when empty, so that the next run has one.
TEST(BlackboxDesk, TheFirstBaselineIsSavedEvenWhenEmpty) {
  BlackboxDesk desk(AnnouncePolicy::kAll, 100);
  desk.ShouldList(0);
  EXPECT_TRUE(desk.OnListing(Listing({})).jobs.empty());
  EXPECT_TRUE(desk.TakeKnownChanged());
  desk.ShouldList(BlackboxDesk::kListPeriodUs);
  desk.OnListing(Listing({}));
  EXPECT_FALSE(desk.TakeKnownChanged());
}

TEST_F(Dir, TheAnnouncedSetIsWrittenWholeAndReadBack) {
  const std::string path = dir_ + "/announced";
  EXPECT_FALSE(ReadAnnounced(path));  // first run: none
  ASSERT_TRUE(WriteAnnounced(path, {"a.mcap", "b\nc.mcap", "d.mcap"}));
  EXPECT_EQ(ReadAnnounced(path), (std::set<std::string>{"a.mcap", "d.mcap"}));
  ASSERT_TRUE(WriteAnnounced(path, {}));
  EXPECT_EQ(ReadAnnounced(path), std::set<std::string>{});
  EXPECT_FALSE(std::ifstream(path + ".new").good());
}

TEST(BlackboxDesk, AFailedListingRefusesWhatWaitedAndTheQueueIsBounded) {
  BlackboxDesk desk(AnnouncePolicy::kOff, 100);
  for (std::size_t i = 0; i < BlackboxDesk::kMaxWaiting; ++i) ASSERT_TRUE(desk.Request(Ask("a")));
  EXPECT_FALSE(desk.Request(Ask("a")));
  desk.ShouldList(0);
  const auto out = desk.OnListingFailed("robot-edged: no recorder");
  EXPECT_EQ(out.refusals.size(), BlackboxDesk::kMaxWaiting);
  EXPECT_TRUE(desk.Request(Ask("a")));
  EXPECT_TRUE(desk.ShouldList(1));  // not stuck waiting for the lost answer
}

}  // namespace
}  // namespace robot_edge::uplink

namespace robot_edge::uplink {
namespace {

// Blocks in Put() until the Uploader aborts it (its destructor) or `release` is set.
class BlockingTransport : public PutTransport {
 public:
  BlockingTransport(const std::atomic<bool>* abort, std::atomic<int>* started,
                    std::atomic<bool>* release)
      : abort_(abort), started_(started), release_(release) {}
  PutResult Put(const std::string&, int, std::uint64_t, const std::string&) override {
    ++*started_;
    while (!*abort_ && !*release_) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return *release_ ? PutResult{true, 200, "", false} : PutResult{false, 0, "aborted", false};
  }

 private:
  const std::atomic<bool>* abort_;
  std::atomic<int>* started_;
  std::atomic<bool>* release_;
};

TEST_F(Dir, TheUploaderRunsOneJobAtATimeBoundsItsQueueAndStopsAMidwayPut) {
  Write("a.mcap", "a");
  std::atomic<int> started{0};
  std::atomic<bool> release{false};
  const UploadJob job{{"j", "a.mcap", "https://h/k", 4'000'000'000, true}, dir_, 100, false};
  auto uploader = std::make_unique<Uploader>(
      [&](const std::atomic<bool>* abort) {
        return std::make_unique<BlockingTransport>(abort, &started, &release);
      },
      2, Backoff{});
  ASSERT_TRUE(uploader->Submit(job));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (started == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(started, 1);
  EXPECT_TRUE(uploader->Submit(job));   // queued: 1 of 2
  EXPECT_TRUE(uploader->Submit(job));   // queued: 2 of 2
  EXPECT_FALSE(uploader->Submit(job));  // the bound
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(started, 1) << "one PUT at a time";
  EXPECT_FALSE(uploader->Idle());
  const auto stop_begin = std::chrono::steady_clock::now();
  uploader.reset();  // aborts the PUT in progress, drops the queue
  EXPECT_LT(std::chrono::steady_clock::now() - stop_begin, std::chrono::seconds(5));
  EXPECT_EQ(started, 1);
}

}  // namespace
}  // namespace robot_edge::uplink
