// RotatingRecorder (rotating_recorder.hpp) over an in-memory file system: rotation by size and by
// age with sortable unique names, retention by bytes and by count that deletes only our oldest
// files, a disk that fills, a write that fails, a directory that vanishes, restart, and files
// that stand alone, whole or cut mid-write. Time is passed in: 2024-05-01 12:00:00 UTC onwards.
#include "recorder/rotating_recorder.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "fake_file_system.hpp"
#include "recorder/file_names.hpp"
#include "test_util.hpp"

namespace robot_edge::recorder {
namespace {

using test::FakeFileSystem;
using test::ReadAll;
using test::ReadBack;

constexpr std::uint64_t kS = 1'000'000'000;
constexpr std::uint64_t kMs = 1'000'000;
constexpr std::uint64_t kT0 = 1'714'564'800 * kS;  // 2024-05-01 12:00:00 UTC
constexpr std::uint64_t kMiB = 1u << 20;
const std::string kDir = "/var/lib/robot-edge/recordings";

std::vector<ChannelInfo> Channels() {
  return {{"/joints", "edge.Joints", "protobuf", std::string("\x0a\x03j.p", 5), "protobuf"},
          {"/log", "", "", "", "json"}};
}

RotatingRecorderOptions Options() {
  RotatingRecorderOptions o;
  o.directory = kDir;
  o.min_free_bytes = kMiB;
  o.mcap.chunk_size = 8 * 1024;
  o.mcap.compression = Compression::kNone;  // file sizes follow the payloads
  o.metadata = {{"robot", {{"name", "h1"}, {"daemon_version", "0.1.0"}}}};
  return o;
}

// Message i: 200 bytes, i in the first four.
std::vector<std::uint8_t> Payload(std::uint32_t i) {
  std::vector<std::uint8_t> p(200);
  for (std::size_t k = 0; k < p.size(); ++k) p[k] = static_cast<std::uint8_t>(i * 7 + k);
  for (int b = 0; b < 4; ++b) p[b] = static_cast<std::uint8_t>(i >> (8 * b));
  return p;
}

// Message i goes on /joints, every 10th on /log too; 500 Hz.
std::uint64_t TimeOf(std::uint32_t i) { return kT0 + i * 2 * kMs; }
std::size_t ChannelOf(std::uint32_t i) { return i % 10 == 9 ? 1 : 0; }

// Writes messages [from, to); returns how many were accepted before the first refusal.
std::uint32_t WriteRange(RotatingRecorder& r, std::uint32_t from, std::uint32_t to) {
  for (std::uint32_t i = from; i < to; ++i) {
    if (!r.Write(ChannelOf(i), TimeOf(i), Payload(i))) return i - from;
  }
  return to - from;
}

ReadBack ReadPath(const FakeFileSystem& fs, const std::string& path) {
  return ReadAll(*fs.files.at(path));
}

// What every file declares, whatever its place in the recording.
void ExpectStandsAlone(const ReadBack& back) {
  ASSERT_EQ(back.schemas.size(), 1u);
  EXPECT_EQ(back.schemas[0].name, "edge.Joints");
  EXPECT_EQ(back.schemas[0].encoding, "protobuf");
  EXPECT_EQ(back.schemas[0].data, test::ToBytes(std::string("\x0a\x03j.p", 5)));
  ASSERT_EQ(back.channels.size(), 2u);
  EXPECT_EQ(back.channels[0].topic, "/joints");
  EXPECT_EQ(back.channels[0].schema_id, 1);
  EXPECT_EQ(back.channels[1].topic, "/log");
  EXPECT_EQ(back.channels[1].schema_id, 0);
  EXPECT_EQ(back.channels[1].message_encoding, "json");
  ASSERT_EQ(back.metadata.size(), 1u);
  EXPECT_EQ(back.metadata[0].name, "robot");
  EXPECT_EQ(back.metadata[0].metadata.at("name"), "h1");
}

// Every message of every file, in file order, against the pattern.
void ExpectMessages(const std::vector<test::Message>& got, std::uint32_t count) {
  ASSERT_EQ(got.size(), count);
  std::uint32_t per_channel[2] = {0, 0};
  for (std::uint32_t i = 0; i < count; ++i) {
    EXPECT_EQ(got[i].log_time_ns, TimeOf(i)) << i;
    EXPECT_EQ(got[i].channel_id, ChannelOf(i) + 1) << i;
    EXPECT_EQ(got[i].sequence, per_channel[ChannelOf(i)]++) << i;  // continuous across files
    EXPECT_EQ(got[i].data, Payload(i)) << i;
  }
}

TEST(RotatingRecorder, RotatesBySizeIntoFilesThatStandAlone) {
  FakeFileSystem fs;
  RotatingRecorderOptions o = Options();
  o.max_file_bytes = 64 * 1024;
  RotatingRecorder r(o, Channels(), fs);
  ASSERT_TRUE(r.Start(kT0)) << r.error();
  ASSERT_EQ(WriteRange(r, 0, 2000), 2000u) << r.error();  // ~450 KB
  r.Stop();
  const std::vector<std::string> names = fs.Names(kDir);
  ASSERT_GE(names.size(), 6u);
  std::vector<test::Message> all;
  for (std::size_t k = 0; k < names.size(); ++k) {
    EXPECT_EQ(ParseRecordingFileName("robot-edge", names[k]), k + 1);  // sorted = recorded
    const std::string path = kDir + "/" + names[k];
    // The limit, passed by at most one chunk and the summary.
    EXPECT_LE(fs.files.at(path)->size(), o.max_file_bytes + o.mcap.chunk_size + 4096) << path;
    const ReadBack back = ReadPath(fs, path);
    EXPECT_EQ(back.status, McapReader::Status::kComplete) << path << ": " << back.error;
    ExpectStandsAlone(back);
    all.insert(all.end(), back.messages.begin(), back.messages.end());
  }
  ExpectMessages(all, 2000);
}

TEST(RotatingRecorder, RotatesByAgeNamedAfterTheFirstMessage) {
  FakeFileSystem fs;
  RotatingRecorderOptions o = Options();
  o.max_file_seconds = 10;
  RotatingRecorder r(o, Channels(), fs);
  ASSERT_TRUE(r.Start(kT0));
  for (std::uint32_t s = 0; s < 35; ++s) ASSERT_TRUE(r.Write(0, kT0 + s * kS + 500 * kMs, {}));
  r.Stop();
  EXPECT_EQ(fs.Names(kDir), (std::vector<std::string>{"robot-edge_20240501-120000_000001.mcap",
                                                      "robot-edge_20240501-120010_000002.mcap",
                                                      "robot-edge_20240501-120020_000003.mcap",
                                                      "robot-edge_20240501-120030_000004.mcap"}));
  // Rotation happens when a message is 10 s after the file's start: 12:00:09.5 is still in the
  // first file, 12:00:10.5 opens the second.
  EXPECT_EQ(ReadPath(fs, kDir + "/robot-edge_20240501-120000_000001.mcap").messages.size(), 10u);
  EXPECT_EQ(ReadPath(fs, kDir + "/robot-edge_20240501-120030_000004.mcap").messages.size(), 5u);
}

TEST(RotatingRecorder, NamesAreUniqueWithinOneSecond) {
  FakeFileSystem fs;
  RotatingRecorderOptions o = Options();
  o.max_file_bytes = 1;  // every Write rotates
  RotatingRecorder r(o, Channels(), fs);
  ASSERT_TRUE(r.Start(kT0));
  ASSERT_EQ(WriteRange(r, 0, 5), 5u);  // all within 10 ms
  r.Stop();
  const std::vector<std::string> names = fs.Names(kDir);
  ASSERT_EQ(names.size(), 6u);
  for (std::size_t k = 0; k < names.size(); ++k) {
    EXPECT_EQ(names[k], RecordingFileName("robot-edge", kT0, k + 1));
  }
}

// Three files of ours from an earlier run, one foreign file of our pattern's look-alike, one
// unrelated file: retention deletes our oldest only, and numbering goes on after the largest n.
class Retention : public ::testing::Test {
 protected:
  void SetUp() override {
    fs_.directories.insert(kDir);
    for (const char* name :
         {"robot-edge_20240430-090000_000001.mcap", "robot-edge_20240430-100000_000002.mcap",
          "robot-edge_20240430-110000_000003.mcap", "notes.txt",
          "other_20240430-080000_000001.mcap", "robot-edge_20240430-080000_000001.mcap.bak"}) {
      fs_.files[kDir + "/" + name] = std::make_shared<FakeFileSystem::Bytes>(100 * 1024);
    }
  }
  bool Exists(const std::string& name) const { return fs_.files.count(kDir + "/" + name) > 0; }
  void ExpectForeignFilesKept() const {
    EXPECT_TRUE(Exists("notes.txt"));
    EXPECT_TRUE(Exists("other_20240430-080000_000001.mcap"));
    EXPECT_TRUE(Exists("robot-edge_20240430-080000_000001.mcap.bak"));
  }
  FakeFileSystem fs_;
};

// What robot-edged offers for upload (issue 38 item 4): our files only, by n, the open one
// included (it is status().file).
TEST_F(Retention, ListNamesOurFilesOnlyOldestFirst) {
  RotatingRecorder r(Options(), Channels(), fs_);
  fs_.files[kDir + "/robot-edge_20240430-120000_000010.mcap"] =
      std::make_shared<FakeFileSystem::Bytes>(7);
  std::vector<std::string> names;
  for (const RotatingRecorder::File& f : r.List()) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"robot-edge_20240430-090000_000001.mcap",
                                             "robot-edge_20240430-100000_000002.mcap",
                                             "robot-edge_20240430-110000_000003.mcap",
                                             "robot-edge_20240430-120000_000010.mcap"}));
  EXPECT_EQ(r.List().back().bytes, 7u);
  std::string error;
  RotatingRecorderOptions elsewhere = Options();
  elsewhere.directory = "/nowhere";
  EXPECT_TRUE(RotatingRecorder(elsewhere, Channels(), fs_).List(&error).empty());
  EXPECT_NE(error.find("/nowhere"), std::string::npos) << error;
}

TEST_F(Retention, ByBytesDeletesOurOldestFirst) {
  RotatingRecorderOptions o = Options();
  o.max_file_bytes = 100 * 1024;
  o.retention_bytes = 300 * 1024;  // two old files and the open one
  RotatingRecorder r(o, Channels(), fs_);
  ASSERT_TRUE(r.Start(kT0)) << r.error();
  EXPECT_FALSE(Exists("robot-edge_20240430-090000_000001.mcap"));
  EXPECT_TRUE(Exists("robot-edge_20240430-100000_000002.mcap"));
  EXPECT_EQ(r.status().file, kDir + "/robot-edge_20240501-120000_000004.mcap");
  EXPECT_EQ(r.status().files_kept, 3u);
  // Two rotations later, only our newest files are left, within the limit.
  ASSERT_EQ(WriteRange(r, 0, 1100), 1100u) << r.error();
  r.Stop();
  std::uint64_t ours = 0;
  std::vector<std::uint64_t> numbers;
  for (const std::string& name : fs_.Names(kDir)) {
    if (const auto n = ParseRecordingFileName("robot-edge", name)) {
      numbers.push_back(*n);
      ours += fs_.files.at(kDir + "/" + name)->size();
    }
  }
  ASSERT_GE(numbers.size(), 2u);
  EXPECT_EQ(numbers.back(), numbers.front() + numbers.size() - 1);  // the newest, contiguous
  EXPECT_GE(numbers.back(), 6u);
  EXPECT_LE(ours, o.retention_bytes + o.mcap.chunk_size + 4096);
  ExpectForeignFilesKept();
}

TEST_F(Retention, ByCountDeletesOurOldestFirst) {
  RotatingRecorderOptions o = Options();
  o.retention_files = 2;  // one old file and the open one
  RotatingRecorder r(o, Channels(), fs_);
  ASSERT_TRUE(r.Start(kT0)) << r.error();
  EXPECT_FALSE(Exists("robot-edge_20240430-090000_000001.mcap"));
  EXPECT_FALSE(Exists("robot-edge_20240430-100000_000002.mcap"));
  EXPECT_TRUE(Exists("robot-edge_20240430-110000_000003.mcap"));
  const RecorderStatus s = r.status();
  EXPECT_EQ(s.files_kept, 2u);
  EXPECT_EQ(s.kept_bytes, 100 * 1024 + s.file_bytes);
  ExpectForeignFilesKept();
}

// Free space falls with every byte written; the periodic check stops the recording with the
// message the operator needs, and the file is closed properly.
TEST(RotatingRecorder, DiskThatFillsStopsRecording) {
  FakeFileSystem fs;
  RotatingRecorderOptions o = Options();
  o.min_free_bytes = 1024 * kMiB;
  o.free_check_bytes = 64 * 1024;
  fs.disk_bytes = 1024 * kMiB + 300 * 1024;
  RotatingRecorder r(o, Channels(), fs);
  ASSERT_TRUE(r.Start(kT0));
  const std::uint32_t accepted = WriteRange(r, 0, 5000);
  ASSERT_LT(accepted, 5000u);
  EXPECT_FALSE(r.recording());
  EXPECT_EQ(r.error(),
            "only 1023 MiB free on " + kDir + " (at least 1024 MiB needed): recording stopped");
  EXPECT_FALSE(r.Write(0, TimeOf(5000), Payload(0)));
  const RecorderStatus s = r.status();
  EXPECT_FALSE(s.recording);
  EXPECT_EQ(s.error, r.error());
  EXPECT_EQ(s.messages_written, accepted);
  EXPECT_EQ(s.messages_lost, 2u);  // the refused one and the one after
  EXPECT_LT(s.free_bytes, 1024 * kMiB);
  const ReadBack back = ReadPath(fs, kDir + "/" + fs.Names(kDir).at(0));
  EXPECT_EQ(back.status, McapReader::Status::kComplete) << back.error;
  ExpectMessages(back.messages, accepted);
}

TEST(RotatingRecorder, TooLittleSpaceAtStart) {
  FakeFileSystem fs;
  RotatingRecorderOptions o = Options();
  o.min_free_bytes = 1024 * kMiB;
  fs.disk_bytes = 812 * kMiB + 5;
  RotatingRecorder r(o, Channels(), fs);
  EXPECT_FALSE(r.Start(kT0));
  EXPECT_EQ(r.error(),
            "only 812 MiB free on " + kDir + " (at least 1024 MiB needed): recording not started");
  EXPECT_TRUE(fs.Names(kDir).empty());
}

TEST(RotatingRecorder, FreeSpaceIsCheckedAtStartRotationAndEveryFewBytes) {
  FakeFileSystem fs;
  RotatingRecorderOptions o = Options();
  o.free_check_bytes = 64 * 1024;
  o.max_file_bytes = 256 * 1024;
  RotatingRecorder r(o, Channels(), fs);
  ASSERT_TRUE(r.Start(kT0));
  EXPECT_EQ(fs.free_calls, 1);
  ASSERT_EQ(WriteRange(r, 0, 1180), 1180u);  // ~260 KB: one rotation
  r.Stop();
  ASSERT_EQ(fs.Names(kDir).size(), 2u);
  // Start, 3 in the first file (at 64, 128, 192 KiB), the rotation, none yet in the second.
  EXPECT_EQ(fs.free_calls, 5);
}

// A write(2) that fails (here: the device is full) stops the recording, nothing thrown; the file
// keeps the chunks written before.
TEST(RotatingRecorder, WriteErrorStopsRecording) {
  FakeFileSystem fs;
  fs.write_limit = 100 * 1024;
  RotatingRecorder r(Options(), Channels(), fs);
  ASSERT_TRUE(r.Start(kT0));
  const std::uint32_t accepted = WriteRange(r, 0, 1000);
  ASSERT_LT(accepted, 1000u);
  const std::string path = kDir + "/robot-edge_20240501-120000_000001.mcap";
  const std::string& why = r.error();
  EXPECT_EQ(why.substr(0, why.find(" bytes")).find("sink failed writing "), 0u) << why;
  EXPECT_NE(why.find(" bytes at file offset " + std::to_string(fs.UsedBytes()) + ": write " + path +
                     ": No space left on device: recording stopped"),
            std::string::npos)
      << why;
  EXPECT_FALSE(r.recording());
  const RecorderStatus s = r.status();
  EXPECT_EQ(s.messages_written + s.messages_lost, accepted + 1);
  EXPECT_GT(s.messages_lost, 1u);  // the failing one and those of its chunk
  const ReadBack back = ReadPath(fs, path);
  EXPECT_EQ(back.status, McapReader::Status::kTruncated);
  ExpectStandsAlone(back);
  EXPECT_GE(back.messages.size(), s.messages_written);
  ExpectMessages(back.messages, static_cast<std::uint32_t>(back.messages.size()));
}

TEST(RotatingRecorder, CloseErrorAtStopIsReported) {
  FakeFileSystem fs;
  RotatingRecorder r(Options(), Channels(), fs);
  ASSERT_TRUE(r.Start(kT0));
  ASSERT_EQ(WriteRange(r, 0, 10), 10u);
  fs.fail_close = true;
  r.Stop();
  EXPECT_EQ(r.error(),
            "close " + kDir + "/robot-edge_20240501-120000_000001.mcap: " + "Input/output error");
}

TEST(RotatingRecorder, DirectoryThatVanishesStopsRecording) {
  FakeFileSystem fs;
  RotatingRecorderOptions o = Options();
  o.free_check_bytes = 16 * 1024;
  RotatingRecorder r(o, Channels(), fs);
  ASSERT_TRUE(r.Start(kT0));
  fs.directories.clear();
  EXPECT_LT(WriteRange(r, 0, 1000), 200u);
  EXPECT_EQ(r.error(), "statvfs " + kDir + ": No such file or directory: recording stopped");
  EXPECT_FALSE(r.recording());
}

TEST(RotatingRecorder, RestartAfterStopOpensANewFile) {
  FakeFileSystem fs;
  RotatingRecorder r(Options(), Channels(), fs);
  ASSERT_TRUE(r.Start(kT0));
  ASSERT_EQ(WriteRange(r, 0, 100), 100u);
  r.Stop();
  EXPECT_FALSE(r.recording());
  EXPECT_FALSE(r.Write(0, TimeOf(100), Payload(100)));
  EXPECT_EQ(r.status().messages_lost, 0u);  // stopped on purpose: nothing counted lost
  ASSERT_TRUE(r.Start(kT0 + 5 * kS));
  EXPECT_TRUE(r.recording());
  EXPECT_EQ(r.status().file, kDir + "/robot-edge_20240501-120005_000002.mcap");
  ASSERT_EQ(WriteRange(r, 0, 50), 50u);
  r.Stop();
  for (const std::string& name : fs.Names(kDir)) {
    const ReadBack back = ReadPath(fs, kDir + "/" + name);
    EXPECT_EQ(back.status, McapReader::Status::kComplete);
    ExpectStandsAlone(back);
  }
  // And after a failure too.
  fs.not_writable = "Read-only file system";
  EXPECT_FALSE(r.Start(kT0 + 10 * kS));
  EXPECT_EQ(r.error(), kDir + " is not writable: Read-only file system: recording not started");
  fs.not_writable.reset();
  EXPECT_TRUE(r.Start(kT0 + 11 * kS));
  EXPECT_EQ(r.status().error, "");
  EXPECT_EQ(r.status().file, kDir + "/robot-edge_20240501-120011_000003.mcap");
}

// What a killed process leaves: every byte handed to write(2), no summary. The reader gets the
// declarations and the messages of every complete chunk, at any cut.
TEST(RotatingRecorder, FileCutMidWriteYieldsItsCompleteChunks) {
  FakeFileSystem fs;
  RotatingRecorder r(Options(), Channels(), fs);
  ASSERT_TRUE(r.Start(kT0));
  ASSERT_EQ(WriteRange(r, 0, 777), 777u);
  const FakeFileSystem::Bytes left = *fs.files.begin()->second;  // killed here
  const ReadBack back = ReadAll(left);
  EXPECT_EQ(back.status, McapReader::Status::kTruncated) << back.error;
  ExpectStandsAlone(back);
  EXPECT_GT(back.messages.size(), 600u);  // all but the open chunk (~36 messages)
  ExpectMessages(back.messages, static_cast<std::uint32_t>(back.messages.size()));
  for (std::size_t cut = 1000; cut < left.size(); cut += 997) {
    const ReadBack part = ReadAll(std::span(left).first(cut));
    EXPECT_EQ(part.status, McapReader::Status::kTruncated) << cut;
    ExpectMessages(part.messages, static_cast<std::uint32_t>(part.messages.size()));
  }
}

TEST(RotatingRecorder, UnknownChannelIsRefusedRecordingGoesOn) {
  FakeFileSystem fs;
  RotatingRecorder r(Options(), Channels(), fs);
  ASSERT_TRUE(r.Start(kT0));
  EXPECT_FALSE(r.Write(2, kT0, Payload(0)));
  EXPECT_EQ(r.error(), "Write: unknown channel 2");
  EXPECT_TRUE(r.recording());
  EXPECT_TRUE(r.Write(0, kT0, Payload(0)));
  const RecorderStatus s = r.status();
  EXPECT_EQ(s.messages_written, 1u);
  EXPECT_EQ(s.messages_lost, 1u);
  EXPECT_EQ(s.file_messages, 1u);
}

TEST(RotatingRecorder, StartErrorsSayWhatIsWrong) {
  FakeFileSystem fs;
  fs.not_writable = "Permission denied";
  RotatingRecorder r(Options(), Channels(), fs);
  EXPECT_FALSE(r.Start(kT0));
  EXPECT_EQ(r.error(), kDir + " is not writable: Permission denied: recording not started");
  EXPECT_FALSE(r.recording());

  RotatingRecorderOptions o = Options();
  o.retention_bytes = 10;
  o.max_file_bytes = 20;
  EXPECT_EQ(ValidateRotatingRecorderOptions(o),
            "retention_bytes (10) is less than max_file_bytes (20)");
  RotatingRecorder bad(o, Channels(), fs);
  EXPECT_FALSE(bad.Start(kT0));
  EXPECT_EQ(bad.error(),
            "retention_bytes (10) is less than max_file_bytes (20): recording not started");
  o = Options();
  o.prefix = "a/b";
  EXPECT_EQ(ValidateRotatingRecorderOptions(o),
            "prefix \"a/b\" is not a file name prefix ([A-Za-z0-9._-]+)");
  o = Options();
  o.directory = "";
  EXPECT_EQ(ValidateRotatingRecorderOptions(o), "directory is empty");
  EXPECT_EQ(ValidateRotatingRecorderOptions(Options()), "");
}

}  // namespace
}  // namespace robot_edge::recorder
