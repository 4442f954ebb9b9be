#include "daemon/api/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace robot_edge::daemon {
namespace {

std::string Why(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

bool WriteAll(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::string DirectoryOf(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The temporary file's content, on disk; "" or why not.
std::string WriteTemporary(int fd, const std::string& temporary, std::string_view text,
                           mode_t mode) {
  if (!WriteAll(fd, text)) return Why("cannot write", temporary);
  if (::fchmod(fd, mode) != 0) return Why("cannot chmod", temporary);
  if (::fsync(fd) != 0) return Why("cannot fsync", temporary);
  return {};
}

}  // namespace

std::string WriteFileAtomically(const std::string& path, std::string_view text, mode_t mode) {
  std::string pattern = path + ".XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  const int fd = ::mkostemp(name.data(), O_CLOEXEC);  // O_EXCL: a new file, never a symlink's
  if (fd < 0) return Why("cannot create a temporary file for", path);
  const std::string temporary(name.data());
  std::string error = WriteTemporary(fd, temporary, text, mode);
  if (::close(fd) != 0 && error.empty()) error = Why("cannot close", temporary);
  if (error.empty() && ::rename(temporary.c_str(), path.c_str()) != 0) {
    error = Why("cannot rename " + temporary + " to", path);
  }
  if (!error.empty()) {
    ::unlink(temporary.c_str());
    return error;
  }
  const int dir = ::open(DirectoryOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return Why("cannot open the directory of", path);
  const bool synced = ::fsync(dir) == 0;
  ::close(dir);
  return synced ? std::string() : Why("cannot fsync the directory of", path);
}

}  // namespace robot_edge::daemon
