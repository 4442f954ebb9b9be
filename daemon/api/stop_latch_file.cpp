#include "daemon/api/stop_latch_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "daemon/api/atomic_file.hpp"

namespace robot_edge::daemon {
namespace {

constexpr std::string_view kMagic = "robot-edge stop-latch 1";
constexpr std::string_view kStoppedBy = "stopped_by ";
constexpr std::string_view kHolder = "holder ";

std::string_view LabelText(const sm::SenderLabel& label) {
  return {label.data(), ::strnlen(label.data(), label.size())};
}

// A label's text on one line: no newline can get in.
std::string OneLine(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

bool TakeLine(std::string_view* text, std::string_view* line) {
  const auto end = text->find('\n');
  if (end == std::string_view::npos) return false;
  *line = text->substr(0, end);
  text->remove_prefix(end + 1);
  return true;
}

bool TakeField(std::string_view* text, std::string_view key, std::string_view* value) {
  std::string_view line;
  if (!TakeLine(text, &line) || line.substr(0, key.size()) != key) return false;
  *value = line.substr(key.size());
  return true;
}

bool SameLatch(const sm::StopLatch& a, const sm::StopLatch& b) {
  return a.latched == b.latched && LabelText(a.stopped_by) == LabelText(b.stopped_by) &&
         LabelText(a.holder) == LabelText(b.holder);
}

// Removes `path` and makes the removal durable (the directory fsync'ed). "" or why not.
std::string RemoveDurably(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return "cannot remove " + path + ": " + std::strerror(errno);
  }
  const auto slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return "cannot open " + dir + ": " + std::strerror(errno);
  const int rc = ::fsync(fd);
  ::close(fd);
  return rc == 0 ? "" : "cannot sync " + dir + ": " + std::strerror(errno);
}

}  // namespace

std::string StopLatchPath(const char* state_directory, const std::string& damp_plan_path) {
  if (state_directory != nullptr && *state_directory != '\0') {
    std::string dir(state_directory);
    dir = dir.substr(0, dir.find(':'));  // systemd lists several directories with ':'
    return dir + "/stop-latch";
  }
  if (damp_plan_path.empty()) return "";
  const auto slash = damp_plan_path.rfind('/');
  return (slash == std::string::npos ? std::string() : damp_plan_path.substr(0, slash + 1)) +
         "stop-latch";
}

std::string EncodeStopLatch(const sm::StopLatch& latch) {
  std::string text(kMagic);
  text += "\n";
  text += std::string(kStoppedBy) + OneLine(LabelText(latch.stopped_by)) + "\n";
  text += std::string(kHolder) + OneLine(LabelText(latch.holder)) + "\n";
  text += "end\n";
  return text;
}

sm::StopLatch DecodeStopLatch(std::string_view text, std::string* problem) {
  sm::StopLatch latch;
  latch.latched = true;
  std::string_view line, stopped_by, holder;
  const bool valid =
      TakeLine(&text, &line) && line == kMagic && TakeField(&text, kStoppedBy, &stopped_by) &&
      TakeField(&text, kHolder, &holder) && TakeLine(&text, &line) && line == "end" && text.empty();
  if (!valid) {
    *problem = "not a whole stop record (empty, truncated or another version)";
    latch.stopped_by = sm::MakeSenderLabel("an unreadable stop record");
    return latch;
  }
  problem->clear();
  latch.stopped_by = sm::MakeSenderLabel(stopped_by);
  latch.holder = sm::MakeSenderLabel(holder);
  return latch;
}

std::optional<sm::StopLatch> ReadStopLatch(const std::string& path, std::string* problem) {
  problem->clear();
  if (path.empty()) return std::nullopt;
  sm::StopLatch unreadable;
  unreadable.latched = true;
  unreadable.stopped_by = sm::MakeSenderLabel("an unreadable stop record");
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return std::nullopt;  // only a missing name is "no stop"
    *problem = std::string("cannot look at it: ") + std::strerror(errno);
    return unreadable;
  }
  // Anything but a regular file (a symlink, dangling or not, a directory) is a stop.
  const int fd = S_ISREG(st.st_mode) ? ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
  if (fd < 0) {
    *problem = S_ISREG(st.st_mode) ? std::string("cannot read it: ") + std::strerror(errno)
                                   : std::string("not a regular file");
    return unreadable;
  }
  std::string text;
  char buffer[512];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof(buffer))) > 0 && text.size() < 4096;) {
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return DecodeStopLatch(text, problem);
}

std::string StopLatchDirectoryProblem(const std::string& path) {
  if (path.empty()) return "";
  const auto slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return "";  // absent: not kept
  if (::access(dir.c_str(), W_OK) != 0) return dir + " is not writable: " + std::strerror(errno);
  return "";
}

StopLatchKeeper::StopLatchKeeper(std::string path, const sm::StopLatch& initial)
    : path_(std::move(path)), kept_(initial) {}

StopLatchKeeper::Change StopLatchKeeper::Observe(const sm::StopLatch& latch) {
  if (path_.empty() || SameLatch(latch, kept_)) return {};
  const std::string error = latch.latched ? WriteFileAtomically(path_, EncodeStopLatch(latch), 0640)
                                          : RemoveDurably(path_);
  if (!error.empty()) return {Change::Kind::kFailed, error};
  kept_ = latch;
  return {latch.latched ? Change::Kind::kWritten : Change::Kind::kRemoved, ""};
}

}  // namespace robot_edge::daemon
