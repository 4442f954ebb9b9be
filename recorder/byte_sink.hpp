// Where the MCAP writer's bytes go: one narrow interface, a file and a memory implementation.
// A sink is used by one thread at a time (the recorder thread that owns the writer).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace robot_edge::recorder {

class ByteSink {
 public:
  virtual ~ByteSink() = default;
  // Appends all of `bytes`, or fails: false, and error() says why. After a failure the sink's
  // contents are unspecified (a part of `bytes` may have been written).
  virtual bool Write(std::span<const std::uint8_t> bytes) = 0;
  // Why the last Write failed; empty while none has.
  virtual const std::string& error() const = 0;
};

// A file through a POSIX descriptor (O_CLOEXEC). Write() is unbuffered: each call is write(2)
// calls until every byte is in the page cache (the MCAP writer hands it whole chunks).
class FileSink final : public ByteSink {
 public:
  FileSink() = default;
  ~FileSink() override;
  FileSink(const FileSink&) = delete;
  FileSink& operator=(const FileSink&) = delete;

  // Recordings hold the robot's commands and state: owner read-write, group read, no one else.
  static constexpr mode_t kFileMode = 0640;

  // Creates `path` with kFileMode (less under a stricter umask), or truncates it and takes away
  // any permission beyond kFileMode. Never follows a symbolic link at `path` (O_NOFOLLOW): one
  // planted there, say toward /etc, is refused. False with error() ("open PATH: reason").
  bool Open(const std::string& path);
  // Creates `path` as a new file (O_EXCL), kFileMode: anything already there (a file, a hard
  // link to one, a FIFO that would block the writer, a symbolic link) is refused, "open PATH:
  // File exists (refused: …)", and left as it was.
  bool Create(const std::string& path);
  bool Write(std::span<const std::uint8_t> bytes) override;
  // fdatasync(2): the bytes written so far survive a power loss once this returns true.
  bool Sync();
  // Closes the descriptor; false if close(2) reports a deferred write error.
  bool Close();

  bool is_open() const { return fd_ >= 0; }
  std::uint64_t bytes_written() const { return bytes_written_; }
  const std::string& error() const override { return error_; }

 private:
  bool OpenWith(const std::string& path, int flags);
  bool Fail(const char* what, int err);
  bool NarrowMode();

  int fd_ = -1;
  std::string path_;
  std::uint64_t bytes_written_ = 0;
  std::string error_;
};

// Bytes kept in memory (tests, fuzzing). `capacity_bytes` simulates a full disk: a Write that
// would pass it stores nothing and fails with "memory sink full".
class MemorySink final : public ByteSink {
 public:
  explicit MemorySink(std::uint64_t capacity_bytes = UINT64_MAX) : capacity_(capacity_bytes) {}

  bool Write(std::span<const std::uint8_t> bytes) override;
  const std::string& error() const override { return error_; }

  const std::vector<std::uint8_t>& bytes() const { return bytes_; }
  std::size_t write_calls() const { return write_calls_; }

 private:
  std::uint64_t capacity_;
  std::vector<std::uint8_t> bytes_;
  std::size_t write_calls_ = 0;
  std::string error_;
};

// Reads a whole file into `*out` (for McapReader). False with `*error` ("read PATH: reason").
bool ReadWholeFile(const std::string& path, std::vector<std::uint8_t>* out, std::string* error);

}  // namespace robot_edge::recorder
