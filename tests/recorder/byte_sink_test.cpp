// FileSink and ReadWholeFile over real files: bytes counted, errno text on failure (a missing
// directory, a full disk: /dev/full), and the writer reporting a full disk mid-recording.
#include "recorder/byte_sink.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "recorder/mcap_writer.hpp"
#include "test_util.hpp"

namespace robot_edge::recorder {
namespace {

using test::ToBytes;

TEST(FileSink, WritesCountsSyncsAndReadsBack) {
  const std::string path = ::testing::TempDir() + "recorder_file_sink.bin";
  FileSink sink;
  EXPECT_FALSE(sink.is_open());
  ASSERT_TRUE(sink.Open(path)) << sink.error();
  EXPECT_TRUE(sink.is_open());
  ASSERT_TRUE(sink.Write(ToBytes("hello ")));
  ASSERT_TRUE(sink.Write(ToBytes("world")));
  ASSERT_TRUE(sink.Write({}));
  EXPECT_EQ(sink.bytes_written(), 11u);
  EXPECT_TRUE(sink.Sync()) << sink.error();
  EXPECT_TRUE(sink.Close()) << sink.error();
  EXPECT_FALSE(sink.is_open());
  std::vector<std::uint8_t> bytes;
  std::string error;
  ASSERT_TRUE(ReadWholeFile(path, &bytes, &error)) << error;
  EXPECT_EQ(bytes, ToBytes("hello world"));
  // Open truncates.
  ASSERT_TRUE(sink.Open(path));
  EXPECT_EQ(sink.bytes_written(), 0u);
  sink.Close();
  ASSERT_TRUE(ReadWholeFile(path, &bytes, &error));
  EXPECT_TRUE(bytes.empty());
  std::remove(path.c_str());
}

TEST(FileSink, ReportsErrnoText) {
  FileSink sink;
  EXPECT_FALSE(sink.Open("/nonexistent-dir/x.mcap"));
  EXPECT_EQ(sink.error(), "open /nonexistent-dir/x.mcap: No such file or directory");
  EXPECT_FALSE(sink.Write(ToBytes("x")));
  EXPECT_NE(sink.error().find("Bad file descriptor"), std::string::npos) << sink.error();
  std::vector<std::uint8_t> bytes;
  std::string error;
  EXPECT_FALSE(ReadWholeFile("/nonexistent-dir/x.mcap", &bytes, &error));
  EXPECT_EQ(error, "open /nonexistent-dir/x.mcap: No such file or directory");
}

TEST(FileSink, FullDisk) {
  FileSink sink;
  ASSERT_TRUE(sink.Open("/dev/full")) << sink.error();
  EXPECT_FALSE(sink.Write(ToBytes("x")));
  EXPECT_EQ(sink.error(), "write /dev/full: No space left on device");
}

// The writer on a full disk: its first write fails (the magic), and Write says why, no throw.
TEST(FileSink, WriterOnAFullDisk) {
  FileSink sink;
  ASSERT_TRUE(sink.Open("/dev/full"));
  McapWriterOptions o;
  o.chunk_size = 100;
  McapWriter w(sink, o);
  EXPECT_FALSE(w.ok());
  EXPECT_FALSE(w.Write(1, 0, 0, 0, ToBytes("x")));
  EXPECT_NE(w.error().find("No space left on device"), std::string::npos) << w.error();
  EXPECT_FALSE(w.Close());
}

TEST(FileSink, DescriptorIsCloseOnExec) {
  const std::string path = ::testing::TempDir() + "recorder_cloexec.bin";
  FileSink sink;
  ASSERT_TRUE(sink.Open(path));
  // Find the sink's descriptor among the process's open ones by its path.
  bool found = false;
  for (int fd = 3; fd < 1024 && !found; ++fd) {
    char link[64];
    char target[4096];
    std::snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    const ssize_t n = ::readlink(link, target, sizeof(target) - 1);
    if (n <= 0) continue;
    target[n] = '\0';
    if (std::string(target) != path) continue;
    found = true;
    EXPECT_TRUE(::fcntl(fd, F_GETFD) & FD_CLOEXEC);
  }
  EXPECT_TRUE(found);
  sink.Close();
  std::remove(path.c_str());
}

mode_t ModeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// Recordings hold the robot's commands: 0640, whatever the umask lets through and whatever mode
// a file of the same name had.
TEST(FileSink, CreatesRecordingsOwnerWriteGroupRead) {
  const std::string path = ::testing::TempDir() + "recorder_mode.mcap";
  std::remove(path.c_str());
  const mode_t umask_before = ::umask(0);  // the widest: only kFileMode limits the mode
  FileSink sink;
  ASSERT_TRUE(sink.Open(path)) << sink.error();
  sink.Close();
  EXPECT_EQ(ModeOf(path), 0640u);
  ASSERT_EQ(::chmod(path.c_str(), 0666), 0);  // a file left by an older version
  ASSERT_TRUE(sink.Open(path)) << sink.error();
  sink.Close();
  EXPECT_EQ(ModeOf(path), 0640u);
  ::umask(umask_before);
  std::remove(path.c_str());
}

// A link planted where the next recording goes is refused, and its target left untouched.
TEST(FileSink, NeverFollowsASymbolicLink) {
  const std::string target = ::testing::TempDir() + "recorder_link_target";
  const std::string link = ::testing::TempDir() + "recorder_link.mcap";
  std::remove(link.c_str());
  { std::ofstream(target) << "precious"; }
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  FileSink sink;
  EXPECT_FALSE(sink.Open(link));
  EXPECT_EQ(sink.error(),
            "open " + link + ": a symbolic link (refused: recordings never follow links)");
  std::vector<std::uint8_t> bytes;
  std::string error;
  ASSERT_TRUE(ReadWholeFile(target, &bytes, &error)) << error;
  EXPECT_EQ(bytes, ToBytes("precious"));
  std::remove(link.c_str());
  std::remove(target.c_str());
}

}  // namespace
}  // namespace robot_edge::recorder
