#include "uplink/spool.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace robot_edge::uplink {

namespace {

constexpr std::uint32_t kMagic = 0x4C505552;               // "RUPL"
constexpr std::size_t kHeaderBytes = 24;                   // magic, length, sequence, source, topic
constexpr std::size_t kRecordOverhead = kHeaderBytes + 4;  // + crc32
constexpr std::uint64_t kMinBytes = 64 * 1024;
constexpr const char* kPrefix = "seg-";
constexpr const char* kSuffix = ".log";

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

[[noreturn]] void Fail(const std::string& what) {
  throw SpoolError("spool: " + what + ": " + std::strerror(errno));
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

std::string ReadAll(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) Fail("cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(file), {});
}

}  // namespace

Spool::Spool(std::string dir, std::uint64_t max_bytes)
    : dir_(std::move(dir)), max_bytes_(max_bytes), segment_bytes_(max_bytes / 8) {
  if (max_bytes_ < kMinBytes) throw SpoolError("spool: the bound must be at least 64 KiB");
  std::error_code error;
  std::filesystem::create_directories(dir_, error);
  if (error) throw SpoolError("spool: cannot create " + dir_ + ": " + error.message());
  Recover();
}

Spool::~Spool() {
  if (fd_ >= 0) ::close(fd_);
}

std::string Spool::SegmentPath(std::uint64_t first) const {
  char name[64];
  std::snprintf(name, sizeof(name), "%s%020llu%s", kPrefix, static_cast<unsigned long long>(first),
                kSuffix);
  return dir_ + "/" + name;
}

void Spool::ReadCursor() {
  std::ifstream file(dir_ + "/cursor");
  if (!file) return;  // a new spool
  unsigned long long acked = 0, evicted = 0;
  std::uint32_t source = 0;
  if (!(file >> acked >> evicted >> source))
    throw SpoolError("spool: " + dir_ + "/cursor is corrupt");
  acked_sequence_ = acked;
  evicted_ = evicted;
  acked_source_ = source;
}

void Spool::WriteCursor() const {
  const std::string path = dir_ + "/cursor";
  {
    std::ofstream file(path + ".tmp", std::ios::trunc);
    file << acked_sequence_ << " " << evicted_ << " " << acked_source_ << "\n";
    if (!file.flush()) Fail("cannot write " + path + ".tmp");
  }
  if (std::rename((path + ".tmp").c_str(), path.c_str()) != 0) Fail("cannot rename " + path);
}

void Spool::Recover() {
  ReadCursor();
  std::vector<std::uint64_t> firsts;
  for (const auto& item : std::filesystem::directory_iterator(dir_)) {
    const std::string name = item.path().filename().string();
    if (name.rfind(kPrefix, 0) != 0 || name.size() < 9) continue;
    firsts.push_back(std::stoull(name.substr(4, name.size() - 8)));
  }
  std::sort(firsts.begin(), firsts.end());
  for (std::size_t i = 0; i < firsts.size(); ++i) LoadSegment(firsts[i], i + 1 == firsts.size());
  last_sequence_ = std::max(last_sequence_, acked_sequence_);
  last_source_ = std::max(last_source_, acked_source_);
  if (segments_.empty()) {
    OpenSegment(last_sequence_ + 1);
  } else {
    fd_ = ::open(SegmentPath(segments_.back().first).c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd_ < 0) Fail("cannot open " + SegmentPath(segments_.back().first));
  }
  DropAcknowledged();
}

// Indexes one segment's records; a record that does not check (torn write, corruption) ends it
// and the file is cut there.
void Spool::LoadSegment(std::uint64_t first, bool /*last*/) {
  const std::string path = SegmentPath(first);
  const std::string data = ReadAll(path);
  std::size_t at = 0;
  while (data.size() - at >= kRecordOverhead) {
    const std::uint32_t length = Get<std::uint32_t>(data, at + 4);
    if (Get<std::uint32_t>(data, at) != kMagic || data.size() - at - kRecordOverhead < length)
      break;
    const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
    std::uint32_t crc = Crc32(bytes + at, kHeaderBytes);
    crc = Crc32(bytes + at + kRecordOverhead, length, crc);
    if (Get<std::uint32_t>(data, at + kHeaderBytes) != crc) break;
    const auto sequence = Get<std::uint64_t>(data, at + 8);
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
    if (::truncate(path.c_str(), static_cast<off_t>(at)) != 0) Fail("cannot truncate " + path);
  }
  segments_.push_back({first, at});
  bytes_ += at;
}

void Spool::OpenSegment(std::uint64_t first) {
  if (fd_ >= 0) ::close(fd_);
  const std::string path = SegmentPath(first);
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0640);
  if (fd_ < 0) Fail("cannot create " + path);
  segments_.push_back({first, 0});
}

void Spool::EvictOldest() {
  const Segment oldest = segments_.front();
  std::size_t removed = 0;
  while (removed < entries_.size() && entries_[removed].segment == oldest.first) {
    if (!entries_[removed].acked) ++evicted_;
    ++removed;
  }
  entries_.erase(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(removed));
  handed_out_ = handed_out_ > removed ? handed_out_ - removed : 0;
  ::unlink(SegmentPath(oldest.first).c_str());
  bytes_ -= oldest.bytes;
  segments_.pop_front();
  WriteCursor();  // the eviction count survives a restart
}

std::uint64_t Spool::Append(std::uint32_t topic, std::uint32_t source, std::string_view payload) {
  const std::uint64_t size = kRecordOverhead + payload.size();
  if (size > segment_bytes_) {
    throw SpoolError("spool: a record of " + std::to_string(size) +
                     " bytes is larger than a segment (" + std::to_string(segment_bytes_) + ")");
  }
  const std::uint64_t sequence = last_sequence_ + 1;
  if (segments_.back().bytes > 0 && segments_.back().bytes + size > segment_bytes_) {
    OpenSegment(sequence);
  }
  while (bytes_ + size > max_bytes_ && segments_.size() > 1) EvictOldest();
  std::string record;
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
  Segment& segment = segments_.back();
  const ssize_t n = ::write(fd_, record.data(), record.size());
  if (n != static_cast<ssize_t>(record.size()) || ::fdatasync(fd_) != 0) {
    const int error = errno;
    if (::ftruncate(fd_, static_cast<off_t>(segment.bytes)) != 0) {
    }  // best effort; Recover() cuts a torn tail anyway
    errno = n < 0 ? error : EIO;
    Fail("cannot write " + SegmentPath(segment.first));
  }
  entries_.push_back({sequence, source, topic, segment.first, segment.bytes + kRecordOverhead,
                      static_cast<std::uint32_t>(payload.size()), false});
  segment.bytes += size;
  bytes_ += size;
  last_sequence_ = sequence;
  last_source_ = std::max(last_source_, source);
  return sequence;
}

std::optional<SpoolRecord> Spool::Next() {
  while (handed_out_ < entries_.size() && entries_[handed_out_].acked) ++handed_out_;
  if (handed_out_ >= entries_.size()) return std::nullopt;
  const Entry& e = entries_[handed_out_];
  SpoolRecord record{e.sequence, e.source, e.topic, std::string(e.length, '\0')};
  const int fd = ::open(SegmentPath(e.segment).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) Fail("cannot open " + SegmentPath(e.segment));
  const ssize_t n = ::pread(fd, record.payload.data(), e.length, static_cast<off_t>(e.offset));
  ::close(fd);
  if (n != static_cast<ssize_t>(e.length)) Fail("cannot read " + SegmentPath(e.segment));
  ++handed_out_;
  return record;
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
  bool moved = false;
  while (!entries_.empty() && entries_.front().acked) {
    acked_sequence_ = entries_.front().sequence;
    acked_source_ = std::max(acked_source_, entries_.front().source);
    entries_.pop_front();
    if (handed_out_ > 0) --handed_out_;
    moved = true;
  }
  if (entries_.empty() && last_sequence_ > acked_sequence_) {
    acked_sequence_ = last_sequence_;  // the rest were evicted: counted already
    acked_source_ = std::max(acked_source_, last_source_);
    moved = true;
  }
  // Segments before the oldest record still needed (never the one appended to).
  while (segments_.size() > 1 &&
         (entries_.empty() || segments_.front().first < entries_.front().segment)) {
    ::unlink(SegmentPath(segments_.front().first).c_str());
    bytes_ -= segments_.front().bytes;
    segments_.pop_front();
  }
  if (moved) WriteCursor();
}

}  // namespace robot_edge::uplink
