// Spool's opening half (spool.hpp states the recovery contract): the cursor read, the
// segments listed, each scanned record by record (spool_recovery.hpp) and indexed.
#include "uplink/spool.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "uplink/spool_recovery.hpp"

namespace robot_edge::uplink {

// The cursor's fields (WriteCursor() states its text).
struct spool_detail::Cursor {
  std::uint64_t acked = 0, evicted = 0, lost = 0, last = 0, unknown = 0, held = 0;
  std::uint32_t source = 0;
};

namespace {

using spool_detail::kCursorBytes;
using spool_detail::kMaxSequence;
using spool_detail::kPrefix;
using spool_detail::kSuffix;
constexpr std::size_t kMaxStrayNotes = 8;  // stray names reported one by one
constexpr std::size_t kMaxCursorBytes = 256;
// A segment file larger than this is left alone: the spool never writes one (segments are at
// most 4096 MiB / 8 under any configuration it ever accepted).
constexpr std::uint64_t kMaxSegmentFileBytes = std::uint64_t{1} << 30;
constexpr std::size_t kDigits = 20;
// The uplink's other files in the spool's directory (announced_file.hpp, pending_apply.hpp);
// cursor.tmp is what a spool before the fixed-size cursor wrote.
constexpr std::array<const char*, 6> kKnownNames = {
    "cursor", "cursor.tmp", "announced", "announced.new", "apply-pending", "apply-pending.new"};

// Appends the decimal digits at `text`[*at..] to *value; false on none or on an overflow.
bool ParseDigits(std::string_view text, std::size_t* at, std::size_t max_digits,
                 std::uint64_t* value) {
  const std::size_t start = *at;
  *value = 0;
  while (*at < text.size() && *at - start < max_digits && text[*at] >= '0' && text[*at] <= '9') {
    const auto digit = static_cast<std::uint64_t>(text[*at] - '0');
    if (*value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return false;
    *value = *value * 10 + digit;
    ++*at;
  }
  return *at > start;
}

// "seg-<20 digits>.log" -> its first sequence (>= 1); nullopt for any other name.
std::optional<std::uint64_t> ParseSegmentName(std::string_view name) {
  const std::size_t prefix = std::strlen(kPrefix), suffix = std::strlen(kSuffix);
  if (name.size() != prefix + kDigits + suffix || name.substr(0, prefix) != kPrefix ||
      name.substr(prefix + kDigits) != kSuffix) {
    return std::nullopt;
  }
  std::size_t at = prefix;
  std::uint64_t first = 0;
  if (!ParseDigits(name, &at, kDigits, &first) || at != prefix + kDigits || first == 0) {
    return std::nullopt;
  }
  return first;
}

// The cursor's text, "acked evicted source [lost last [unknown held]]" (lost and last since
// issue 38, the other two since the fixed-size cursor), space separated, padded with spaces;
// nullopt for anything else.
std::optional<spool_detail::Cursor> ParseCursor(std::string_view text) {
  std::vector<std::uint64_t> fields;
  std::size_t at = 0;
  while (fields.size() <= 7) {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\n')) ++at;
    if (at == text.size()) break;
    std::uint64_t value = 0;
    if (!ParseDigits(text, &at, kDigits, &value)) return std::nullopt;
    fields.push_back(value);
  }
  const std::size_t n = fields.size();
  if ((n != 3 && n != 5 && n != 7) || fields[2] > std::numeric_limits<std::uint32_t>::max()) {
    return std::nullopt;
  }
  fields.resize(7, 0);
  return spool_detail::Cursor{fields[0],
                              fields[1],
                              fields[3],
                              fields[4],
                              fields[5],
                              fields[6],
                              static_cast<std::uint32_t>(fields[2])};
}

// Up to `max` bytes of the file open at `fd`, from its start (nullopt beyond, or when it cannot
// be read: errno says why).
std::optional<std::string> ReadAll(int fd, std::size_t max) {
  std::string out(max + 1, '\0');
  std::size_t got = 0;
  while (got < out.size()) {
    const ssize_t n = ::pread(fd, out.data() + got, out.size() - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got > max) {
    errno = EFBIG;
    return std::nullopt;
  }
  out.resize(got);
  return out;
}

std::string Reason(int error) { return std::strerror(error); }

}  // namespace

// Opens the cursor to overwrite in place, never through a link: a name that is a symbolic link
// or a hard link is replaced by a file of its own (unlink() drops the name only). Sets
// cursor_created_ when there was none. -1 when it cannot be opened (errno says why).
int Spool::OpenCursor() {
  const std::string path = dir_ + "/cursor";
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  struct stat status {};
  if (fd >= 0 && (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode) || status.st_nlink != 1)) {
    ::close(fd);
    fd = -1;
    errno = ELOOP;
  }
  if (fd < 0 && errno == ELOOP && ::unlink(path.c_str()) == 0) {
    Note(path + " was a link (not followed): replaced by a file of the spool's own");
    errno = ENOENT;
  }
  if (fd < 0 && errno == ENOENT) {
    fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0640);
    if (fd >= 0) {
      cursor_created_ = true;
      ::fsync(dir_fd_);  // its name, so that a later in-place write is found
    }
  }
  return fd;
}

// An unreadable or garbled cursor counts as 0: the records left are sent again (each has its
// seq), and the eviction and loss counts start again. A field above kMaxSequence is not
// believed (corruption or a crafted file): ignored, reported.
void Spool::ReadCursor() {
  const std::string path = dir_ + "/cursor";
  cursor_fd_ = OpenCursor();
  const auto text = cursor_fd_ < 0 ? std::nullopt : ReadAll(cursor_fd_, kMaxCursorBytes);
  if (!text) {
    Note("cannot read " + path + " (" + Reason(errno) +
         "): counted as 0, the records left are sent again");
    cursor_dirty_ = cursor_short_ = true;
    return;
  }
  cursor_short_ = text->size() != kCursorBytes;  // new, or of a spool before it was fixed-size
  if (cursor_created_ || text->empty()) {        // Recover() judges it with the segments
    if (!cursor_created_) {
      Note(path + " is empty (a power cut, or a full disk before it got its space): counted as" +
           " 0, the records left are sent again");
    }
    cursor_blank_ = !cursor_created_;
    return;
  }
  const auto cursor = ParseCursor(*text);
  if (!cursor) {
    Note(path + " is garbled (a power cut?): counted as 0, the records left are sent again");
    cursor_dirty_ = true;
    return;
  }
  UseCursor(*cursor);
}

void Spool::UseCursor(const spool_detail::Cursor& cursor) {
  for (const std::uint64_t value : {cursor.acked, cursor.last}) {
    if (value > kMaxSequence) {
      Note("the cursor's sequence " + std::to_string(value) +
           " is above 2^48, not believed: ignored");
      cursor_dirty_ = true;
    }
  }
  if (cursor.acked <= kMaxSequence) acked_sequence_ = cursor.acked;
  if (cursor.last <= kMaxSequence) last_sequence_ = std::max(last_sequence_, cursor.last);
  // Counts above 2^48 (more records than sequences) are not believed either: they start over.
  const auto count = [&](std::uint64_t value, const char* what) -> std::uint64_t {
    if (value <= kMaxSequence) return value;
    Note(std::string("the cursor's ") + what + " count " + std::to_string(value) +
         " is above 2^48, not believed: counted from 0");
    cursor_dirty_ = true;
    return 0;
  };
  evicted_ = count(cursor.evicted, "evicted");
  lost_ = count(cursor.lost, "lost");
  lost_unknown_ = count(cursor.unknown, "unknown-loss");
  acked_source_ = cursor.source;
  if (cursor.held != 0) {
    LostUnknown("the previous run ended with records held in memory and could not count them");
  }
}

void Spool::LostUnknown(const std::string& why) {
  ++lost_unknown_;
  cursor_dirty_ = true;
  Note(why + ": an unknown number of records is lost (spool_lost_unknown)");
}

void Spool::Recover() {
  ReadCursor();
  const std::vector<std::uint64_t> firsts = ListSegments();
  // An empty cursor is one this spool created and could not write (a full disk: records held
  // in memory were lost uncounted). None at all beside segments is also what a spool of an
  // earlier version leaves before its first acknowledgement: reported, not counted.
  if (cursor_blank_ && !firsts.empty()) {
    LostUnknown("the cursor " + dir_ + "/cursor was empty beside segments" +
                " (a full disk kept it from being written)");
  } else if (cursor_created_ && !firsts.empty()) {
    Note("there was no cursor beside the segments in " + dir_ +
         " (an earlier version's, or a disk too full to create it): counted as 0");
  }
  std::uint64_t newest = 0;  // of the records loaded so far
  for (const std::uint64_t first : firsts) {
    // The name says the sequences before it were given out: none is reused, also when the
    // cursor is lost and the segment empty.
    last_sequence_ = std::max(last_sequence_, first - 1);
    // One it cannot read may hold `first` itself: the next segment is named after it.
    if (!LoadSegment(first, &newest)) last_sequence_ = std::max(last_sequence_, first);
  }
  last_sequence_ = std::max(last_sequence_, acked_sequence_);
  last_source_ = std::max(last_source_, acked_source_);
  if (!segments_.empty() && segments_.back().first != uncut_) {
    const std::string path = SegmentPath(segments_.back().first);
    fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
    if (fd_ < 0) Note("cannot open " + path + " (" + Reason(errno) + "): a new segment is begun");
  }
  // A spool with no segment begins one now, so that its name keeps the sequence if the cursor
  // is lost. A failure is left to the first Append().
  if (segments_.empty()) OpenSegment(last_sequence_ + 1);
  if (cursor_short_) cursor_dirty_ = true;  // its fixed size reserved now, while there is room
  DropAcknowledged();
}

// The segments' first sequences, oldest first. Names the spool does not know, and segments
// whose name's sequence is above kMaxSequence (not believed), are left alone and reported (the
// first kMaxStrayNotes of them).
std::vector<std::uint64_t> Spool::ListSegments() {
  std::vector<std::uint64_t> firsts;
  DIR* listing = ::opendir(dir_.c_str());
  if (listing == nullptr) {
    Note("cannot list " + dir_ + " (" + Reason(errno) + "): its segments are not read");
    return firsts;
  }
  std::size_t strays = 0;
  while (const dirent* item = ::readdir(listing)) {
    const std::string name = item->d_name;
    if (name == "." || name == ".." ||
        std::find(kKnownNames.begin(), kKnownNames.end(), name) != kKnownNames.end()) {
      continue;
    }
    const auto first = ParseSegmentName(name);
    struct stat status {};
    const bool regular = ::fstatat(dir_fd_, name.c_str(), &status, AT_SYMLINK_NOFOLLOW) == 0 &&
                         S_ISREG(status.st_mode);
    const bool plausible = first && *first <= kMaxSequence;
    if (plausible && regular) {
      firsts.push_back(*first);
    } else if (++strays <= kMaxStrayNotes) {
      Note("left alone: " + dir_ + "/" + name +
           (!first     ? " (not a segment's name, seg-<20 digits>.log)"
            : !regular ? " (not a regular file)"
                       : " (its sequence is above 2^48, not believed)"));
    }
  }
  ::closedir(listing);
  if (strays > kMaxStrayNotes) {
    Note("left alone: " + std::to_string(strays - kMaxStrayNotes) + " more names in " + dir_);
  }
  std::sort(firsts.begin(), firsts.end());
  return firsts;
}

// Opens a segment to recover it, never through a link: O_RDWR to be able to cut it (O_RDONLY
// when that is refused), O_NONBLOCK so that a FIFO swapped in does not block. -1 (reported) when
// it cannot be opened, or is not a regular file with one name (a hard link's other name may be
// outside the spool) of at most kMaxSegmentFileBytes.
int Spool::OpenToRecover(const std::string& path, std::uint64_t* size) {
  const int flags = O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;
  int fd = ::open(path.c_str(), O_RDWR | flags);
  if (fd < 0 && (errno == EACCES || errno == EROFS || errno == EPERM)) {
    fd = ::open(path.c_str(), O_RDONLY | flags);
  }
  if (fd < 0) {
    Note("cannot read " + path + " (" + Reason(errno) + "): left alone");
    return -1;
  }
  struct stat status {};
  std::string why;
  if (::fstat(fd, &status) != 0) {
    why = Reason(errno);
  } else if (!S_ISREG(status.st_mode)) {
    why = "not a regular file";
  } else if (status.st_nlink != 1) {
    why = "it has " + std::to_string(status.st_nlink) + " names: a hard link";
  } else if (static_cast<std::uint64_t>(status.st_size) > kMaxSegmentFileBytes) {
    why = std::to_string(status.st_size) + " bytes, above the 1 GiB no segment reaches";
  }
  if (!why.empty()) {
    ::close(fd);
    Note("left alone: " + path + " (" + why + ")");
    return -1;
  }
  *size = static_cast<std::uint64_t>(status.st_size);
  return fd;
}

// Indexes one segment's records, read record by record (spool_recovery.hpp). A region that
// does not check is skipped (counted in torn_bytes, its damaged records in lost), and what follows
// the last valid record is cut with ftruncate() on the descriptor read. False when it cannot be
// read (it is then left alone and not used).
bool Spool::LoadSegment(std::uint64_t first, std::uint64_t* newest) {
  const std::string path = SegmentPath(first);
  std::uint64_t size = 0;
  const int fd = OpenToRecover(path, &size);
  if (fd < 0) return false;
  // A damaged record's magic is zeroed (in place, on this descriptor), so that the next start
  // does not count it lost again; when that fails it is counted again (reported each time).
  const spool_detail::SegmentScan scan = spool_detail::ScanSegment(
      fd, size, newest, [&](const spool_detail::ScannedRecord& r) { Index(first, r); },
      [fd](std::uint64_t at) {
        const std::uint32_t zero = 0;
        (void)!::pwrite(fd, &zero, sizeof(zero), static_cast<off_t>(at));
      });
  std::uint64_t kept = size;
  if (scan.read_error != 0) {
    Note("cannot read " + path + " past byte " + std::to_string(scan.end) + " (" +
         Reason(scan.read_error) + "): not cut, not appended to");
    uncut_ = first;
  } else if (scan.end < size) {
    if (::ftruncate(fd, static_cast<off_t>(scan.end)) == 0) {
      kept = scan.end;
      torn_bytes_ += size - scan.end;
    } else {
      Note("cannot cut " + path + " (" + Reason(errno) + "): not appended to");
      uncut_ = first;  // Recover() opens none, the first Append() begins a new segment
    }
  }
  ::close(fd);
  ReportScan(path, scan);
  segments_.push_back({first, kept});
  bytes_ += kept;
  return true;
}

// What a segment's scan skipped in the middle (its tail cut is in torn_bytes(), logged at start).
void Spool::ReportScan(const std::string& path, const spool_detail::SegmentScan& scan) {
  torn_bytes_ += scan.skipped;
  lost_ += scan.damaged;
  if (scan.damaged > 0) cursor_dirty_ = true;
  if (scan.skipped > 0) {
    Note(path + ": " + std::to_string(scan.skipped) + " bytes that do not check skipped (" +
         std::to_string(scan.damaged) +
         " damaged records lost); the valid records after them are kept");
  }
  if (scan.implausible > 0) {
    Note(path + ": " + std::to_string(scan.implausible) +
         " records with a sequence above 2^48 (not believed) skipped");
  }
}

// A record a segment's scan found: indexed unless acknowledged already. At most max_entries_
// are indexed: past it the oldest segment loaded is evicted (counted), and when none is left to
// evict the record is not indexed (counted evicted too).
void Spool::Index(std::uint64_t first, const spool_detail::ScannedRecord& r) {
  last_sequence_ = std::max(last_sequence_, r.sequence);
  last_source_ = std::max(last_source_, r.source);
  if (r.sequence <= acked_sequence_) return;
  while (entries_.size() >= max_entries_ && !segments_.empty()) EvictOldest();
  if (entries_.size() >= max_entries_) {
    ++evicted_;
    cursor_dirty_ = true;
    return;
  }
  entries_.push_back({r.sequence, r.source, r.topic, first, r.offset, r.length, false});
}

}  // namespace robot_edge::uplink
