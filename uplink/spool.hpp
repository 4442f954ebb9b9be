// The uplink's on-disk spool: events and diagnostics wait here until the broker acknowledged
// them (PUBACK), across link outages and uplink restarts. No thread of its own, not thread-safe:
// the uplink's main thread owns it.
//
// On disk, in one directory:
//   seg-<first sequence, 20 digits>.log  append-only segments of records, each
//       [magic u32][payload length u32][sequence u64][source u32][topic u32][crc32 u32][payload]
//       (host byte order: the spool never leaves the robot); a torn or corrupt tail (a crash
//       mid-write) is cut off when the spool opens.
//   cursor  "acked_sequence evicted source": written (temporary file + rename) whenever the
//       oldest records are acknowledged.
// Durability: each Append() is written and fdatasync()ed before it returns, so an event
// accepted is on disk. The cursor is renamed without fsync: after a power cut, records acked
// since the last durable cursor are sent again (the receiver drops them by sequence).
// Bound: the segment files' total stays within max_bytes: before a record would pass it, the
// oldest segment is deleted and its records not yet acknowledged are counted in evicted().
//
// Sequences: each record gets the next per-robot sequence (1, 2, ...), never reused, also after
// a restart. `source` is what the record came from (robot-edged's EdgeEvent.sequence), kept so
// that a restarted uplink resumes robot-edged's event stream after the last one it spooled.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace robot_edge::uplink {

class SpoolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SpoolRecord {
  std::uint64_t sequence = 0;
  std::uint32_t source = 0;
  std::uint32_t topic = 0;  // the caller's (uplink: topics.hpp's Topic)
  std::string payload;
};

class Spool {
 public:
  // Opens `dir` (created when missing), recovering what a previous run left. Throws SpoolError.
  // `max_bytes` >= 64 KiB; segments are max_bytes / 8.
  Spool(std::string dir, std::uint64_t max_bytes);
  ~Spool();
  Spool(const Spool&) = delete;
  Spool& operator=(const Spool&) = delete;

  // Appends a record, durable on return; returns its sequence. Evicts the oldest segments
  // first when the bound requires. Throws SpoolError on an I/O error or a payload larger than
  // a segment.
  std::uint64_t Append(std::uint32_t topic, std::uint32_t source, std::string_view payload);

  // The oldest record not yet handed out since the last Rewind() (nullopt: none). Handed-out
  // records stay in the spool until Ack().
  std::optional<SpoolRecord> Next();
  // The broker acknowledged `sequence`: once every older record is acknowledged too, they
  // leave the spool (their segments deleted, the cursor written). Unknown sequences (evicted
  // meanwhile) are ignored.
  void Ack(std::uint64_t sequence);
  // Every record not acknowledged is handed out again by Next(), oldest first.
  void Rewind();

  std::uint64_t pending() const { return entries_.size(); }  // records not acknowledged
  std::uint64_t in_flight() const { return handed_out_; }    // handed out, not acknowledged
  std::uint64_t evicted() const { return evicted_; }         // ever, across restarts
  std::uint64_t bytes() const { return bytes_; }             // of the segment files
  std::uint64_t last_sequence() const { return last_sequence_; }
  std::uint32_t last_source() const { return last_source_; }  // of the newest record ever
  std::uint64_t torn_bytes() const { return torn_bytes_; }    // cut off when opening

 private:
  struct Entry {
    std::uint64_t sequence;
    std::uint32_t source;
    std::uint32_t topic;
    std::uint64_t segment;  // its first sequence
    std::uint64_t offset;   // of the payload
    std::uint32_t length;
    bool acked;
  };
  struct Segment {
    std::uint64_t first;
    std::uint64_t bytes;
  };

  void Recover();
  void LoadSegment(std::uint64_t first, bool last);
  void ReadCursor();
  void WriteCursor() const;
  void OpenSegment(std::uint64_t first);
  void EvictOldest();
  void DropAcknowledged();
  std::string SegmentPath(std::uint64_t first) const;

  std::string dir_;
  std::uint64_t max_bytes_;
  std::uint64_t segment_bytes_;
  std::deque<Entry> entries_;     // not acknowledged, oldest first
  std::deque<Segment> segments_;  // oldest first; the last is appended to
  std::size_t handed_out_ = 0;    // entries_[0..handed_out_) were handed out
  int fd_ = -1;                   // the last segment, open for append
  std::uint64_t bytes_ = 0;
  std::uint64_t acked_sequence_ = 0;  // every record up to it left the spool
  std::uint32_t acked_source_ = 0;
  std::uint64_t last_sequence_ = 0;
  std::uint32_t last_source_ = 0;
  std::uint64_t evicted_ = 0;
  std::uint64_t torn_bytes_ = 0;
};

}  // namespace robot_edge::uplink
