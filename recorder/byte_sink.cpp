#include "recorder/byte_sink.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace robot_edge::recorder {
namespace {

std::string ErrnoText(int err) { return std::generic_category().message(err); }

}  // namespace

FileSink::~FileSink() { Close(); }

bool FileSink::Fail(const char* what, int err) {
  error_ = std::string(what) + " " + path_ + ": " + ErrnoText(err);
  return false;
}

bool FileSink::Open(const std::string& path) { return OpenWith(path, O_TRUNC); }

bool FileSink::Create(const std::string& path) { return OpenWith(path, O_EXCL); }

bool FileSink::OpenWith(const std::string& path, int flags) {
  Close();
  path_ = path;
  bytes_written_ = 0;
  error_.clear();
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | flags, kFileMode);
  if (fd_ < 0) {
    if (errno == EEXIST) {
      error_ =
          "open " + path_ + ": File exists (refused: recordings are only written to a new file)";
      return false;
    }
    if (errno != ELOOP) return Fail("open", errno);
    error_ = "open " + path_ + ": a symbolic link (refused: recordings never follow links)";
    return false;
  }
  return NarrowMode();
}

// An existing file keeps its mode through O_TRUNC: take away whatever kFileMode does not grant.
// Devices (/dev/full in tests) are left alone.
bool FileSink::NarrowMode() {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return Fail("fstat", errno);
  if (!S_ISREG(st.st_mode) || (st.st_mode & 07777 & ~kFileMode) == 0) return true;
  if (::fchmod(fd_, st.st_mode & kFileMode) == 0) return true;
  const int err = errno;
  Close();
  return Fail("chmod", err);
}

bool FileSink::Write(std::span<const std::uint8_t> bytes) {
  if (fd_ < 0) return Fail("write", EBADF);
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return Fail("write", errno);
    }
    bytes = bytes.subspan(static_cast<std::size_t>(n));
    bytes_written_ += static_cast<std::uint64_t>(n);
  }
  return true;
}

bool FileSink::Sync() {
  if (fd_ < 0) return Fail("fdatasync", EBADF);
  return ::fdatasync(fd_) == 0 || Fail("fdatasync", errno);
}

bool FileSink::Close() {
  if (fd_ < 0) return true;
  const int fd = fd_;
  fd_ = -1;
  return ::close(fd) == 0 || Fail("close", errno);
}

bool MemorySink::Write(std::span<const std::uint8_t> bytes) {
  ++write_calls_;
  if (bytes.size() > capacity_ - bytes_.size()) {
    error_ = "memory sink full (" + std::to_string(capacity_) + " bytes)";
    return false;
  }
  bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
  return true;
}

bool ReadWholeFile(const std::string& path, std::vector<std::uint8_t>* out, std::string* error) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = "open " + path + ": " + ErrnoText(errno);
    return false;
  }
  struct stat st {};
  out->clear();
  if (::fstat(fd, &st) == 0 && st.st_size > 0) out->reserve(static_cast<std::size_t>(st.st_size));
  std::uint8_t block[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, block, sizeof(block));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      *error = "read " + path + ": " + ErrnoText(errno);
      ::close(fd);
      return false;
    }
    out->insert(out->end(), block, block + n);
  }
  ::close(fd);
  return true;
}

}  // namespace robot_edge::recorder
