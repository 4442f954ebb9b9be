#include "access/tokens.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace robot_edge::access {

bool TokensEqual(std::string_view presented, std::string_view expected) {
  const std::size_t n = std::max(presented.size(), expected.size());
  unsigned diff = presented.size() != expected.size() ? 1u : 0u;
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char x = i < presented.size() ? static_cast<unsigned char>(presented[i]) : 0;
    const unsigned char y = i < expected.size() ? static_cast<unsigned char>(expected[i]) : 0;
    diff |= static_cast<unsigned>(x ^ y);
  }
  return diff == 0;
}

std::string TrimmedToken(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0) {
    text.pop_back();
  }
  return text;
}

std::string ReadTokenFile(const std::string& key, const std::string& path,
                          std::vector<std::string>* warnings, std::size_t min_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    throw std::runtime_error(key + ": cannot read " + path + " (" + std::strerror(errno) + ")");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw std::runtime_error(key + ": " + path +
                             " is not a regular file (a FIFO, a device or a directory): not a "
                             "token file");
  }
  std::string token(kMaxTokenFileBytes + 1, '\0');
  std::size_t got = 0;
  for (ssize_t n = 0; got < token.size(); got += static_cast<std::size_t>(n)) {
    n = ::read(fd, token.data() + got, token.size() - got);
    if (n <= 0) break;
  }
  ::close(fd);
  if (got > kMaxTokenFileBytes) {
    throw std::runtime_error(key + ": " + path + " is larger than " +
                             std::to_string(kMaxTokenFileBytes) + " bytes: not a token file");
  }
  token.resize(got);
  token = TrimmedToken(std::move(token));
  if (token.empty()) throw std::runtime_error(key + ": " + path + " is empty");
  if (token.size() < min_bytes) {
    throw std::runtime_error(
        key + ": " + path + " holds a token of " + std::to_string(token.size()) +
        " bytes; at least " + std::to_string(min_bytes) +
        " are required (e.g. head -c 24 /dev/urandom | base64 > " + path + ")");
  }
  if (auto w = TokenFileExposure(key, path, st.st_mode)) warnings->push_back(*w);
  return token;
}

std::optional<std::string> TokenFileExposure(const std::string& key, const std::string& path,
                                             mode_t mode) {
  if ((mode & (S_IRWXG | S_IRWXO)) == 0) return std::nullopt;
  std::string who;
  if ((mode & S_IROTH) != 0) {
    who = "every user of this machine can read it";
  } else if ((mode & S_IRGRP) != 0) {
    who = "its group can read it (the observers' group, robot-edge, on a packaged install)";
  } else {
    who = "others than its owner can write or run it";
  }
  char octal[8];
  std::snprintf(octal, sizeof(octal), "%04o", static_cast<unsigned>(mode & 07777));
  return key + ": " + path + " is mode " + octal + ": " + who +
         ", and whoever reads it holds what the token grants. Make it readable by robot-edged's "
         "user only: chmod 0600 " +
         path + ", owned by that user";
}

}  // namespace robot_edge::access
