#include "uplink/spool.hpp"

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

namespace {

constexpr std::uint32_t kMagic = 0x4C505552;               // "RUPL"
constexpr std::size_t kHeaderBytes = 24;                   // magic, length, sequence, source, topic
constexpr std::size_t kRecordOverhead = kHeaderBytes + 4;  // + crc32
constexpr std::uint64_t kMinBytes = 64 * 1024;
constexpr std::uint64_t kMaxMemoryBytes = 8 << 20;  // payloads held in memory, at most
constexpr std::uint32_t kAcksPerCursor = 32;        // the cursor written at least this often
constexpr std::size_t kMaxStrayNotes = 8;           // stray names reported one by one
constexpr std::size_t kMaxCursorBytes = 256;
constexpr std::size_t kDigits = 20;
constexpr const char* kPrefix = "seg-";
constexpr const char* kSuffix = ".log";
// The uplink's other files in the spool's directory (announced_file.hpp, pending_apply.hpp).
constexpr std::array<const char*, 6> kKnownNames = {
    "cursor", "cursor.tmp", "announced", "announced.new", "apply-pending", "apply-pending.new"};

std::uint32_t Crc32(const unsigned char* data, std::size_t size, std::uint32_t crc = 0) {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  crc = ~crc;
  for (std::size_t i = 0; i < size; ++i) crc = table[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

template <typename T>
void Put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(value));
}
template <typename T>
T Get(const std::string& in, std::size_t at) {
  T value;
  std::memcpy(&value, in.data() + at, sizeof(value));
  return value;
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

struct Cursor {
  std::uint64_t acked = 0, evicted = 0, lost = 0, last = 0;
  std::uint32_t source = 0;
};

// The cursor's text, "acked evicted source [lost last]" (the last two since issue 38), space
// separated, one line; nullopt for anything else.
std::optional<Cursor> ParseCursor(std::string_view text) {
  std::vector<std::uint64_t> fields;
  std::size_t at = 0;
  while (fields.size() <= 5) {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\n')) ++at;
    if (at == text.size()) break;
    std::uint64_t value = 0;
    if (!ParseDigits(text, &at, kDigits, &value)) return std::nullopt;
    fields.push_back(value);
  }
  if ((fields.size() != 3 && fields.size() != 5) ||
      fields[2] > std::numeric_limits<std::uint32_t>::max()) {
    return std::nullopt;
  }
  const bool five = fields.size() == 5;
  return Cursor{fields[0], fields[1], five ? fields[3] : 0, five ? fields[4] : 0,
                static_cast<std::uint32_t>(fields[2])};
}

// The file at `path` (not through a symbolic link), up to `max` bytes (nullopt beyond);
// nullopt when it cannot be read, errno saying why.
std::optional<std::string> ReadFile(const std::string& path, std::uint64_t max) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return std::nullopt;
  std::string out;
  std::array<char, 65536> buffer;
  while (true) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || out.size() + static_cast<std::size_t>(n) > max) {
      const int error = n < 0 ? errno : EFBIG;
      ::close(fd);
      if (n == 0) return out;
      errno = error;
      return std::nullopt;
    }
    out.append(buffer.data(), static_cast<std::size_t>(n));
  }
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
      write_(write != nullptr ? write : &::write) {
  if (max_bytes_ < kMinBytes) throw SpoolError("spool: the bound must be at least 64 KiB");
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
  if (cursor_dirty_) WriteCursor();
  if (fd_ >= 0) ::close(fd_);
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

// An unreadable or garbled cursor counts as 0: the records left are sent again (each has its
// seq), and the eviction and loss counts start again.
void Spool::ReadCursor() {
  const std::string path = dir_ + "/cursor";
  const auto text = ReadFile(path, kMaxCursorBytes);
  if (!text) {
    if (errno != ENOENT) {  // ENOENT: a new spool
      Note("cannot read " + path + " (" + Reason(errno) +
           "): counted as 0, the records left are sent again");
      cursor_dirty_ = true;
    }
    return;
  }
  const auto cursor = ParseCursor(*text);
  if (!cursor) {
    Note(path + " is " + (text->empty() ? "empty" : "garbled") +
         " (a power cut?): counted as 0, the records left are sent again");
    cursor_dirty_ = true;
    return;
  }
  acked_sequence_ = cursor->acked;
  evicted_ = cursor->evicted;
  lost_ = cursor->lost;
  acked_source_ = cursor->source;
  last_sequence_ = std::max(last_sequence_, cursor->last);
}

// The cursor, durably: a temporary file fsync()ed, renamed over it, the directory fsync()ed.
// Best effort: when it fails the cursor on disk stays behind (records acknowledged since are
// sent again after a restart) and the next acknowledgement tries again.
void Spool::WriteCursor() {
  if (dir_fd_ < 0) return;
  const std::string path = dir_ + "/cursor", temporary = path + ".tmp";
  const std::string text = std::to_string(acked_sequence_) + " " + std::to_string(evicted_) + " " +
                           std::to_string(acked_source_) + " " + std::to_string(lost_) + " " +
                           std::to_string(last_sequence_) + "\n";
  ::unlink(temporary.c_str());  // whatever is there (a link, a directory's name) is not ours
  const int fd =
      ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0640);
  int error = fd < 0 ? errno : 0;
  if (fd >= 0) {
    const ssize_t n = write_(fd, text.data(), text.size());
    if (n != static_cast<ssize_t>(text.size())) error = n < 0 ? errno : ENOSPC;
    if (error == 0 && ::fsync(fd) != 0) error = errno;
    ::close(fd);
  }
  if (error == 0 && ::rename(temporary.c_str(), path.c_str()) != 0) error = errno;
  if (error == 0 && ::fsync(dir_fd_) != 0) error = errno;
  if (error == 0) {
    cursor_dirty_ = false;
    acks_unwritten_ = 0;
    if (cursor_fails_) Note("the cursor " + path + " is written again");
    cursor_fails_ = false;
    return;
  }
  ::unlink(temporary.c_str());
  if (!cursor_fails_) {
    Note("cannot write " + path + " (" + Reason(error) +
         "): records acknowledged since may be sent again after a restart");
  }
  cursor_fails_ = true;
}

void Spool::Recover() {
  ReadCursor();
  const std::vector<std::uint64_t> firsts = ListSegments();
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
  DropAcknowledged();
}

// The segments' first sequences, oldest first. Names the spool does not know are left alone
// and reported (the first kMaxStrayNotes of them).
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
    if (first && regular) {
      firsts.push_back(*first);
    } else if (++strays <= kMaxStrayNotes) {
      Note("left alone: " + dir_ + "/" + name +
           (first ? " (not a regular file)" : " (not a segment's name, seg-<20 digits>.log)"));
    }
  }
  ::closedir(listing);
  if (strays > kMaxStrayNotes) {
    Note("left alone: " + std::to_string(strays - kMaxStrayNotes) + " more names in " + dir_);
  }
  std::sort(firsts.begin(), firsts.end());
  return firsts;
}

// Indexes one segment's records; a record that does not check (torn write, corruption) or whose
// sequence does not rise ends it, and the file is cut there. False when it cannot be read (it is
// then left alone and not used).
bool Spool::LoadSegment(std::uint64_t first, std::uint64_t* newest) {
  const std::string path = SegmentPath(first);
  const auto read = ReadFile(path, std::numeric_limits<std::uint64_t>::max());
  if (!read) {
    Note("cannot read " + path + " (" + Reason(errno) + "): left alone");
    return false;
  }
  const std::string& data = *read;
  const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
  std::size_t at = 0;
  while (data.size() - at >= kRecordOverhead) {
    const std::uint32_t length = Get<std::uint32_t>(data, at + 4);
    if (Get<std::uint32_t>(data, at) != kMagic || data.size() - at - kRecordOverhead < length) {
      break;
    }
    std::uint32_t crc = Crc32(bytes + at, kHeaderBytes);
    crc = Crc32(bytes + at + kRecordOverhead, length, crc);
    const auto sequence = Get<std::uint64_t>(data, at + 8);
    if (Get<std::uint32_t>(data, at + kHeaderBytes) != crc || sequence <= *newest) break;
    *newest = sequence;
    const auto source = Get<std::uint32_t>(data, at + 16);
    last_sequence_ = std::max(last_sequence_, sequence);
    last_source_ = std::max(last_source_, source);
    if (sequence > acked_sequence_) {
      entries_.push_back({sequence, source, Get<std::uint32_t>(data, at + 20), first,
                          at + kRecordOverhead, length, false});
    }
    at += kRecordOverhead + length;
  }
  if (at < data.size()) {
    torn_bytes_ += data.size() - at;
    if (::truncate(path.c_str(), static_cast<off_t>(at)) != 0) {
      Note("cannot cut " + path + " (" + Reason(errno) + "): not appended to");
      uncut_ = first;  // Recover() opens none, the first Append() begins a new segment
    }
  }
  segments_.push_back({first, at});
  bytes_ += at;
  return true;
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
  while (bytes_ + size > max_bytes_ && segments_.size() > 1) EvictOldest();
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
    Note("cannot write " + SegmentPath(segment.first) + " (" + Reason(error) +
         "): records are held in memory until the disk takes them again");
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
  while (memory_bytes_ + payload.size() > memory_bound_ && !memory_.empty()) {
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
  memory_.emplace(sequence, std::string(payload));
  memory_bytes_ += payload.size();
  entries_.push_back(
      {sequence, source, topic, 0, 0, static_cast<std::uint32_t>(payload.size()), false});
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
