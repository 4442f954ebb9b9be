// PosixFileSystem (file_system.hpp) on a real directory: creation with mode 0750, the error
// texts for a path that is a file, a missing parent, a directory that cannot be written; listing
// and removal; then a RotatingRecorder on it end to end, and its steady-state Write allocating
// nothing (free-space checks included).
#include "recorder/file_system.hpp"

#include <gtest/gtest.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "allocation_counter.hpp"
#include "recorder/rotating_recorder.hpp"
#include "test_util.hpp"

namespace robot_edge::recorder {
namespace {

namespace stdfs = std::filesystem;
constexpr std::uint64_t kT0 = 1'714'564'800'000'000'000ull;  // 2024-05-01 12:00:00 UTC

class PosixFileSystemTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = stdfs::path(::testing::TempDir()) /
            ("recorder_fs_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    stdfs::remove_all(root_);
    stdfs::create_directories(root_);
  }
  void TearDown() override { stdfs::remove_all(root_); }
  std::string Path(const std::string& name) const { return (root_ / name).string(); }

  stdfs::path root_;
  PosixFileSystem fs_;
  std::string error_;
};

TEST_F(PosixFileSystemTest, CreatesTheDirectoryWithMode0750) {
  const mode_t old_umask = ::umask(077);  // stricter than asked: the mode is still 0750
  const bool ok = fs_.EnsureDirectory(Path("rec"), &error_);
  ::umask(old_umask);
  ASSERT_TRUE(ok) << error_;
  struct stat st {};
  ASSERT_EQ(::stat(Path("rec").c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0750u);
  EXPECT_TRUE(fs_.EnsureDirectory(Path("rec"), &error_)) << error_;  // already there: fine
}

// Red team round six, F2 and F3: a FIFO planted at the next dump's name blocked the recorder
// thread for good (open(2) waits for a reader), and a hard link there had the dump overwrite
// the file it shared. Create makes a new file only: both refused at once, the target intact.
TEST_F(PosixFileSystemTest, CreateNeverOpensAnythingAlreadyThere) {
  ASSERT_EQ(::mkfifo(Path("fifo.mcap.partial").c_str(), 0600), 0);
  EXPECT_EQ(fs_.Create(Path("fifo.mcap.partial"), &error_), nullptr);  // would block before
  EXPECT_EQ(error_, "open " + Path("fifo.mcap.partial") +
                        ": File exists (refused: recordings are only written to a new file)");
  std::ofstream(Path("precious.mcap")) << "precious";
  ASSERT_EQ(::link(Path("precious.mcap").c_str(), Path("link.mcap.partial").c_str()), 0);
  EXPECT_EQ(fs_.Create(Path("link.mcap.partial"), &error_), nullptr);
  std::ifstream in(Path("precious.mcap"));
  std::string kept;
  in >> kept;
  EXPECT_EQ(kept, "precious");
  EXPECT_NE(fs_.Create(Path("new.mcap.partial"), &error_), nullptr) << error_;
}

TEST_F(PosixFileSystemTest, ErrorsNameThePath) {
  std::ofstream(Path("file")) << "x";
  EXPECT_FALSE(fs_.EnsureDirectory(Path("file"), &error_));
  EXPECT_EQ(error_, Path("file") + " is not a directory");
  EXPECT_FALSE(fs_.EnsureDirectory(Path("missing/rec"), &error_));
  EXPECT_EQ(error_, "cannot create " + Path("missing/rec") + ": No such file or directory");
  std::uint64_t free_bytes = 0;
  EXPECT_FALSE(fs_.FreeBytes(Path("missing"), &free_bytes, &error_));
  EXPECT_EQ(error_, "statvfs " + Path("missing") + ": No such file or directory");
  std::vector<FileEntry> entries;
  EXPECT_FALSE(fs_.List(Path("missing"), &entries, &error_));
  EXPECT_EQ(error_, "opendir " + Path("missing") + ": No such file or directory");
  EXPECT_FALSE(fs_.Remove(Path("missing"), &error_));
  EXPECT_EQ(error_, "unlink " + Path("missing") + ": No such file or directory");
  EXPECT_EQ(fs_.Create(Path("missing/x.mcap"), &error_), nullptr);
  EXPECT_EQ(error_, "open " + Path("missing/x.mcap") + ": No such file or directory");
}

// Root writes into a 0500 directory anyway (CAP_DAC_OVERRIDE): as root (CI), the check runs in
// a child that has dropped that capability, as robot-edged's service does not have it either.
void DropDacOverride() {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (::syscall(SYS_capget, &header, data) != 0) ::_exit(3);
  // Permitted too: access(2) checks a root caller against its permitted set.
  data[0].effective &= ~(1u << CAP_DAC_OVERRIDE);
  data[0].permitted &= ~(1u << CAP_DAC_OVERRIDE);
  if (::syscall(SYS_capset, &header, data) != 0) ::_exit(3);
}

TEST_F(PosixFileSystemTest, ReadOnlyDirectoryIsNotWritable) {
  ASSERT_TRUE(fs_.EnsureDirectory(Path("ro"), &error_));
  ::chmod(Path("ro").c_str(), 0500);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // no gtest assertion here: the exit status says it
    if (::geteuid() == 0) DropDacOverride();
    std::string error;
    const bool writable = fs_.EnsureDirectory(Path("ro"), &error);
    ::_exit(writable ? 1 : error == Path("ro") + " is not writable: Permission denied" ? 0 : 2);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ::chmod(Path("ro").c_str(), 0700);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: reported writable; 2: another error text; 3: capset";
}

TEST_F(PosixFileSystemTest, ListsRegularFilesAndRemoves) {
  std::ofstream(Path("a.mcap")) << "abc";
  stdfs::create_directory(Path("sub"));
  std::vector<FileEntry> entries;
  ASSERT_TRUE(fs_.List(root_.string(), &entries, &error_)) << error_;
  ASSERT_EQ(entries.size(), 1u);  // not "sub", ".", ".."
  EXPECT_EQ(entries[0].name, "a.mcap");
  EXPECT_EQ(entries[0].bytes, 3u);
  EXPECT_TRUE(fs_.Remove(Path("a.mcap"), &error_));
  EXPECT_FALSE(stdfs::exists(Path("a.mcap")));
  std::uint64_t free_bytes = 0;
  EXPECT_TRUE(fs_.FreeBytes(root_.string(), &free_bytes, &error_));
  EXPECT_GT(free_bytes, 0u);
}

std::vector<ChannelInfo> OneChannel() { return {{"/joints", "J", "jsonschema", "{}", "json"}}; }

TEST_F(PosixFileSystemTest, RecorderMakesItsDirectoryAndReadableFiles) {
  RotatingRecorderOptions o;
  o.directory = Path("recordings");
  o.min_free_bytes = 0;
  RotatingRecorder r(o, OneChannel(), fs_);
  ASSERT_TRUE(r.Start(kT0)) << r.error();
  EXPECT_TRUE(stdfs::is_directory(o.directory));
  const std::vector<std::uint8_t> payload(300, 7);
  for (std::uint32_t i = 0; i < 1000; ++i) ASSERT_TRUE(r.Write(0, kT0 + i * 2'000'000, payload));
  const std::string path = r.status().file;
  EXPECT_EQ(path, o.directory + "/robot-edge_20240501-120000_000001.mcap");
  r.Stop();
  std::vector<std::uint8_t> bytes;
  ASSERT_TRUE(ReadWholeFile(path, &bytes, &error_)) << error_;
  const test::ReadBack back = test::ReadAll(bytes);
  EXPECT_EQ(back.status, McapReader::Status::kComplete) << back.error;
  EXPECT_EQ(back.messages.size(), 1000u);
}

TEST_F(PosixFileSystemTest, RecorderOnAFileIsAClearError) {
  std::ofstream(Path("recordings")) << "x";
  RotatingRecorderOptions o;
  o.directory = Path("recordings");
  RotatingRecorder r(o, OneChannel(), fs_);
  EXPECT_FALSE(r.Start(kT0));
  EXPECT_EQ(r.error(), o.directory + " is not a directory: recording not started");
}

// PosixFileSystem, counting the free-space queries.
class CountingFileSystem final : public FileSystem {
 public:
  explicit CountingFileSystem(FileSystem& inner) : inner_(inner) {}
  bool EnsureDirectory(const std::string& dir, std::string* error) override {
    return inner_.EnsureDirectory(dir, error);
  }
  bool FreeBytes(const std::string& dir, std::uint64_t* bytes, std::string* error) override {
    ++free_calls;
    return inner_.FreeBytes(dir, bytes, error);
  }
  bool List(const std::string& dir, std::vector<FileEntry>* out, std::string* error) override {
    return inner_.List(dir, out, error);
  }
  bool Remove(const std::string& path, std::string* error) override {
    return inner_.Remove(path, error);
  }
  bool Rename(const std::string& from, const std::string& to, std::string* error) override {
    return inner_.Rename(from, to, error);
  }
  std::unique_ptr<OutputFile> Create(const std::string& path, std::string* error) override {
    return inner_.Create(path, error);
  }
  int free_calls = 0;

 private:
  FileSystem& inner_;
};

// The real-time contract, with real write(2) and statvfs(2) calls: after the first chunks,
// thousands of writes (chunks closed, free space checked every 64 KiB) allocate nothing.
TEST_F(PosixFileSystemTest, SteadyStateWriteDoesNotAllocate) {
  RotatingRecorderOptions o;
  o.directory = Path("recordings");
  o.min_free_bytes = 0;
  o.free_check_bytes = 64 * 1024;
  o.mcap.chunk_size = 64 * 1024;
  o.mcap.compression = Compression::kNone;  // every byte reaches the file: many checks
  CountingFileSystem fs(fs_);
  RotatingRecorder r(
      o, {{"/joints", "J", "jsonschema", "{}", "json"}, {"/log", "", "", "", "json"}}, fs);
  ASSERT_TRUE(r.Start(kT0)) << r.error();
  std::vector<std::uint8_t> state(1100), log(120, 'x');
  auto tick = [&](std::uint32_t i) {
    for (std::size_t k = 0; k < state.size(); ++k) state[k] = static_cast<std::uint8_t>(i + k / 8);
    const std::uint64_t t = kT0 + i * 2'000'000ull;
    return r.Write(0, t, state) && (i % 50 != 0 || r.Write(1, t, log));
  };
  std::uint32_t i = 0;
  for (; i < 500; ++i) ASSERT_TRUE(tick(i));
  const int free_calls_before = fs.free_calls;
  std::size_t allocations = 0;
  {
    robot_edge::test::AllocationCounter counter;
    for (; i < 5500; ++i) {
      if (!tick(i)) break;
    }
    allocations = counter.count();
  }
  ASSERT_EQ(i, 5500u) << r.error();
  EXPECT_EQ(allocations, 0u);
  EXPECT_GT(fs.free_calls - free_calls_before, 20);  // ~5.5 MB at one check per 64 KiB
  EXPECT_EQ(r.status().file_messages, 5500u + 110);
}

}  // namespace
}  // namespace robot_edge::recorder
