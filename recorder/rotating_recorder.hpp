// RotatingRecorder: continuous recording into a directory of MCAP files, one after the other,
// within a size and an age per file, a total kept on disk, and a free-space floor.
//
// Files: <prefix>_<UTC YYYYmmdd-HHMMSS>_<n>.mcap (file_names.hpp), named after the time the file
// opened; n = 1 + the largest n of this recorder's files already in the directory, so files sort
// by name in recording order and two opened in the same second differ. Each file stands alone:
// it declares every channel (channel_info.hpp) and the metadata when it opens, and gets its
// summary when it closes. Only names of this pattern count as ours: nothing else in the
// directory is ever deleted or counted.
//
// Rotation: a Write whose log_time_ns is max_file_seconds or more after the open file's start,
// or that finds the open file at max_file_bytes or more, closes it and opens the next one, named
// after that message's time, before writing the message (a file passes max_file_bytes by at most
// one compressed chunk and its summary).
//
// Retention, at Start and at each rotation, before the next file opens: the oldest of our files
// (smallest n) are deleted until the files kept, the new one counted at max_file_bytes, fit in
// retention_bytes, and number at most retention_files (0 = no limit). The open file is never
// deleted.
//
// Free space (FileSystem::FreeBytes) is checked at Start, at each rotation, and whenever
// free_check_bytes more have been written. Default 16 MiB: ~27 s of the daemon's ~600 KB/s, so a
// statvfs(2) (~1 us) per ~15 chunks, and the floor is overrun by at most 1.6% of the 1 GiB
// default min_free_bytes (plus what other writers add meanwhile). Below min_free_bytes the file
// is closed (summary written) and recording stops: "only 812 MiB free on DIR (at least 1024 MiB
// needed): recording stopped" ("recording not started" at Start).
//
// Errors: nothing throws. A failed write, create, close or free-space query stops recording:
// Write returns false, recording() is false and error() says why ("...: recording stopped"). The
// file keeps its complete chunks. Start() again opens a new file. A failed deletion and a Write
// on an unknown channel are noted in error() while recording goes on.
//
// Threads: one owner thread calls everything. Times are passed in, ns since the Unix epoch
// (CLOCK_REALTIME); nothing here reads a clock.
// Real time: steady-state Write allocates nothing and blocks only in the file's write(2), as
// McapWriter::Write; a Write that rotates allocates, lists, deletes and creates files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "recorder/channel_info.hpp"
#include "recorder/file_system.hpp"
#include "recorder/mcap_writer.hpp"

namespace robot_edge::recorder {

struct RotatingRecorderOptions {
  std::string directory;                         // created (0750, parent must exist) at Start
  std::string prefix = "robot-edge";             // of the file names; [A-Za-z0-9._-]+
  std::uint64_t max_file_bytes = 512ull << 20;   // bytes: rotate at this size
  std::uint64_t max_file_seconds = 3600;         // s: rotate at this age (log time)
  std::uint64_t retention_bytes = 8ull << 30;    // bytes of our files kept, the open one included
  std::size_t retention_files = 0;               // files kept, the open one included; 0 = no limit
  std::uint64_t min_free_bytes = 1ull << 30;     // bytes: below this free, recording stops
  std::uint64_t free_check_bytes = 16ull << 20;  // bytes written between two free-space checks
  McapWriterOptions mcap;
  FileMetadata metadata;  // written at the start of every file
};

// "" when the options are usable, else the first problem, naming the field.
std::string ValidateRotatingRecorderOptions(const RotatingRecorderOptions& options);

struct RecorderStatus {
  bool recording = false;
  std::string file;                    // path of the open file; "" when none
  std::uint64_t file_bytes = 0;        // handed to the open file so far
  std::uint64_t file_messages = 0;     // written to the open file
  std::size_t files_kept = 0;          // our files in the directory, the open one included
  std::uint64_t kept_bytes = 0;        // their bytes
  std::uint64_t free_bytes = 0;        // at the last check
  std::uint64_t messages_written = 0;  // since Start, in a file (or in the open chunk)
  std::uint64_t messages_lost = 0;     // since Start: refused, or in a chunk a failed write lost
  std::string error;                   // the last error; "" when none since Start
};

class RotatingRecorder {
 public:
  // `fs` must outlive the recorder. Does no I/O.
  RotatingRecorder(RotatingRecorderOptions options, std::vector<ChannelInfo> channels,
                   FileSystem& fs);
  ~RotatingRecorder();  // Stop()
  RotatingRecorder(const RotatingRecorder&) = delete;
  RotatingRecorder& operator=(const RotatingRecorder&) = delete;

  // Checks the options and the directory (creating it), applies retention, checks free space
  // and opens the first file, named after `now_ns`. False with error() when any step fails.
  // Stops a recording in progress first. Resets the message counters.
  bool Start(std::uint64_t now_ns);
  // Closes the open file (summary written). Recording stays stopped until Start.
  void Stop();
  bool recording() const { return state_ == State::kRecording; }

  // Records `data` (copied) on channels[channel] at `log_time_ns`, rotating first when due.
  // False when not recording, for an unknown channel, or when this call stopped recording.
  bool Write(std::size_t channel, std::uint64_t log_time_ns, std::span<const std::uint8_t> data);

  RecorderStatus status() const;  // allocates (copies strings): not for the hot path

  struct File {
    std::string name;  // in the directory
    std::uint64_t bytes = 0;
  };
  // Our files in the directory (this pattern only), oldest first, the open one included (it is
  // status().file); empty with *error set when the directory cannot be read. Reads the
  // directory: for requests, not the hot path.
  std::vector<File> List(std::string* error = nullptr) const;
  const std::string& error() const { return error_; }

 private:
  enum class State { kIdle, kRecording, kFailed };
  struct Kept {
    std::string name;
    std::uint64_t n = 0;
    std::uint64_t bytes = 0;
  };

  bool Rotate(std::uint64_t now_ns);
  bool OpenNext(std::uint64_t now_ns, const char* consequence);
  bool ScanDirectory(const char* consequence);
  void ApplyRetention();
  bool CheckFreeSpace(const char* consequence);
  bool OpenFile(std::uint64_t now_ns, const char* consequence);
  bool CloseFile(std::string* why);
  void Fail(std::string why);
  void LoseUnflushed();
  std::string Path(const std::string& name) const;
  std::uint64_t KeptBytes() const;

  RotatingRecorderOptions options_;
  std::vector<ChannelInfo> channels_;
  FileSystem& fs_;

  State state_ = State::kIdle;
  std::unique_ptr<OutputFile> file_;
  std::unique_ptr<McapWriter> writer_;
  std::uint64_t file_start_ns_ = 0;
  std::vector<Kept> kept_;  // our files by n, the open one last
  std::uint64_t next_n_ = 1;
  std::vector<std::uint32_t> sequence_;  // per channel, since Start

  std::uint64_t free_bytes_ = 0;
  std::uint64_t next_free_check_ = 0;  // writer bytes at which the next check is due
  std::uint64_t unflushed_ = 0;        // messages in the open chunk
  std::uint64_t messages_written_ = 0;
  std::uint64_t messages_lost_ = 0;
  std::string error_;
};

}  // namespace robot_edge::recorder
