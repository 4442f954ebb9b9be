#include "uplink/announced_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

namespace robot_edge::uplink {

std::optional<std::set<std::string>> ReadAnnounced(const std::string& path) {
  std::ifstream file(path);
  if (!file) return std::nullopt;
  std::set<std::string> names;
  std::string line;
  while (std::getline(file, line)) {
    if (!line.empty()) names.insert(line);
  }
  return names;
}

bool WriteAnnounced(const std::string& path, const std::set<std::string>& names) {
  std::string text;
  for (const std::string& name : names) {
    if (name.find('\n') == std::string::npos) text += name + "\n";
  }
  const std::string temporary = path + ".new";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
  if (fd < 0) return false;
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
                       ::fsync(fd) == 0;
  return ::close(fd) == 0 && written && std::rename(temporary.c_str(), path.c_str()) == 0;
}

}  // namespace robot_edge::uplink
