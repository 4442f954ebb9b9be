// The uplink's on-disk spool: events and diagnostics wait here until the broker acknowledged
// them (PUBACK), across link outages and uplink restarts. No thread of its own, not thread-safe:
// the uplink's main thread owns it.
//
// On disk, in one directory:
//   seg-<first sequence, 20 digits>.log  append-only segments of records, each
//       [magic u32][payload length u32][sequence u64][source u32][topic u32][crc32 u32][payload]
//       (host byte order: the spool never leaves the robot; the CRC covers the header and the
//       payload).
//   cursor  "acked_sequence evicted source lost last_sequence lost_unknown held", padded with
//       spaces to 160 bytes (a spool before issue 38 wrote the first three, one before the
//       fixed size the first five; cursor.tmp is theirs): overwritten in place (pwrite at 0,
//       fdatasync()) so that a full disk does not stop it once written, when the oldest records
//       are acknowledged (at the latest once nothing handed out is left unacknowledged, or every
//       32 acknowledgements), on an eviction or a loss, when records are first held in memory
//       (held = 1), and when the spool closes. It is created and given its size when the spool
//       opens. A name `cursor` that is a link is replaced by a file of its own.
// Durability: each Append() is written and fdatasync()ed before it returns, so an event
// accepted is on disk (unless it is held in memory, below). After a crash or a power cut, the
// records acknowledged since the last cursor are sent again (the receiver drops them by seq).
// Bound: the segment files' total stays within max_bytes, and at most max_bytes /
// kSpoolBytesPerIndexedRecord records wait (the index in memory): before a record would pass
// either, the oldest segment is deleted and its records not yet acknowledged are counted in
// evicted().
//
// Recovery never stops the uplink (M8 of issue 38), never reads a segment whole, and never cuts
// a file by its path (the audit of 2026-11-29, F5-F9):
//   - each segment is opened O_NOFOLLOW (O_RDWR to cut it, else O_RDONLY) and fstat()ed: one
//     that is not a regular file, has more than one name (a hard link), or is over 1 GiB is left
//     alone and reported. It is read record by record through a 64 KiB window
//     (spool_recovery.hpp): the header, then the payload in pieces for its CRC; payloads are
//     read back later by offset;
//   - a record that does not check (magic, length within the file, CRC), or whose sequence does
//     not rise or is above 2^48 (not believed), is skipped: the scan looks for the next magic
//     whose record checks, so valid records after a corrupt region are kept (the region stays in
//     place, its bytes counted in torn_bytes(); records above 2^48 are reported). A record
//     whose header is whole but CRC fails, with a valid record after it, was durable: counted in
//     lost(), and its magic zeroed so that the next start does not count it again. What follows
//     the last valid record (a crash mid-write) is cut with ftruncate() on the descriptor read,
//     counted in torn_bytes();
//   - an unreadable or garbled cursor counts as 0: every record left in the segments is sent
//     again (each carries its seq); the sequences go on after the newest segment's name and
//     records, so none is reused. A cursor field above 2^48 is ignored and reported;
//   - an empty cursor beside segments (a disk full before the cursor got its space), or one
//     saying records were held in memory (a crash, or a close whose cursor write failed):
//     records were lost uncounted; lost_unknown() grows by one and it is reported. No cursor at
//     all beside segments (an earlier version's spool before its first acknowledgement) is
//     reported and counts as 0;
//   - a name it does not know (a seg-* that does not parse or whose sequence is above 2^48, a
//     directory, a link) is left alone and reported once in TakeNotes(); the uplink's other
//     files (announced, apply-pending) are not the spool's and are not reported;
//   - a segment it cannot read is left alone and reported.
// A write that fails (ENOSPC, reported as a full disk; EFBIG past a file size limit; EIO; a
// read-only file system; a short write is retried so that the kernel names which): the
// record is held in memory instead (at most min(max_bytes / 8, 8 MiB) of payloads and 1 record
// per 128 bytes of that; beyond, the oldest held are dropped) and handed out as usual; every
// later Append() tries the disk again. Records dropped, records too large for a segment,
// records that cannot be read back, damaged records found when opening, and records still held
// in memory when the spool closes are counted in lost() (kept in the cursor across restarts).
// Nothing but the constructor throws, and it only on a bound below 64 KiB.
//
// Sequences: each record gets the next per-robot sequence (1, 2, ...), never reused, also after
// a restart (the cursor keeps the last given out), except when the cursor could not be written
// either or was lost: then the sequences of records held in memory, which never reached the
// disk, may be given out again. `source` is what the
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

namespace spool_detail {  // spool_open.cpp, spool_recovery.hpp
struct Cursor;
struct ScannedRecord;
struct SegmentScan;
}  // namespace spool_detail

// The index of records not acknowledged costs at most kSpoolIndexBytesPerRecord of memory each
// (an entry and its share of the deque), and at most max_bytes / kSpoolBytesPerIndexedRecord
// records are indexed: past that the oldest segment is evicted (counted in evicted()). The
// uplink's --check-config bounds spool.max_mib with these (options.cpp).
inline constexpr std::uint64_t kSpoolIndexBytesPerRecord = 48;
inline constexpr std::uint64_t kSpoolBytesPerIndexedRecord = 64;

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
  // Starts that found records lost without being counted (held in memory by a run that
  // crashed, or whose cursor could not be written): their number is unknown. Across restarts.
  std::uint64_t lost_unknown() const { return lost_unknown_; }
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
  int OpenToRecover(const std::string& path, std::uint64_t* size);
  bool LoadSegment(std::uint64_t first, std::uint64_t* newest);
  void ReportScan(const std::string& path, const spool_detail::SegmentScan& scan);
  void Index(std::uint64_t first, const spool_detail::ScannedRecord& record);
  int OpenCursor();
  void ReadCursor();
  void UseCursor(const spool_detail::Cursor& cursor);
  void LostUnknown(const std::string& why);
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
  std::uint64_t max_entries_;   // entries_ at most (kSpoolBytesPerIndexedRecord)
  SpoolWrite write_;
  std::deque<Entry> entries_;     // not acknowledged, oldest first
  std::deque<Segment> segments_;  // oldest first; the last is appended to
  std::size_t handed_out_ = 0;    // entries_[0..handed_out_) were handed out
  int fd_ = -1;                   // the last segment, open for append (-1: open it again)
  int dir_fd_ = -1;               // dir_, for fsync after a creation (-1: memory only)
  int cursor_fd_ = -1;            // the cursor, overwritten in place (-1: open it again)
  std::map<std::uint64_t, std::string> memory_;  // payloads held, by sequence
  std::uint64_t memory_bytes_ = 0;
  std::uint64_t uncut_ = 0;           // a segment whose torn tail could not be cut: not appended to
  bool dropping_ = false;             // held records dropped (reported once a streak)
  bool writing_fails_ = false;        // the last write failed (reported once a streak)
  bool cursor_dirty_ = false;         // the cursor on disk is behind
  bool cursor_fails_ = false;         // the last cursor write failed (reported once a streak)
  bool cursor_created_ = false;       // there was no cursor when the spool opened
  bool cursor_blank_ = false;         // an empty one when the spool opened
  bool cursor_short_ = false;         // not of its fixed size (its space not reserved, or longer)
  bool closing_ = false;              // the destructor counted the records held as lost
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
  std::uint64_t lost_unknown_ = 0;
};

}  // namespace robot_edge::uplink
