// Fuzz target: the uplink spool's recovery (uplink/spool.hpp, issue 38 M8). The input becomes a
// spool directory (a cursor, segments of raw bytes or of well-formed records then damaged, stray
// names, directories with a segment's name); then the spool opens it, appends, hands out,
// acknowledges, rewinds and reopens. Nothing may crash or throw (the constructor may throw
// SpoolError, and only on a bound below 64 KiB, which this target never asks for), and the
// records handed out between two rewinds must rise.
//
// Input: [bound] then sections, each [kind] ...:
//   kind % 6 == 0  cursor        [length u8] [bytes]
//   kind % 6 == 1  raw segment   [first u8] [length u8] [bytes]
//   kind % 6 == 2  record segment [first u8] [count u8] count x ([step u8] [source u8] [topic u8]
//                  [length u8] [payload]) [damage u8]: 0 none, odd: one byte flipped, even: cut
//   kind % 6 == 3  stray name    [length u8] [bytes] ('/' and NUL become '_')
//   kind % 6 == 4  a directory named as segment [first u8]
//   kind % 6 == 5  the rest are actions, one byte each (then its argument bytes):
//                  0 append [length u8] (x 37 bytes), 1 next, 2 ack [index u8] of the handed
//                  out, 3 rewind, 4 reopen
// A `first` byte of 250..255 stands for the largest sequences (UINT64_MAX - 5 .. UINT64_MAX).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "uplink/spool.hpp"

namespace {

namespace fs = std::filesystem;
using robot_edge::uplink::Spool;
using robot_edge::uplink::SpoolError;

class Input {
 public:
  Input(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool empty() const { return at_ >= size_; }
  std::uint8_t Byte() { return at_ < size_ ? data_[at_++] : 0; }
  std::string Bytes(std::size_t n) {
    n = std::min(n, size_ - std::min(at_, size_));
    std::string out(reinterpret_cast<const char*>(data_ + at_), n);
    at_ += n;
    return out;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

// A per-process directory on tmpfs when there is one: the spool fsync()s every record.
const fs::path& WorkDir() {
  static const fs::path dir = [] {
    const fs::path base = fs::exists("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
    return base / ("robot-edge-fuzz-spool-" + std::to_string(::getpid()));
  }();
  return dir;
}

std::uint64_t First(std::uint8_t b) { return b >= 250 ? UINT64_MAX - (255 - b) : b; }

std::string SegmentName(std::uint64_t first) {
  char name[64];
  std::snprintf(name, sizeof(name), "seg-%020llu.log", static_cast<unsigned long long>(first));
  return name;
}

void WriteFile(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::string RecordSegment(Input& in, std::uint64_t first) {
  std::string bytes;
  std::uint64_t sequence = first;
  const int count = in.Byte() % 16;
  for (int i = 0; i < count; ++i) {
    sequence += in.Byte() % 4;  // 0: the same again (must be cut)
    const std::uint32_t source = in.Byte();
    const std::uint32_t topic = in.Byte() % 8;
    bytes += robot_edge::uplink::SpoolRecordBytes(sequence, source, topic, in.Bytes(in.Byte()));
  }
  const std::uint8_t damage = in.Byte();
  if (damage != 0 && !bytes.empty()) {
    const std::size_t at = (damage * 7u) % bytes.size();
    if (damage % 2 == 1) {
      bytes[at] = static_cast<char>(bytes[at] ^ 0x5A);
    } else {
      bytes.resize(at);
    }
  }
  return bytes;
}

void MakeDirectory(Input& in, const fs::path& dir) {
  while (!in.empty()) {
    const std::uint8_t kind = in.Byte() % 6;
    if (kind == 0) {
      WriteFile(dir / "cursor", in.Bytes(in.Byte()));
    } else if (kind == 1) {
      const std::uint64_t first = First(in.Byte());
      WriteFile(dir / SegmentName(first), in.Bytes(in.Byte()));
    } else if (kind == 2) {
      const std::uint64_t first = First(in.Byte());
      WriteFile(dir / SegmentName(first), RecordSegment(in, first));
    } else if (kind == 3) {
      std::string name = in.Bytes(in.Byte() % 32);
      for (char& c : name) {
        if (c == '/' || c == '\0') c = '_';
      }
      if (!name.empty() && name != "." && name != "..") WriteFile(dir / name, "stray");
    } else if (kind == 4) {
      std::error_code error;
      fs::create_directory(dir / SegmentName(First(in.Byte())), error);
    } else {
      return;
    }
  }
}

// Sequences handed out since the last rewind rise; an acknowledged one is not handed out again.
class Checker {
 public:
  void Handed(std::uint64_t sequence) {
    if (sequence <= last_) std::abort();
    last_ = sequence;
    handed_.push_back(sequence);
  }
  void Rewound() { last_ = 0; }
  std::optional<std::uint64_t> Pick(std::uint8_t index) const {
    if (handed_.empty()) return std::nullopt;
    return handed_[index % handed_.size()];
  }

 private:
  std::uint64_t last_ = 0;
  std::vector<std::uint64_t> handed_;
};

void Act(Input& in, const fs::path& dir, std::uint64_t bound) {
  auto spool = std::make_unique<Spool>(dir.string(), bound);
  Checker checker;
  int reopens = 0;
  while (!in.empty()) {
    switch (in.Byte() % 5) {
      case 0: spool->Append(1, in.Byte(), std::string(in.Byte() * 37u, 'p')); break;
      case 1:
        if (auto r = spool->Next()) checker.Handed(r->sequence);
        break;
      case 2:
        if (auto s = checker.Pick(in.Byte())) spool->Ack(*s);
        break;
      case 3:
        spool->Rewind();
        checker.Rewound();
        break;
      default:
        if (++reopens > 4) break;
        spool.reset();
        spool = std::make_unique<Spool>(dir.string(), bound);
        checker = Checker();
        break;
    }
    spool->TakeNotes();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in(data, size);
  const std::uint64_t bound = std::uint64_t{64 * 1024} << (in.Byte() % 4);
  const fs::path& dir = WorkDir();
  std::error_code error;
  fs::remove_all(dir, error);
  fs::create_directories(dir);
  MakeDirectory(in, dir);
  try {
    Act(in, dir, bound);
  } catch (const SpoolError&) {
    std::abort();  // the bound is valid: opening may not fail
  }
  fs::remove_all(dir, error);
  return 0;
}
