// The on-disk format's constants, and the spool's reading of one segment file when it opens
// (spool.hpp states the format and the recovery contract): record by record through a fixed window
// of 64 KiB, never the whole file, and never a payload whole (its CRC is summed piece by piece).
// Pure of the spool's state: it reads `fd` and reports; the caller indexes, cuts and counts. Not
// thread-safe (one caller).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace robot_edge::uplink::spool_detail {

constexpr std::uint32_t kMagic = 0x4C505552;               // "RUPL"
constexpr std::size_t kHeaderBytes = 24;                   // magic, length, sequence, source, topic
constexpr std::size_t kRecordOverhead = kHeaderBytes + 4;  // + crc32
// A sequence above this is not believed (corruption or a crafted file): at one record per
// microsecond it would take 8.9 years to reach.
constexpr std::uint64_t kMaxSequence = std::uint64_t{1} << 48;
constexpr std::size_t kCursorBytes = 160;  // the cursor's fixed size: 7 fields of 20 digits fit
constexpr const char* kPrefix = "seg-";    // a segment's name: kPrefix, 20 digits, kSuffix
constexpr const char* kSuffix = ".log";

std::uint32_t Crc32(const unsigned char* data, std::size_t size, std::uint32_t crc = 0);

struct ScannedRecord {
  std::uint64_t sequence;
  std::uint32_t source;
  std::uint32_t topic;
  std::uint64_t offset;  // of the payload in the file
  std::uint32_t length;
};

struct SegmentScan {
  std::uint64_t end = 0;          // just after the last valid record: the file is cut there
  std::uint64_t skipped = 0;      // bytes before `end` that are no valid record (left in place)
  std::uint64_t damaged = 0;      // records whose CRC fails, with valid records after them: lost
  std::uint64_t implausible = 0;  // records that check but whose sequence is above kMaxSequence
  std::uint64_t not_rising = 0;   // records that check but whose sequence does not rise
  int read_error = 0;             // errno of a read that failed (0: none); `end` stops there
};

// Scans the `size` bytes of the segment open at `fd`: each record that checks (magic, length
// within the file, CRC) and whose sequence rises above *newest and is at most kMaxSequence is
// passed to `keep`, and *newest becomes its sequence. After anything else it looks for the next
// magic whose record checks, one byte on, so a corrupt region cuts no valid record after it.
// `damaged` is given the offset of each record whose header is whole but whose CRC fails.
SegmentScan ScanSegment(int fd, std::uint64_t size, std::uint64_t* newest,
                        const std::function<void(const ScannedRecord&)>& keep,
                        const std::function<void(std::uint64_t)>& damaged);

}  // namespace robot_edge::uplink::spool_detail
