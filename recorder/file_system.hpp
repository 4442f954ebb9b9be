// The file-system calls of the recording files, behind one narrow interface: the recorders take
// a FileSystem& so that tests can simulate a full disk, a failing write or a directory that
// vanishes (tests/recorder/fake_file_system.hpp); PosixFileSystem is the real one.
//
// Errors: every call returns false (or null) with *error set to a sentence naming the call and
// the path ("statvfs /var/lib/x: No such file or directory"). Nothing throws.
// Threads: an instance is used by one thread at a time (the recorder's owner).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "recorder/byte_sink.hpp"

namespace robot_edge::recorder {

struct FileEntry {
  std::string name;         // in its directory, no path
  std::uint64_t bytes = 0;  // size
};

// A file open for writing: a ByteSink that is closed explicitly, so that a deferred write error
// (close(2) on NFS, a full disk) is seen. Destroying it closes it too, ignoring errors.
class OutputFile : public ByteSink {
 public:
  virtual bool Close() = 0;
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;
  // Makes sure `dir` is a directory this process may create files in. When `dir` is missing it
  // is created with mode 0750 (its parent must exist). Errors: "DIR is not a directory", "DIR is
  // not writable: reason", "cannot create DIR: reason".
  virtual bool EnsureDirectory(const std::string& dir, std::string* error) = 0;
  // Bytes an unprivileged process may still write on `dir`'s file system.
  virtual bool FreeBytes(const std::string& dir, std::uint64_t* bytes, std::string* error) = 0;
  // The regular files directly in `dir`, in no particular order.
  virtual bool List(const std::string& dir, std::vector<FileEntry>* out, std::string* error) = 0;
  virtual bool Remove(const std::string& path, std::string* error) = 0;
  // Renames `from` to `to` in one step (rename(2)), replacing a file at `to`.
  virtual bool Rename(const std::string& from, const std::string& to, std::string* error) = 0;
  // Creates `path`, a new file: null on failure, and when anything is already there (a file, a
  // hard link, a FIFO, a symbolic link: never opened, never truncated; red team round six).
  virtual std::unique_ptr<OutputFile> Create(const std::string& path, std::string* error) = 0;
};

// statvfs(3) (f_bavail * f_frsize), opendir(3)/fstatat(2), unlink(2), rename(2), mkdir(2), and
// FileSink (unbuffered write(2): each McapWriter chunk is one or two calls).
class PosixFileSystem final : public FileSystem {
 public:
  bool EnsureDirectory(const std::string& dir, std::string* error) override;
  bool FreeBytes(const std::string& dir, std::uint64_t* bytes, std::string* error) override;
  bool List(const std::string& dir, std::vector<FileEntry>* out, std::string* error) override;
  bool Remove(const std::string& path, std::string* error) override;
  bool Rename(const std::string& from, const std::string& to, std::string* error) override;
  std::unique_ptr<OutputFile> Create(const std::string& path, std::string* error) override;
};

}  // namespace robot_edge::recorder
