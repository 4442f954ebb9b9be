#include "uplink/spool_recovery.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <vector>

namespace robot_edge::uplink::spool_detail {

namespace {

// A read-only window over the file, refilled by pread() only when asked beyond it: the most a
// scan holds of the file, whatever its size.
class Window {
 public:
  static constexpr std::size_t kBytes = 64 * 1024;

  Window(int fd, std::uint64_t size) : fd_(fd), size_(size), buffer_(kBytes) {}

  // The `n` bytes (n <= kBytes, at + n <= the file's size) at `at`; nullptr when the read fails
  // (error() says why; EIO when the file shrank under the scan).
  const unsigned char* At(std::uint64_t at, std::size_t n) {
    if (at < start_ || at + n > start_ + filled_) {
      const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(kBytes, size_ - at));
      start_ = at;
      filled_ = 0;
      while (filled_ < want) {
        const ssize_t got = ::pread(fd_, buffer_.data() + filled_, want - filled_,
                                    static_cast<off_t>(at + filled_));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
          error_ = got < 0 ? errno : EIO;
          filled_ = 0;
          return nullptr;
        }
        filled_ += static_cast<std::size_t>(got);
      }
    }
    return buffer_.data() + (at - start_);
  }
  int error() const { return error_; }

 private:
  int fd_;
  std::uint64_t size_;
  std::vector<unsigned char> buffer_;
  std::uint64_t start_ = 0;
  std::size_t filled_ = 0;
  int error_ = 0;
};

template <typename T>
T Get(const unsigned char* in) {
  T value;
  std::memcpy(&value, in, sizeof(value));
  return value;
}

enum class Check { kValid, kDamaged, kNone, kError };

// Whether a record at `at` checks: kNone without its magic or with a length past the end of the
// file (a torn write), kDamaged when its CRC does not match.
Check CheckRecord(Window& window, std::uint64_t at, std::uint64_t size, ScannedRecord* out) {
  const unsigned char* header = window.At(at, kRecordOverhead);
  if (header == nullptr) return Check::kError;
  const auto length = Get<std::uint32_t>(header + 4);
  if (Get<std::uint32_t>(header) != kMagic || length > size - at - kRecordOverhead) {
    return Check::kNone;
  }
  *out = {Get<std::uint64_t>(header + 8), Get<std::uint32_t>(header + 16),
          Get<std::uint32_t>(header + 20), at + kRecordOverhead, length};
  const auto stored = Get<std::uint32_t>(header + kHeaderBytes);
  std::uint32_t crc = Crc32(header, kHeaderBytes);  // `header` is not used past the next At()
  for (std::uint32_t done = 0; done < length;) {
    const std::size_t n = std::min<std::size_t>(Window::kBytes, length - done);
    const unsigned char* piece = window.At(out->offset + done, n);
    if (piece == nullptr) return Check::kError;
    crc = Crc32(piece, n, crc);
    done += static_cast<std::uint32_t>(n);
  }
  return crc == stored ? Check::kValid : Check::kDamaged;
}

// The offset of the next magic at or after `from` with room for a header, or `size` when there
// is none (or a read failed: *error set).
std::uint64_t NextMagic(Window& window, std::uint64_t from, std::uint64_t size, int* error) {
  std::array<unsigned char, 4> magic{};
  std::memcpy(magic.data(), &kMagic, magic.size());
  std::uint64_t at = from;
  while (at < size && size - at >= kRecordOverhead) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(Window::kBytes, size - at));
    const unsigned char* bytes = window.At(at, n);
    if (bytes == nullptr) {
      *error = window.error();
      return size;
    }
    const unsigned char* found = std::search(bytes, bytes + n, magic.begin(), magic.end());
    if (found != bytes + n) return at + static_cast<std::uint64_t>(found - bytes);
    at += n - (magic.size() - 1);  // a magic may straddle two windows
  }
  return size;
}

}  // namespace

std::uint32_t Crc32(const unsigned char* data, std::size_t size, std::uint32_t crc) {
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

SegmentScan ScanSegment(int fd, std::uint64_t size, std::uint64_t* newest,
                        const std::function<void(const ScannedRecord&)>& keep,
                        const std::function<void(std::uint64_t)>& damaged_at) {
  SegmentScan scan;
  Window window(fd, size);
  std::uint64_t at = 0, damaged = 0;  // damaged since the last record kept
  while (size - at >= kRecordOverhead) {
    ScannedRecord record{};
    const Check check = CheckRecord(window, at, size, &record);
    if (check == Check::kError) {
      scan.read_error = window.error();
      break;
    }
    if (check == Check::kValid) {
      const std::uint64_t next = record.offset + record.length;
      if (record.sequence > kMaxSequence) {
        ++scan.implausible;
      } else if (record.sequence <= *newest) {
        ++scan.not_rising;
      } else {
        scan.skipped += at - scan.end;
        scan.damaged += damaged;  // durable once a later record was: lost, not torn
        damaged = 0;
        *newest = record.sequence;
        keep(record);
        scan.end = next;
      }
      at = next;
      continue;
    }
    if (check == Check::kDamaged) {
      ++damaged;
      damaged_at(at);
    }
    at = NextMagic(window, at + 1, size, &scan.read_error);
    if (scan.read_error != 0) break;
  }
  return scan;
}

}  // namespace robot_edge::uplink::spool_detail
