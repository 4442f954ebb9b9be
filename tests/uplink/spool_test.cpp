// The spool (uplink/spool.hpp): order, acknowledgement, the bound and its eviction count, and
// what survives a restart (a torn tail included); a damaged directory and a full disk never stop
// it (issue 38, M8).
#include "uplink/spool.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <new>

namespace robot_edge::uplink {
namespace {

constexpr std::uint64_t kBound = 64 * 1024;  // the smallest: segments of 8 KiB

class SpoolTest : public testing::Test {
 protected:
  void SetUp() override {
    std::string path = (std::filesystem::temp_directory_path() / "spool-XXXXXX").string();
    ASSERT_NE(::mkdtemp(path.data()), nullptr);
    dir_ = path;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::vector<std::uint64_t> DrainSequences(Spool& spool) {
    std::vector<std::uint64_t> out;
    while (auto r = spool.Next()) out.push_back(r->sequence);
    return out;
  }
  std::string dir_;
};

TEST_F(SpoolTest, HandsOutRecordsInOrderWithTheirPayloadAndKeepsThemUntilAcked) {
  Spool spool(dir_, kBound);
  EXPECT_EQ(spool.Append(1, 10, "a"), 1u);
  EXPECT_EQ(spool.Append(2, 11, "bb"), 2u);
  EXPECT_EQ(spool.Append(1, 12, "ccc"), 3u);
  auto r = spool.Next();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->sequence, 1u);
  EXPECT_EQ(r->topic, 1u);
  EXPECT_EQ(r->source, 10u);
  EXPECT_EQ(r->payload, "a");
  EXPECT_EQ(spool.Next()->payload, "bb");
  EXPECT_EQ(spool.Next()->payload, "ccc");
  EXPECT_FALSE(spool.Next());
  EXPECT_EQ(spool.pending(), 3u);
  spool.Ack(2);  // out of order: 1 still holds it
  EXPECT_EQ(spool.pending(), 3u);
  spool.Ack(1);
  EXPECT_EQ(spool.pending(), 1u);
  spool.Rewind();  // the link dropped: 3 again, never the acknowledged ones
  EXPECT_EQ(DrainSequences(spool), (std::vector<std::uint64_t>{3}));
}

TEST_F(SpoolTest, ARestartHandsOutWhatWasNotAckedInOrderAndContinuesTheSequence) {
  {
    Spool spool(dir_, kBound);
    for (int i = 0; i < 5; ++i) spool.Append(1, 100 + i, "event " + std::to_string(i));
    spool.Next();
    spool.Next();
    spool.Ack(1);
    spool.Ack(2);  // 3 handed out later, never acknowledged: not lost
    spool.Next();
  }
  Spool spool(dir_, kBound);
  EXPECT_EQ(spool.pending(), 3u);
  EXPECT_EQ(spool.last_source(), 104u);
  auto r = spool.Next();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->sequence, 3u);
  EXPECT_EQ(r->payload, "event 2");
  EXPECT_EQ(DrainSequences(spool), (std::vector<std::uint64_t>{4, 5}));
  EXPECT_EQ(spool.Append(1, 105, "x"), 6u);
}

TEST_F(SpoolTest, SequencesAndSourceSurviveARestartAfterEverythingWasAcked) {
  {
    Spool spool(dir_, kBound);
    spool.Append(1, 7, "a");
    spool.Append(1, 8, "b");
    spool.Next();
    spool.Next();
    spool.Ack(1);
    spool.Ack(2);
    EXPECT_EQ(spool.pending(), 0u);
  }
  Spool spool(dir_, kBound);
  EXPECT_EQ(spool.pending(), 0u);
  EXPECT_EQ(spool.last_source(), 8u);
  EXPECT_EQ(spool.Append(1, 9, "c"), 3u);
}

TEST_F(SpoolTest, StaysWithinItsBoundEvictingTheOldestAndCountingThem) {
  Spool spool(dir_, kBound);
  const std::string payload(1000, 'p');
  for (int i = 0; i < 200; ++i) spool.Append(1, i + 1, payload);  // 200 KB into 64 KiB
  EXPECT_LE(spool.bytes(), kBound);
  EXPECT_GT(spool.evicted(), 0u);
  EXPECT_EQ(spool.evicted() + spool.pending(), 200u);
  // What is left is the newest, in order, ending with the last appended.
  const auto left = DrainSequences(spool);
  ASSERT_EQ(left.size(), spool.pending());
  for (std::size_t i = 1; i < left.size(); ++i) EXPECT_EQ(left[i], left[i - 1] + 1);
  EXPECT_EQ(left.back(), 200u);
  std::uint64_t on_disk = 0;
  for (const auto& f : std::filesystem::directory_iterator(dir_)) {
    if (f.path().filename().string().rfind("seg-", 0) == 0) on_disk += f.file_size();
  }
  EXPECT_LE(on_disk, kBound);
  const std::uint64_t evicted = spool.evicted();
  Spool reopened(dir_, kBound);  // the count is kept across restarts
  EXPECT_EQ(reopened.evicted(), evicted);
  EXPECT_EQ(reopened.pending(), left.size());
}

TEST_F(SpoolTest, EvictingRecordsInFlightKeepsNextOnTheOldestLeft) {
  Spool spool(dir_, kBound);
  const std::string payload(1000, 'p');
  spool.Append(1, 1, payload);
  ASSERT_EQ(spool.Next()->sequence, 1u);  // in flight when it is evicted
  for (int i = 1; i < 200; ++i) spool.Append(1, i + 1, payload);
  spool.Ack(1);  // its PUBACK after the eviction: ignored
  const auto left = DrainSequences(spool);
  ASSERT_FALSE(left.empty());
  EXPECT_EQ(left.front(), 200u - spool.pending() + 1);
}

TEST_F(SpoolTest, ATornTailIsCutAndTheRecordsBeforeItKept) {
  std::string segment;
  {
    Spool spool(dir_, kBound);
    spool.Append(1, 1, "first");
    spool.Append(1, 2, "second");
  }
  for (const auto& f : std::filesystem::directory_iterator(dir_)) {
    if (f.path().filename().string().rfind("seg-", 0) == 0) segment = f.path().string();
  }
  ASSERT_FALSE(segment.empty());
  const auto size = std::filesystem::file_size(segment);
  std::filesystem::resize_file(segment, size - 3);  // a crash mid-write of "second"
  Spool spool(dir_, kBound);
  EXPECT_EQ(spool.torn_bytes(), 28u + 6u - 3u);
  EXPECT_EQ(spool.pending(), 1u);
  EXPECT_EQ(spool.Next()->payload, "first");
  EXPECT_EQ(spool.Append(1, 3, "third"), 2u);  // sequence 2 was never durable: reused
  Spool again(dir_, kBound);
  EXPECT_EQ(again.pending(), 2u);
}

TEST_F(SpoolTest, RefusesABoundBelow64KiB) { EXPECT_THROW(Spool(dir_, 1024), SpoolError); }

// A fleet document's result larger than a segment: dropped, counted and reported; the spool goes
// on (it threw out of the uplink's loop, and a retained document crash-looped it).
TEST_F(SpoolTest, ARecordLargerThanASegmentIsDroppedCountedAndTheSpoolGoesOn) {
  Spool spool(dir_, kBound);
  EXPECT_EQ(spool.Append(1, 1, "before"), 1u);
  EXPECT_EQ(spool.Append(1, 2, std::string(9000, 'x')), 0u);
  EXPECT_EQ(spool.lost(), 1u);
  const auto notes = spool.TakeNotes();
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("larger than a segment"), std::string::npos) << notes[0];
  EXPECT_EQ(spool.Append(1, 3, "after"), 3u);  // its sequence is the gap the receiver sees
  EXPECT_EQ(DrainSequences(spool), (std::vector<std::uint64_t>{1, 3}));
}

std::string Segment(const std::string& dir, std::uint64_t first) {
  char name[64];
  std::snprintf(name, sizeof(name), "/seg-%020llu.log", static_cast<unsigned long long>(first));
  return dir + name;
}

bool AnyNoteHas(const std::vector<std::string>& notes, const std::string& text) {
  for (const std::string& n : notes) {
    if (n.find(text) != std::string::npos) return true;
  }
  return false;
}

// A rename without fsync can leave an empty cursor after a power cut: the spool opened no more
// (SpoolError at every start). Empty, garbled, or unreadable: counted as 0, every record left is
// sent again, no sequence is reused, and the cursor is written anew.
TEST_F(SpoolTest, AnEmptyGarbledOrUnreadableCursorCountsAsZeroAndNoSequenceIsReused) {
  {
    Spool spool(dir_, kBound);
    for (int i = 0; i < 3; ++i) spool.Append(1, 10 + i, "r" + std::to_string(i));
    for (int i = 0; i < 3; ++i) spool.Ack(spool.Next()->sequence);
    EXPECT_EQ(spool.pending(), 0u);
  }
  for (const std::string cursor : {"", "12 x 3\n", "\x01\x02"}) {
    std::ofstream(dir_ + "/cursor", std::ios::trunc) << cursor;
    Spool spool(dir_, kBound);
    // The acknowledged records still in the newest segment go again; their seq tells.
    EXPECT_EQ(DrainSequences(spool), (std::vector<std::uint64_t>{1, 2, 3})) << cursor;
    EXPECT_TRUE(AnyNoteHas(spool.TakeNotes(), "counted as 0")) << cursor;
  }
  std::filesystem::remove(dir_ + "/cursor");
  std::filesystem::create_directory(dir_ + "/cursor");  // unreadable as a file
  {
    Spool spool(dir_, kBound);
    EXPECT_EQ(spool.pending(), 3u);
    EXPECT_EQ(spool.Append(1, 20, "next"), 4u);
  }
  std::filesystem::remove(dir_ + "/cursor");
  // Only an empty segment is left and the cursor is empty: its name keeps the sequences.
  for (const auto& f : std::filesystem::directory_iterator(dir_)) std::filesystem::remove(f);
  std::ofstream(dir_ + "/cursor") << "";
  std::ofstream(Segment(dir_, 41));
  Spool spool(dir_, kBound);
  EXPECT_EQ(spool.pending(), 0u);
  EXPECT_EQ(spool.Append(1, 1, "x"), 41u);
  spool.Ack(spool.Next()->sequence);
  std::ifstream cursor(dir_ + "/cursor");  // written anew, durably
  std::uint64_t acked = 0;
  EXPECT_TRUE(cursor >> acked);
  EXPECT_EQ(acked, 41u);
}

TEST_F(SpoolTest, ACursorOfThePreviousFormatIsRead) {
  std::ofstream(dir_ + "/cursor") << "5 2 7\n";  // acked evicted source, before `lost`
  Spool spool(dir_, kBound);
  EXPECT_EQ(spool.evicted(), 2u);
  EXPECT_EQ(spool.last_source(), 7u);
  EXPECT_EQ(spool.Append(1, 8, "x"), 6u);
  EXPECT_TRUE(spool.TakeNotes().empty());
}

// A stray `seg-*` name aborted the uplink (std::stoull threw std::invalid_argument). Names the
// spool does not know are left alone and reported; the uplink's own files are not reported.
TEST_F(SpoolTest, NamesItDoesNotKnowAreLeftAloneAndReportedOnce) {
  {
    Spool spool(dir_, kBound);
    spool.Append(1, 1, "kept");
  }
  for (const char* name : {"seg-x.log", "seg-", "seg-123.log", "seg-99999999999999999999.log",
                           "seg-00000000000000000000.log", "junk", "announced", "apply-pending"}) {
    std::ofstream(dir_ + "/" + name) << "not a segment";
  }
  std::filesystem::create_directory(Segment(dir_, 5));  // a directory with a segment's name
  std::filesystem::create_symlink("/dev/null", Segment(dir_, 7));
  Spool spool(dir_, kBound);
  EXPECT_EQ(spool.pending(), 1u);
  EXPECT_EQ(spool.Next()->payload, "kept");
  EXPECT_EQ(spool.Append(1, 2, "new"), 2u);
  const auto notes = spool.TakeNotes();
  EXPECT_EQ(notes.size(), 8u) << ::testing::PrintToString(notes);
  EXPECT_TRUE(AnyNoteHas(notes, "seg-x.log"));
  EXPECT_TRUE(AnyNoteHas(notes, "seg-99999999999999999999.log"));
  EXPECT_TRUE(AnyNoteHas(notes, "not a regular file"));
  EXPECT_FALSE(AnyNoteHas(notes, "announced"));
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/seg-x.log"));  // left alone
  Spool again(dir_, kBound);
  EXPECT_EQ(again.pending(), 2u);
}

TEST_F(SpoolTest, ARecordThatCannotBeReadBackIsSkippedAndCountedLost) {
  Spool spool(dir_, kBound);
  const std::string payload(5000, 'p');
  spool.Append(1, 1, payload);
  spool.Append(1, 2, payload);  // the second segment
  spool.Append(1, 3, payload);
  std::filesystem::remove(Segment(dir_, 1));  // under the spool's feet
  EXPECT_EQ(DrainSequences(spool), (std::vector<std::uint64_t>{2, 3}));
  EXPECT_EQ(spool.lost(), 1u);
  EXPECT_TRUE(AnyNoteHas(spool.TakeNotes(), "cannot read record 1"));
}

// ENOSPC through an injected write(2): portable (no root, no mount). RealFullDisk below fills a
// real tmpfs when it may mount one.
bool g_disk_full = false;
ssize_t FullDiskWrite(int fd, const void* data, std::size_t size) {
  if (!g_disk_full) return ::write(fd, data, size);
  errno = ENOSPC;
  return -1;
}

TEST_F(SpoolTest, AFailedWriteHoldsRecordsInMemoryBoundedCountsTheLossAndGoesBackToDisk) {
  g_disk_full = false;
  {
    Spool spool(dir_, kBound, &FullDiskWrite);  // memory holds 8 KiB of payloads
    const std::string payload(1000, 'p');
    EXPECT_EQ(spool.Append(1, 1, "on disk"), 1u);
    g_disk_full = true;
    for (int i = 0; i < 10; ++i) EXPECT_EQ(spool.Append(1, 2 + i, payload), 2u + i);
    EXPECT_EQ(spool.in_memory(), 8u);
    EXPECT_EQ(spool.lost(), 2u);  // records 2 and 3, the oldest held
    auto notes = spool.TakeNotes();
    EXPECT_TRUE(AnyNoteHas(notes, "No space left on device")) << ::testing::PrintToString(notes);
    EXPECT_TRUE(AnyNoteHas(notes, "the oldest are dropped"));
    EXPECT_EQ(DrainSequences(spool), (std::vector<std::uint64_t>{1, 4, 5, 6, 7, 8, 9, 10, 11}));
    for (std::uint64_t s : {1, 4, 5, 6, 7, 8, 9, 10, 11}) spool.Ack(s);  // the cursor fails too
    EXPECT_EQ(spool.pending(), 0u);
    g_disk_full = false;
    EXPECT_EQ(spool.Append(1, 12, "back on disk"), 12u);
    EXPECT_EQ(spool.in_memory(), 0u);
    g_disk_full = true;
    EXPECT_EQ(spool.Append(1, 13, "held when the spool closes"), 13u);
    g_disk_full = false;
    notes = spool.TakeNotes();
    EXPECT_TRUE(AnyNoteHas(notes, "works again")) << ::testing::PrintToString(notes);
  }
  Spool spool(dir_, kBound);
  EXPECT_EQ(spool.lost(), 3u);  // 13 was held in memory when it closed: counted, kept
  const auto r = spool.Next();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->payload, "back on disk");
  EXPECT_FALSE(spool.Next());
  EXPECT_EQ(spool.Append(1, 14, "x"), 14u);
}

// A real full disk: a 64 KiB tmpfs, mounted when the test runs as root (CI does, on a fresh
// Debian 12 VM), skipped otherwise (the injected write above covers the logic). The uplink
// stopped at the first record it could not write, also at start.
class RealFullDisk : public SpoolTest {
 protected:
  void SetUp() override {
    SpoolTest::SetUp();
    if (::geteuid() != 0) GTEST_SKIP() << "mounting a 64 KiB tmpfs needs root";
    mount_ = dir_ + "/tiny";
    std::filesystem::create_directory(mount_);
    if (::mount("tmpfs", mount_.c_str(), "tmpfs", 0, "size=64k") != 0) {  // a container may not
      GTEST_SKIP() << "cannot mount a 64 KiB tmpfs here: " << std::strerror(errno)
                   << " (the injected-ENOSPC tests above cover the logic)";
    }
    mounted_ = true;
  }
  void TearDown() override {
    if (mounted_) ::umount2(mount_.c_str(), MNT_DETACH);
    SpoolTest::TearDown();
  }
  // Fills the file system with `filler` until it refuses (ENOSPC).
  void Fill() {
    const int fd = ::open((mount_ + "/filler").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    ASSERT_GE(fd, 0);
    const std::string block(4096, 'f');
    while (::write(fd, block.data(), block.size()) > 0) {
    }
    EXPECT_EQ(errno, ENOSPC);
    ::close(fd);
  }
  std::string mount_;
  bool mounted_ = false;
};

TEST_F(RealFullDisk, ENOSPCHoldsRecordsInMemoryAndTheSpoolOpensOnAFullDisk) {
  const std::string dir = mount_ + "/spool";
  const std::string payload(5000, 'p');  // each needs a new page of the tmpfs
  {
    Spool spool(dir, 1 << 20);  // a bound above the disk's: the disk fills first
    for (int i = 0; i < 3; ++i) EXPECT_EQ(spool.Append(1, i + 1, payload), i + 1u);
    Fill();
    for (int i = 3; i < 6; ++i) EXPECT_EQ(spool.Append(1, i + 1, payload), i + 1u);
    EXPECT_EQ(spool.in_memory(), 3u);
    EXPECT_TRUE(AnyNoteHas(spool.TakeNotes(), "No space left on device"));
    std::vector<std::uint64_t> sequences;
    while (auto r = spool.Next()) {
      EXPECT_EQ(r->payload, payload);
      sequences.push_back(r->sequence);
    }
    EXPECT_EQ(sequences, (std::vector<std::uint64_t>{1, 2, 3, 4, 5, 6}));
    for (std::uint64_t s = 1; s <= 6; ++s) spool.Ack(s);  // the cursor cannot be written
    EXPECT_EQ(spool.pending(), 0u);
    std::filesystem::remove(mount_ + "/filler");  // room again
    EXPECT_EQ(spool.Append(1, 7, payload), 7u);
    EXPECT_EQ(spool.in_memory(), 0u);
  }
  Fill();
  {
    Spool spool(dir, 1 << 20);  // opened on a full disk
    EXPECT_EQ(spool.pending(), 1u);
    EXPECT_EQ(spool.Append(1, 8, payload), 8u);
    EXPECT_EQ(spool.in_memory(), 1u);
    std::filesystem::remove(mount_ + "/filler");
    EXPECT_EQ(spool.Append(1, 9, payload), 9u);
    EXPECT_EQ(spool.in_memory(), 1u);  // 8 is still held, 9 is on disk
    EXPECT_EQ(DrainSequences(spool), (std::vector<std::uint64_t>{7, 8, 9}));
  }
  Spool spool(dir, 1 << 20);
  EXPECT_EQ(spool.lost(), 1u);  // 8, held when it closed
  EXPECT_EQ(DrainSequences(spool), (std::vector<std::uint64_t>{7, 9}));
  EXPECT_EQ(spool.Append(1, 10, "x"), 10u);
}

// --- The outside audit of 2026-11-29 (F5-F9): recovery of hostile or damaged segments, a full
// disk's losses.

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::string Records(std::uint64_t first, int count) {
  std::string out;
  for (int i = 0; i < count; ++i) {
    const std::uint64_t s = first + static_cast<std::uint64_t>(i);
    out += SpoolRecordBytes(s, static_cast<std::uint32_t>(s), 1, "record " + std::to_string(s));
  }
  return out;
}

// F5: a segment was read whole into a std::string; a large one (a sparse file, or a long
// outage under a large bound) crash-looped the uplink (std::bad_alloc, or its unit's MemoryMax).
// Under an address-space limit 128 MiB above what the test uses, a 300 MiB segment opens and
// the records at both ends of it are kept.
TEST_F(SpoolTest, ASegmentIsReadRecordByRecordNeverWholeIntoMemory) {
  const std::string path = Segment(dir_, 1);
  WriteBytes(path, Records(1, 2));
  std::filesystem::resize_file(path, 300u << 20);  // a hole of zeros, no disk used
  std::ofstream(path, std::ios::binary | std::ios::app) << Records(3, 2);
  const auto open_limited = [this] {
    std::ifstream statm("/proc/self/statm");
    std::uint64_t pages = 0;
    statm >> pages;
    const rlim_t limit = pages * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE)) + (128u << 20);
    const rlimit address_space{limit, limit};
    ::setrlimit(RLIMIT_AS, &address_space);
    Spool spool(dir_, kBound);
    std::exit(spool.pending() == 4 && spool.Append(1, 5, "x") == 5 ? 0 : 1);
  };
  EXPECT_EXIT(open_limited(), testing::ExitedWithCode(0), "");
}

// F5: the index costs memory per record; it never holds more than max_bytes / 64 records: the
// oldest segment is evicted (counted), as for the bytes.
TEST_F(SpoolTest, TheIndexOfRecordsIsBoundedEvictingTheOldest) {
  Spool spool(dir_, kBound);                                  // at most 1024 records indexed
  for (int i = 0; i < 1100; ++i) spool.Append(1, 1, "tiny");  // 32 bytes each: 34 KiB
  EXPECT_LE(spool.pending(), kBound / kSpoolBytesPerIndexedRecord);
  EXPECT_EQ(spool.pending() + spool.evicted(), 1100u);
  EXPECT_GT(spool.evicted(), 0u);
}

// A full disk as the kernel makes it: a write that needs a new block fails (ENOSPC), one
// within a file's present size (overwriting in place) works. `g_extend_fails` turns it on.
bool g_extend_fails = false;
ssize_t ExtendingWriteFails(int fd, const void* data, std::size_t size) {
  struct stat status {};
  const off_t at = ::lseek(fd, 0, SEEK_CUR);
  const bool append = (::fcntl(fd, F_GETFL) & O_APPEND) != 0;
  if (g_extend_fails && ::fstat(fd, &status) == 0 &&
      (append || at + static_cast<off_t>(size) > status.st_size)) {
    errno = ENOSPC;
    return -1;
  }
  return ::write(fd, data, size);
}

// Red team of issue 38, R9: a segment past the file size limit (RLIMIT_FSIZE, a unit's
// LimitFSIZE) was reported as a full disk: the kernel's short write up to the limit was read as
// ENOSPC. The next write now names the cause (EFBIG). In a child of its own: the limit, and the
// SIGXFSZ it raises unless ignored (robot-edge-uplink's main ignores it), are the process's.
TEST_F(SpoolTest, AWritePastTheFileSizeLimitIsReportedAsSuchAndHeldInMemory) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{3000, 3000};  // bytes per file; the segments are 8 KiB
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(2);
    Spool spool(dir_, kBound);
    const std::string payload(1000, 'p');
    for (std::uint32_t topic = 1; topic <= 4; ++topic) spool.Append(1, topic, payload);
    const auto notes = spool.TakeNotes();
    const bool named = AnyNoteHas(notes, std::strerror(EFBIG));
    const bool misnamed = AnyNoteHas(notes, "disk is full");
    if (!named || misnamed || spool.in_memory() == 0 || spool.pending() != 4) {
      std::fprintf(stderr, "in memory %zu, pending %zu, notes %s\n",
                   static_cast<std::size_t>(spool.in_memory()),
                   static_cast<std::size_t>(spool.pending()),
                   ::testing::PrintToString(notes).c_str());
      ::_exit(1);
    }
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "see the child's line above";
}

// F6: the cursor was written to cursor.tmp and renamed, which a full disk refused: the records
// held in memory when the uplink stopped were counted in lost(), but the count never reached the
// disk (the next start said 0). The cursor is now overwritten in place.
TEST_F(SpoolTest, OnAFullDiskTheRecordsLostInMemoryAreCountedAcrossARestart) {
  g_extend_fails = false;
  {
    Spool spool(dir_, kBound, &ExtendingWriteFails);
    EXPECT_EQ(spool.Append(1, 1, "on disk"), 1u);
    g_extend_fails = true;
    EXPECT_EQ(spool.Append(1, 2, "held"), 2u);
    EXPECT_EQ(spool.Append(1, 3, "held"), 3u);
    EXPECT_EQ(spool.in_memory(), 2u);
    EXPECT_TRUE(AnyNoteHas(spool.TakeNotes(), "the disk is full"));
  }
  g_extend_fails = false;
  Spool spool(dir_, kBound);
  EXPECT_EQ(spool.lost(), 2u);
  EXPECT_EQ(spool.lost_unknown(), 0u);
  EXPECT_EQ(DrainSequences(spool), (std::vector<std::uint64_t>{1}));
  EXPECT_EQ(spool.Append(1, 4, "x"), 4u);  // 2 and 3 reached no disk but are not reused
}

// F6: a disk full before the cursor ever got its space: the losses cannot be counted, and the
// next start says so (lost_unknown(), a note) instead of reporting 0 lost.
TEST_F(SpoolTest, ACursorThatCouldNeverBeWrittenMakesTheNextStartReportAnUnknownLoss) {
  g_extend_fails = true;
  {
    Spool spool(dir_, kBound, &ExtendingWriteFails);
    EXPECT_EQ(spool.Append(1, 1, "held"), 1u);
    EXPECT_EQ(spool.in_memory(), 1u);
  }
  g_extend_fails = false;
  Spool spool(dir_, kBound);
  EXPECT_EQ(spool.lost_unknown(), 1u);
  EXPECT_TRUE(AnyNoteHas(spool.TakeNotes(), "an unknown number of records is lost"));
  EXPECT_EQ(spool.Append(1, 2, "x"), 1u);  // the sequence held never reached the disk
  Spool again(dir_, kBound);
  EXPECT_EQ(again.lost_unknown(), 1u);  // kept in the cursor, not reported again
  EXPECT_TRUE(again.TakeNotes().empty());
}

// F6: a crash (no destructor) with records held in memory: the cursor said records were held,
// so the next start reports their loss as unknown.
TEST_F(SpoolTest, ACrashWithRecordsHeldInMemoryIsReportedAsAnUnknownLoss) {
  alignas(Spool) static unsigned char crashed[sizeof(Spool)];  // never destroyed: a crash
  g_extend_fails = false;
  auto* spool = new (crashed) Spool(dir_, kBound, &ExtendingWriteFails);
  EXPECT_EQ(spool->Append(1, 1, "on disk"), 1u);
  g_extend_fails = true;
  EXPECT_EQ(spool->Append(1, 2, "held"), 2u);
  g_extend_fails = false;
  Spool after(dir_, kBound);
  EXPECT_EQ(after.lost_unknown(), 1u);
  EXPECT_TRUE(AnyNoteHas(after.TakeNotes(), "held in memory"));
  EXPECT_EQ(DrainSequences(after), (std::vector<std::uint64_t>{1}));
}

// F7: 50 bytes of garbage after 3 records cut the 3 valid records after them.
TEST_F(SpoolTest, ValidRecordsAfterACorruptRegionAreKeptAndDamagedOnesCountedLost) {
  std::string damaged = Records(7, 1);
  damaged.back() ^= 0x20;  // its payload: the CRC fails, its header is whole
  WriteBytes(Segment(dir_, 1),
             Records(1, 3) + std::string(50, 'g') + Records(4, 3) + damaged + Records(8, 1));
  Spool spool(dir_, kBound);
  EXPECT_EQ(DrainSequences(spool), (std::vector<std::uint64_t>{1, 2, 3, 4, 5, 6, 8}));
  EXPECT_EQ(spool.torn_bytes(), 50u + damaged.size());
  EXPECT_EQ(spool.lost(), 1u);  // 7, durable (8 was written after it), now damaged
  EXPECT_TRUE(AnyNoteHas(spool.TakeNotes(), "the valid records after them are kept"));
  EXPECT_EQ(spool.Append(1, 9, "x"), 9u);
  Spool again(dir_, kBound);
  EXPECT_EQ(again.pending(), 8u);  // nothing was cut: the skipped bytes stay in place
  EXPECT_EQ(again.lost(), 1u);     // 7's magic was zeroed: not counted twice
}

// The cursor is overwritten in place: one longer than its fixed size (damaged) is cut to it, so
// that the next start reads what was written, not its old tail.
TEST_F(SpoolTest, ACursorLongerThanItsFixedSizeIsCutToIt) {
  WriteBytes(dir_ + "/cursor", std::string(300, '7'));
  {
    Spool spool(dir_, kBound);
    EXPECT_TRUE(AnyNoteHas(spool.TakeNotes(), "counted as 0"));
    EXPECT_EQ(spool.Append(1, 1, "x"), 1u);
    spool.Ack(spool.Next()->sequence);
  }
  Spool spool(dir_, kBound);
  EXPECT_TRUE(spool.TakeNotes().empty());
  EXPECT_EQ(spool.pending(), 0u);
  EXPECT_EQ(spool.Append(1, 2, "y"), 2u);
}

// F8: a sequence at 2^64-1 (a segment's name, a record, the cursor's last) left no sequence:
// every later record was dropped. Above 2^48 it is not believed.
TEST_F(SpoolTest, ImplausibleSequencesAreIgnoredAndTheSpoolKeepsAppending) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  WriteBytes(Segment(dir_, kMax), "");
  WriteBytes(Segment(dir_, 1), Records(1, 1) + SpoolRecordBytes(kMax, 1, 1, "crafted"));
  WriteBytes(dir_ + "/cursor", "0 0 0 0 " + std::to_string(kMax) + "\n");
  Spool spool(dir_, kBound);
  const auto notes = spool.TakeNotes();
  EXPECT_TRUE(AnyNoteHas(notes, "seg-18446744073709551615.log (its sequence is above 2^48"))
      << ::testing::PrintToString(notes);
  EXPECT_TRUE(AnyNoteHas(notes, "1 records with a sequence above 2^48"));
  EXPECT_TRUE(AnyNoteHas(notes, "the cursor's sequence 18446744073709551615"));
  EXPECT_EQ(DrainSequences(spool), (std::vector<std::uint64_t>{1}));
  EXPECT_EQ(spool.Append(1, 2, "x"), 2u);
  EXPECT_EQ(spool.lost(), 0u);
  EXPECT_TRUE(std::filesystem::exists(Segment(dir_, kMax)));  // left alone
}

// Round four's R5 and R6: the spool never issues a sequence above 2^48 (a next start would not
// believe it and reuse sequences), and counts above 2^48 in a cursor are not believed.
TEST_F(SpoolTest, NoSequenceAbove2To48IsIssuedAndImplausibleCountsAreNotBelieved) {
  constexpr std::uint64_t k2To48 = std::uint64_t{1} << 48;
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  WriteBytes(dir_ + "/cursor", "0 " + std::to_string(kMax) + " 0 " + std::to_string(kMax) + " " +
                                   std::to_string(k2To48 - 1) + "\n");
  Spool spool(dir_, kBound);
  const auto notes = spool.TakeNotes();
  EXPECT_TRUE(AnyNoteHas(notes, "the cursor's evicted count 18446744073709551615"))
      << ::testing::PrintToString(notes);
  EXPECT_TRUE(AnyNoteHas(notes, "the cursor's lost count 18446744073709551615"));
  EXPECT_EQ(spool.evicted(), 0u);
  EXPECT_EQ(spool.lost(), 0u);
  EXPECT_EQ(spool.Append(1, 1, "the last"), k2To48);
  EXPECT_EQ(spool.Append(1, 2, "one too many"), 0u);
  EXPECT_EQ(spool.lost(), 1u);
  EXPECT_TRUE(AnyNoteHas(spool.TakeNotes(), "no sequence is left after 281474976710656"));
}

// F9: a segment that was a hard link to a file outside the spool was cut by path (truncate(2)):
// the other file became empty. A segment with more than one name is left alone.
TEST_F(SpoolTest, RecoveryNeverCutsASegmentWithAnotherName) {
  const std::string victim = dir_ + "-victim";
  WriteBytes(victim, "not a segment: precious bytes");
  std::filesystem::create_hard_link(victim, Segment(dir_, 1));
  {
    Spool spool(dir_, kBound);
    EXPECT_TRUE(AnyNoteHas(spool.TakeNotes(), "a hard link"));
    EXPECT_EQ(spool.Append(1, 1, "x"), 2u);  // seg-1 may hold 1: not reused
  }
  EXPECT_EQ(std::filesystem::file_size(victim), 29u);
  std::filesystem::remove(victim);
}

// F6 on a real full disk: the cursor got its page when the spool opened, so the records held in
// memory when it closes are counted on disk, and the next start (the disk still full) sees them.
TEST_F(RealFullDisk, TheCountOfRecordsLostOnAFullDiskSurvivesARestart) {
  const std::string dir = mount_ + "/spool";
  const std::string payload(5000, 'p');
  {
    Spool spool(dir, 1 << 20);
    EXPECT_EQ(spool.Append(1, 1, payload), 1u);
    Fill();
    EXPECT_EQ(spool.Append(1, 2, payload), 2u);
    EXPECT_EQ(spool.Append(1, 3, payload), 3u);
    EXPECT_EQ(spool.in_memory(), 2u);
    EXPECT_TRUE(AnyNoteHas(spool.TakeNotes(), "the disk is full"));
  }
  Spool spool(dir, 1 << 20);
  EXPECT_EQ(spool.lost(), 2u);
  EXPECT_EQ(spool.lost_unknown(), 0u);
  EXPECT_EQ(DrainSequences(spool), (std::vector<std::uint64_t>{1}));
}

}  // namespace
}  // namespace robot_edge::uplink
