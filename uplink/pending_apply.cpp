#include "uplink/pending_apply.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "config/config.hpp"

namespace robot_edge::uplink {

namespace {

bool SyncDirectory(const std::string& path) {
  const std::string dir = std::filesystem::path(path).parent_path().string();
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

template <typename T>
bool ToNumber(const std::string& text, T* out) {
  std::istringstream in(text);
  in >> *out;
  return !in.fail() && in.eof();
}

}  // namespace

std::string PendingApplyText(const PendingApply& a) {
  return "request_id " + std::to_string(a.request_id) + "\ndigest " + a.digest + "\nconfig " +
         a.config + "\nprevious " + a.previous + "\nprevious_digest " + a.previous_digest +
         "\nasked_unix_us " + std::to_string(a.asked_unix_us) + "\ndeadline_unix_us " +
         std::to_string(a.deadline_unix_us) + "\n";
}

std::optional<PendingApply> ParsePendingApply(const std::string& text, std::string* error) {
  std::map<std::string, std::string> values;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t space = line.find(' ');
    if (space != std::string::npos) values[line.substr(0, space)] = line.substr(space + 1);
  }
  PendingApply a;
  a.digest = values["digest"];
  a.config = values["config"];
  a.previous = values["previous"];
  a.previous_digest = values["previous_digest"];
  const char* bad = nullptr;
  if (!ToNumber(values["request_id"], &a.request_id)) bad = "request_id";
  if (!ToNumber(values["asked_unix_us"], &a.asked_unix_us)) bad = "asked_unix_us";
  if (!ToNumber(values["deadline_unix_us"], &a.deadline_unix_us)) bad = "deadline_unix_us";
  if (a.config.empty() || a.config.front() != '/') bad = "config";
  if (a.previous.empty() != a.previous_digest.empty()) bad = "previous_digest";
  if (a.digest.empty()) bad = "digest";
  if (bad != nullptr) {
    *error = std::string(bad) + " missing or malformed";
    return std::nullopt;
  }
  return a;
}

std::string CheckPendingApplyPaths(const PendingApply& apply, const std::string& config) {
  if (apply.config != config) {
    return "it names " + apply.config + ", not this uplink's robot_edged.config " + config;
  }
  if (!apply.previous.empty() && apply.previous != config + ".previous") {
    return "its previous file " + apply.previous + " is not " + config + ".previous";
  }
  return "";
}

std::optional<std::string> FileText(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return std::nullopt;
  std::stringstream text;
  text << file.rdbuf();
  if (file.bad()) return std::nullopt;
  return text.str();
}

std::optional<std::string> FileDigest(const std::string& path) {
  const std::optional<std::string> text = FileText(path);
  if (!text) return std::nullopt;
  return config::TextDigest(*text);
}

std::string PendingApplyPath(const std::string& spool_dir) { return spool_dir + "/apply-pending"; }

bool SavePendingApply(const std::string& path, const PendingApply& apply) {
  const std::string text = PendingApplyText(apply);
  const std::string temporary = path + ".new";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
  if (fd < 0) return false;
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
                       ::fsync(fd) == 0;
  return ::close(fd) == 0 && written && std::rename(temporary.c_str(), path.c_str()) == 0 &&
         SyncDirectory(path);
}

std::optional<PendingApply> LoadPendingApply(const std::string& path, std::string* error) {
  error->clear();
  if (::access(path.c_str(), F_OK) != 0 && errno == ENOENT) return std::nullopt;
  std::ifstream file(path);
  if (!file) {
    *error = "cannot read " + path;
    return std::nullopt;
  }
  std::stringstream text;
  text << file.rdbuf();
  auto apply = ParsePendingApply(text.str(), error);
  if (!apply) *error = path + ": " + *error;
  return apply;
}

bool RemovePendingApply(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return false;
  return SyncDirectory(path);
}

}  // namespace robot_edge::uplink
