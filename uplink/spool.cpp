#include "uplink/spool.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <utility>

#include "uplink/spool_recovery.hpp"

namespace robot_edge::uplink {

namespace {

using spool_detail::Crc32;
using spool_detail::kCursorBytes;
using spool_detail::kHeaderBytes;
using spool_detail::kMagic;
using spool_detail::kPrefix;
using spool_detail::kRecordOverhead;
using spool_detail::kSuffix;
constexpr std::uint64_t kMinBytes = 64 * 1024;
constexpr std::uint64_t kMaxMemoryBytes = 8 << 20;  // payloads held in memory, at most
constexpr std::uint64_t kHeldRecordBytes = 128;     // a record held costs this beside its payload
constexpr std::uint32_t kAcksPerCursor = 32;        // the cursor written at least this often

template <typename T>
void Put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

std::string Reason(int error) { return std::strerror(error); }

// Writes all `size` bytes; 0, or the errno of the write that failed. A short write is followed
// by another so that the kernel names the cause (ENOSPC, EFBIG past RLIMIT_FSIZE, EIO...); one
// that writes nothing and names nothing counts as ENOSPC.
int WriteWhole(SpoolWrite write, int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return ENOSPC;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return 0;
}

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
    error = WriteWhole(write_, cursor_fd_, text.data(), text.size());
  }
  // One of another size (an earlier version's, a damaged one) is cut to it: it only shrinks.
  if (error == 0 && cursor_short_ && ::ftruncate(cursor_fd_, kCursorBytes) != 0) error = errno;
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
  int error = WriteWhole(write_, fd_, record.data(), record.size());
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
  // Never a sequence above 2^48, which a next start would not believe (a crafted cursor or
  // segment can bring the last one there).
  if (last_sequence_ >= spool_detail::kMaxSequence) {
    ++lost_;
    cursor_dirty_ = true;
    Note("no sequence is left after " + std::to_string(last_sequence_) +
         " (at most 2^48): record dropped");
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
