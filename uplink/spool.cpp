#include "uplink/spool.hpp"

#include "uplink/spool_recovery.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <utility>

namespace robot_edge::uplink {

// The cursor's fields (WriteCursor() states its text).
struct spool_detail::Cursor {
  std::uint64_t acked = 0, evicted = 0, lost = 0, last = 0, unknown = 0, held = 0;
  std::uint32_t source = 0;
};

namespace {

using spool_detail::Crc32;
using spool_detail::kHeaderBytes;
using spool_detail::kMagic;
using spool_detail::kMaxSequence;
using spool_detail::kRecordOverhead;
constexpr std::uint64_t kMinBytes = 64 * 1024;
constexpr std::uint64_t kMaxMemoryBytes = 8 << 20;  // payloads held in memory, at most
constexpr std::uint64_t kHeldRecordBytes = 128;     // a record held costs this beside its payload
constexpr std::uint32_t kAcksPerCursor = 32;        // the cursor written at least this often
constexpr std::size_t kMaxStrayNotes = 8;           // stray names reported one by one
constexpr std::size_t kCursorBytes = 160;           // its fixed size: 7 fields of 20 digits fit
constexpr std::size_t kMaxCursorBytes = 256;
// A segment file larger than this is left alone: the spool never writes one (segments are at
// most 4096 MiB / 8 under any configuration it ever accepted).
constexpr std::uint64_t kMaxSegmentFileBytes = std::uint64_t{1} << 30;
constexpr std::size_t kDigits = 20;
constexpr const char* kPrefix = "seg-";
constexpr const char* kSuffix = ".log";
// The uplink's other files in the spool's directory (announced_file.hpp, pending_apply.hpp);
// cursor.tmp is what a spool before the fixed-size cursor wrote.
constexpr std::array<const char*, 6> kKnownNames = {
    "cursor", "cursor.tmp", "announced", "announced.new", "apply-pending", "apply-pending.new"};

template <typename T>
void Put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

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

std::string SpoolRecordBytes(std::uint64_t sequence, std::uint32_t source, std::uint32_t topic,
                             std::string_view payload) {
  std::string record;
  record.reserve(kRecordOverhead + payload.size());
  Put(record, kMagic);
  Put(record, static_cast<std::uint32_t>(payload.size()));
  Put(record, sequence);
  Put(record, source);
  Put(record, topic);
  const auto* header = reinterpret_cast<const unsigned char*>(record.data());
  std::uint32_t crc = Crc32(header, kHeaderBytes);
  crc = Crc32(reinterpret_cast<const unsigned char*>(payload.data()), payload.size(), crc);
  Put(record, crc);
  record.append(payload);
  return record;
}

Spool::Spool(std::string dir, std::uint64_t max_bytes, SpoolWrite write)
    : dir_(std::move(dir)),
      max_bytes_(max_bytes),
      segment_bytes_(max_bytes / 8),
      memory_bound_(std::min(segment_bytes_, kMaxMemoryBytes)),
      max_entries_(max_bytes / kSpoolBytesPerIndexedRecord),
      write_(write != nullptr ? write : &::write) {
  if (max_bytes_ < kMinBytes) throw SpoolError("spool: the bound must be at least 64 KiB");
  static_assert(sizeof(Entry) + 8 <= kSpoolIndexBytesPerRecord, "the index's cost (spool.hpp)");
  std::error_code error;
  std::filesystem::create_directories(dir_, error);
  dir_fd_ = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd_ < 0) {
    Note("cannot open " + dir_ + " (" + (error ? error.message() : Reason(errno)) +
         "): records are held in memory only");
    return;
  }
  Recover();
}

Spool::~Spool() {
  for (const Entry& e : entries_) {  // held in memory, not acknowledged: gone with the process
    if (e.segment == 0 && !e.acked) {
      ++lost_;
      cursor_dirty_ = true;
    }
  }
  closing_ = true;  // the held records are counted now: the cursor says none is held
  if (cursor_dirty_ || !memory_.empty()) WriteCursor();
  if (fd_ >= 0) ::close(fd_);
  if (cursor_fd_ >= 0) ::close(cursor_fd_);
  if (dir_fd_ >= 0) ::close(dir_fd_);
}

std::vector<std::string> Spool::TakeNotes() { return std::exchange(notes_, {}); }

void Spool::Note(std::string note) { notes_.push_back(std::move(note)); }

std::string Spool::SegmentPath(std::uint64_t first) const {
  char name[64];
  std::snprintf(name, sizeof(name), "%s%020llu%s", kPrefix, static_cast<unsigned long long>(first),
                kSuffix);
  return dir_ + "/" + name;
}

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
    cursor_dirty_ = true;
    return;
  }
  cursor_short_ = text->size() != kCursorBytes;  // new, or of a spool before it was fixed-size
  if (cursor_created_ || text->empty()) {        // Recover() judges it with the segments
    if (!cursor_created_) {
      Note(path + " is empty (a power cut, or a full disk before it got its space): counted as" +
           " 0, the records left are sent again");
    }
    cursor_blank_ = true;
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
  evicted_ = cursor.evicted;
  lost_ = cursor.lost;
  lost_unknown_ = cursor.unknown;
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

// The cursor, overwritten in place at its fixed size (kCursorBytes) and fdatasync()ed: the
// blocks it needs were allocated when it was first written, so a full disk does not stop it.
// Best effort: when it fails the cursor on disk stays behind (records acknowledged since are
// sent again after a restart) and the next acknowledgement tries again.
void Spool::WriteCursor() {
  if (dir_fd_ < 0) return;
  const std::string path = dir_ + "/cursor";
  const bool held = !memory_.empty() && !closing_;  // in memory, not counted lost yet
  std::string text = std::to_string(acked_sequence_) + " " + std::to_string(evicted_) + " " +
                     std::to_string(acked_source_) + " " + std::to_string(lost_) + " " +
                     std::to_string(last_sequence_) + " " + std::to_string(lost_unknown_) + " " +
                     (held ? "1" : "0");
  text.resize(kCursorBytes - 1, ' ');
  text += '\n';
  if (cursor_fd_ < 0) cursor_fd_ = OpenCursor();
  int error = cursor_fd_ < 0 ? errno : 0;
  if (error == 0 && ::lseek(cursor_fd_, 0, SEEK_SET) != 0) error = errno;
  if (error == 0) {
    const ssize_t n = write_(cursor_fd_, text.data(), text.size());
    if (n != static_cast<ssize_t>(text.size())) error = n < 0 ? errno : ENOSPC;
  }
  if (error == 0 && ::fdatasync(cursor_fd_) != 0) error = errno;
  if (error == 0) {
    cursor_dirty_ = cursor_short_ = false;
    acks_unwritten_ = 0;
    if (cursor_fails_) Note("the cursor " + path + " is written again");
    cursor_fails_ = false;
    return;
  }
  if (!cursor_fails_) {
    Note("cannot write " + path + " (" + Reason(error) +
         "): records acknowledged since may be sent again after a restart");
  }
  cursor_fails_ = true;
}

void Spool::Recover() {
  ReadCursor();
  const std::vector<std::uint64_t> firsts = ListSegments();
  if (cursor_blank_ && !firsts.empty()) {
    LostUnknown("the cursor " + dir_ + "/cursor was missing or empty beside segments" +
                " (a full disk or a crash kept it from being written)");
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

// Begins segment `first`, to be appended to; false (reported) when it cannot be made.
bool Spool::OpenSegment(std::uint64_t first) {
  if (dir_fd_ < 0 || (!segments_.empty() && segments_.back().first >= first)) return false;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  const std::string path = SegmentPath(first);
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0640);
  if (fd < 0) {
    if (!writing_fails_) Note("cannot create " + path + " (" + Reason(errno) + ")");
    return false;
  }
  fd_ = fd;
  segments_.push_back({first, 0});
  return true;
}

// Removes entries_[index] (and its payload held in memory), keeping handed_out_ on the same
// next record.
void Spool::Erase(std::size_t index) {
  const Entry& e = entries_[index];
  if (e.segment == 0) {
    memory_bytes_ -= e.length;
    memory_.erase(e.sequence);
  }
  entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(index));
  if (index < handed_out_) --handed_out_;
}

void Spool::EvictOldest() {
  const Segment oldest = segments_.front();
  // Its records, with records held in memory among them (a write that failed meanwhile).
  std::size_t kept = 0, handed_out = handed_out_;
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].segment != oldest.first) {
      entries_[kept++] = entries_[i];
      continue;
    }
    if (!entries_[i].acked) ++evicted_;
    if (i < handed_out_) --handed_out;
  }
  entries_.resize(kept);
  handed_out_ = handed_out;
  ::unlink(SegmentPath(oldest.first).c_str());
  bytes_ -= oldest.bytes;
  segments_.pop_front();
  cursor_dirty_ = true;
  WriteCursor();  // the eviction count survives a restart
}

// Writes `record` (of sequence `sequence`) at the end of the newest segment, beginning a new one
// and evicting the oldest as the bounds require, then fdatasync(). False when the disk refused
// it: the segment is cut back to its last whole record.
bool Spool::WriteRecord(std::uint64_t sequence, const std::string& record) {
  if (dir_fd_ < 0) return false;
  const std::uint64_t size = record.size();
  const bool full = !segments_.empty() && segments_.back().bytes > 0 &&
                    segments_.back().bytes + size > segment_bytes_;
  if ((fd_ < 0 || full) && !OpenSegment(sequence)) return false;
  while ((bytes_ + size > max_bytes_ || entries_.size() >= max_entries_) && segments_.size() > 1) {
    EvictOldest();
  }
  Segment& segment = segments_.back();
  const ssize_t n = write_(fd_, record.data(), record.size());
  int error = n < 0 ? errno : (n != static_cast<ssize_t>(size) ? ENOSPC : 0);
  if (error == 0 && ::fdatasync(fd_) != 0) error = errno;
  if (error == 0) {
    if (writing_fails_) Note("writing " + dir_ + " works again");
    writing_fails_ = dropping_ = false;
    return true;
  }
  if (!writing_fails_) {
    Note("cannot write " + SegmentPath(segment.first) + " (" + Reason(error) + ")" +
         (error == ENOSPC ? ": the disk is full" : "") +
         ": records are held in memory until the disk takes them again");
  }
  writing_fails_ = true;
  if (::ftruncate(fd_, static_cast<off_t>(segment.bytes)) != 0) {
    ::close(fd_);  // a torn tail stays: the next record begins a new segment
    fd_ = -1;
  }
  return false;
}

// Keeps a record whose write failed in memory; the oldest held leave first when the memory
// bound requires (counted lost). False (counted lost) when it alone is larger than the bound.
bool Spool::HoldInMemory(std::uint64_t sequence, std::uint32_t source, std::uint32_t topic,
                         std::string_view payload) {
  if (payload.size() > memory_bound_) {
    ++lost_;
    cursor_dirty_ = true;
    Note("record " + std::to_string(sequence) + " (" + std::to_string(payload.size()) +
         " bytes) is not written and larger than what is held in memory: lost");
    return false;
  }
  // At most memory_bound_ / kHeldRecordBytes records too: small ones cost more than payloads.
  while ((memory_bytes_ + payload.size() > memory_bound_ ||
          memory_.size() >= memory_bound_ / kHeldRecordBytes) &&
         !memory_.empty()) {
    const std::uint64_t oldest = memory_.begin()->first;
    const auto it =
        std::lower_bound(entries_.begin(), entries_.end(), oldest,
                         [](const Entry& e, std::uint64_t s) { return e.sequence < s; });
    ++lost_;
    cursor_dirty_ = true;
    if (!dropping_) {
      Note("the records held in memory reached " + std::to_string(memory_bound_) +
           " bytes: the oldest are dropped");
    }
    dropping_ = true;
    if (it == entries_.end() || it->sequence != oldest) {  // not expected: memory_ alone
      memory_bytes_ -= memory_.begin()->second.size();
      memory_.erase(memory_.begin());
      continue;
    }
    Erase(static_cast<std::size_t>(it - entries_.begin()));
  }
  const bool first_held = memory_.empty();
  memory_.emplace(sequence, std::string(payload));
  memory_bytes_ += payload.size();
  entries_.push_back(
      {sequence, source, topic, 0, 0, static_cast<std::uint32_t>(payload.size()), false});
  // The cursor says records are held (in place: also on a full disk), so that a next start
  // knows of a loss a crash would leave uncounted.
  if (first_held) WriteCursor();
  return true;
}

std::uint64_t Spool::Append(std::uint32_t topic, std::uint32_t source, std::string_view payload) {
  if (last_sequence_ == std::numeric_limits<std::uint64_t>::max()) {  // a crafted segment's name
    ++lost_;
    cursor_dirty_ = true;
    Note("no sequence is left after " + std::to_string(last_sequence_) + ": record dropped");
    return 0;
  }
  const std::uint64_t sequence = last_sequence_ + 1;
  last_sequence_ = sequence;  // also when the record is lost: the receiver sees the gap
  last_source_ = std::max(last_source_, source);
  const std::uint64_t size = kRecordOverhead + payload.size();
  if (size > segment_bytes_) {
    ++lost_;
    cursor_dirty_ = true;
    Note("record " + std::to_string(sequence) + " of " + std::to_string(size) +
         " bytes is larger than a segment (" + std::to_string(segment_bytes_) + "): dropped");
    return 0;
  }
  if (!WriteRecord(sequence, SpoolRecordBytes(sequence, source, topic, payload))) {
    return HoldInMemory(sequence, source, topic, payload) ? sequence : 0;
  }
  Segment& segment = segments_.back();
  entries_.push_back({sequence, source, topic, segment.first, segment.bytes + kRecordOverhead,
                      static_cast<std::uint32_t>(payload.size()), false});
  segment.bytes += size;
  bytes_ += size;
  return sequence;
}

// A record's payload: held in memory, or read back from its segment; false when it cannot be.
bool Spool::ReadPayload(const Entry& e, std::string* payload) const {
  if (e.segment == 0) {
    const auto it = memory_.find(e.sequence);
    if (it == memory_.end()) return false;
    *payload = it->second;
    return true;
  }
  payload->assign(e.length, '\0');
  const int fd = ::open(SegmentPath(e.segment).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;
  const ssize_t n = ::pread(fd, payload->data(), e.length, static_cast<off_t>(e.offset));
  ::close(fd);
  return n == static_cast<ssize_t>(e.length);
}

std::optional<SpoolRecord> Spool::Next() {
  while (true) {
    while (handed_out_ < entries_.size() && entries_[handed_out_].acked) ++handed_out_;
    if (handed_out_ >= entries_.size()) return std::nullopt;
    const Entry& e = entries_[handed_out_];
    SpoolRecord record{e.sequence, e.source, e.topic, {}};
    if (ReadPayload(e, &record.payload)) {
      ++handed_out_;
      return record;
    }
    ++lost_;
    cursor_dirty_ = true;
    Note("cannot read record " + std::to_string(e.sequence) + " back from " +
         SegmentPath(e.segment) + ": lost");
    Erase(handed_out_);
    DropAcknowledged();
  }
}

void Spool::Ack(std::uint64_t sequence) {
  const auto it = std::lower_bound(entries_.begin(), entries_.end(), sequence,
                                   [](const Entry& e, std::uint64_t s) { return e.sequence < s; });
  if (it == entries_.end() || it->sequence != sequence) return;
  it->acked = true;
  DropAcknowledged();
}

void Spool::Rewind() { handed_out_ = 0; }

void Spool::DropAcknowledged() {
  std::uint32_t moved = 0;
  while (!entries_.empty() && entries_.front().acked) {
    acked_sequence_ = entries_.front().sequence;
    acked_source_ = std::max(acked_source_, entries_.front().source);
    Erase(0);
    ++moved;
  }
  if (entries_.empty() && last_sequence_ > acked_sequence_) {
    acked_sequence_ = last_sequence_;  // the rest were evicted or lost: counted already
    acked_source_ = std::max(acked_source_, last_source_);
    ++moved;
  }
  // Segments before the oldest record still needed on disk (never the one appended to).
  std::uint64_t needed = std::numeric_limits<std::uint64_t>::max();
  for (const Entry& e : entries_) {
    if (e.segment != 0) {
      needed = e.segment;
      break;
    }
  }
  while (segments_.size() > 1 && segments_.front().first < needed) {
    ::unlink(SegmentPath(segments_.front().first).c_str());
    bytes_ -= segments_.front().bytes;
    segments_.pop_front();
  }
  if (moved > 0) {
    cursor_dirty_ = true;
    acks_unwritten_ += moved;
  }
  // Not on every acknowledgement: each costs two fsync()s. At the latest once nothing handed out
  // waits, or every kAcksPerCursor.
  if (cursor_dirty_ && (handed_out_ == 0 || acks_unwritten_ >= kAcksPerCursor)) WriteCursor();
}

}  // namespace robot_edge::uplink
