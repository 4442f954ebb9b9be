// The uplink's on-disk spool: events and diagnostics wait here until the broker acknowledged
// them (PUBACK), across link outages and uplink restarts. No thread of its own, not thread-safe:
// the uplink's main thread owns it.
//
// On disk, in one directory:
//   seg-<first sequence, 20 digits>.log  append-only segments of records, each
//       [magic u32][payload length u32][sequence u64][source u32][topic u32][crc32 u32][payload]
//       (host byte order: the spool never leaves the robot); a torn or corrupt tail (a crash
//       mid-write), or a record whose sequence does not rise, is cut off when the spool opens.
//   cursor  "acked_sequence evicted source lost last_sequence" (the last two optional: a
//       spool before issue 38 wrote three): written to cursor.tmp, fsync()ed, renamed,
//       and the directory fsync()ed, when the oldest records are acknowledged (at the latest
//       once nothing handed out is left unacknowledged, or every 32 acknowledgements), on an
//       eviction or a loss, and when the spool closes.
// Durability: each Append() is written and fdatasync()ed before it returns, so an event
// accepted is on disk (unless it is held in memory, below). After a crash or a power cut, the
// records acknowledged since the last cursor are sent again (the receiver drops them by seq).
// Bound: the segment files' total stays within max_bytes: before a record would pass it, the
// oldest segment is deleted and its records not yet acknowledged are counted in evicted().
//
// Recovery never stops the uplink (M8 of issue 38):
//   - an unreadable, empty or garbled cursor counts as 0: every record left in the segments is
//     sent again (each carries its seq); the sequences go on after the newest segment's name
//     and records, so none is reused;
//   - a name it does not know (a seg-* that does not parse, a directory, a link) is left alone
//     and reported once in TakeNotes(); the uplink's other files (announced, apply-pending)
//     are not the spool's and are not reported;
//   - a segment it cannot read is left alone and reported.
// A write that fails (ENOSPC, EIO, a read-only file system): the record is held in memory
// instead (at most min(max_bytes / 8, 8 MiB) of payloads; beyond, the oldest held are dropped)
// and handed out as usual; every later Append() tries the disk again. Records dropped, records
// too large for a segment, records that cannot be read back, and records still held in memory
// when the spool closes are counted in lost() (kept in the cursor across restarts). Nothing but
// the constructor throws, and it only on a bound below 64 KiB.
//
// Sequences: each record gets the next per-robot sequence (1, 2, ...), never reused, also after
// a restart (the cursor keeps the last given out), except when the cursor could not be written
// either (a full disk) or was lost: then the sequences of records held in memory, which never
// reached the disk, may be given out again. `source` is what the
// record came from (robot-edged's EdgeEvent.sequence), kept so that a restarted uplink resumes
// robot-edged's event stream after the last one it spooled.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
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

// The on-disk bytes of one record (the spool's own format; tests and the fuzz target build
// segments with it).
std::string SpoolRecordBytes(std::uint64_t sequence, std::uint32_t source, std::uint32_t topic,
                             std::string_view payload);

// The write(2) the spool writes its files with: a test replaces it to fail as a full disk would.
using SpoolWrite = ssize_t (*)(int fd, const void* data, std::size_t size);

class Spool {
 public:
  // Opens `dir` (created when missing), recovering what a previous run left. Throws SpoolError
  // only when `max_bytes` < 64 KiB; segments are max_bytes / 8. A directory it cannot create or
  // read leaves it in memory only (reported in TakeNotes()).
  Spool(std::string dir, std::uint64_t max_bytes, SpoolWrite write = nullptr);
  ~Spool();
  Spool(const Spool&) = delete;
  Spool& operator=(const Spool&) = delete;

  // Appends a record, durable on return, and returns its sequence. Evicts the oldest segments
  // first when the bound requires. A failed write holds it in memory (see above). Returns 0
  // when it is not kept: larger than a segment, or larger than the memory bound when the write
  // failed (counted in lost(), reported in TakeNotes()). Never throws.
  std::uint64_t Append(std::uint32_t topic, std::uint32_t source, std::string_view payload);

  // The oldest record not yet handed out since the last Rewind() (nullopt: none). Handed-out
  // records stay in the spool until Ack(). A record that cannot be read back (its segment
  // removed or damaged under the spool) is dropped, counted in lost(). Never throws.
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
  std::uint64_t lost() const { return lost_; }                // ever, across restarts
  std::uint64_t in_memory() const { return memory_.size(); }  // held: their write failed
  // What went wrong since the last call, one sentence each (a stray name, a cursor counted as
  // 0, the first write that failed and the first that worked again): the uplink logs them.
  std::vector<std::string> TakeNotes();

 private:
  struct Entry {
    std::uint64_t sequence;
    std::uint32_t source;
    std::uint32_t topic;
    std::uint64_t segment;  // its first sequence; 0: held in memory (memory_)
    std::uint64_t offset;   // of the payload
    std::uint32_t length;
    bool acked;
  };
  struct Segment {
    std::uint64_t first;
    std::uint64_t bytes;
  };

  void Recover();
  std::vector<std::uint64_t> ListSegments();
  bool LoadSegment(std::uint64_t first, std::uint64_t* newest);
  void ReadCursor();
  void WriteCursor();
  bool OpenSegment(std::uint64_t first);
  bool WriteRecord(std::uint64_t sequence, const std::string& record);
  bool HoldInMemory(std::uint64_t sequence, std::uint32_t source, std::uint32_t topic,
                    std::string_view payload);
  void EvictOldest();
  void DropAcknowledged();
  void Erase(std::size_t index);
  bool ReadPayload(const Entry& e, std::string* payload) const;
  void Note(std::string note);
  std::string SegmentPath(std::uint64_t first) const;

  std::string dir_;
  std::uint64_t max_bytes_;
  std::uint64_t segment_bytes_;
  std::uint64_t memory_bound_;  // of the payloads held in memory
  SpoolWrite write_;
  std::deque<Entry> entries_;     // not acknowledged, oldest first
  std::deque<Segment> segments_;  // oldest first; the last is appended to
  std::size_t handed_out_ = 0;    // entries_[0..handed_out_) were handed out
  int fd_ = -1;                   // the last segment, open for append (-1: open it again)
  int dir_fd_ = -1;               // dir_, for fsync after a rename (-1: memory only)
  std::map<std::uint64_t, std::string> memory_;  // payloads held, by sequence
  std::uint64_t memory_bytes_ = 0;
  std::uint64_t uncut_ = 0;           // a segment whose torn tail could not be cut: not appended to
  bool dropping_ = false;             // held records dropped (reported once a streak)
  bool writing_fails_ = false;        // the last write failed (reported once a streak)
  bool cursor_dirty_ = false;         // the cursor on disk is behind
  bool cursor_fails_ = false;         // the last cursor write failed (reported once a streak)
  std::uint32_t acks_unwritten_ = 0;  // acknowledged since the cursor was written
  std::vector<std::string> notes_;
  std::uint64_t bytes_ = 0;
  std::uint64_t acked_sequence_ = 0;  // every record up to it left the spool
  std::uint32_t acked_source_ = 0;
  std::uint64_t last_sequence_ = 0;
  std::uint32_t last_source_ = 0;
  std::uint64_t evicted_ = 0;
  std::uint64_t torn_bytes_ = 0;
  std::uint64_t lost_ = 0;
};

}  // namespace robot_edge::uplink
