#include "recorder/rotating_recorder.hpp"

#include <algorithm>
#include <utility>

#include "recorder/file_names.hpp"

namespace robot_edge::recorder {
namespace {

constexpr std::uint64_t kNsPerS = 1'000'000'000;
constexpr std::uint64_t kMiB = 1u << 20;
constexpr const char* kStopped = "recording stopped";
constexpr const char* kNotStarted = "recording not started";

}  // namespace

std::string ValidateRotatingRecorderOptions(const RotatingRecorderOptions& o) {
  if (o.directory.empty()) return "directory is empty";
  if (!IsFileNamePrefix(o.prefix)) {
    return "prefix \"" + o.prefix + "\" is not a file name prefix ([A-Za-z0-9._-]+)";
  }
  if (o.max_file_bytes == 0) return "max_file_bytes is 0";
  if (o.max_file_seconds == 0) return "max_file_seconds is 0";
  if (o.retention_bytes < o.max_file_bytes) {
    return "retention_bytes (" + std::to_string(o.retention_bytes) +
           ") is less than max_file_bytes (" + std::to_string(o.max_file_bytes) + ")";
  }
  if (o.free_check_bytes == 0) return "free_check_bytes is 0";
  return "";
}

RotatingRecorder::RotatingRecorder(RotatingRecorderOptions options,
                                   std::vector<ChannelInfo> channels, FileSystem& fs)
    : options_(std::move(options)), channels_(std::move(channels)), fs_(fs) {}

RotatingRecorder::~RotatingRecorder() { Stop(); }

bool RotatingRecorder::Start(std::uint64_t now_ns) {
  Stop();
  error_.clear();
  messages_written_ = 0;
  messages_lost_ = 0;
  sequence_.assign(channels_.size(), 0);
  if (std::string bad = ValidateRotatingRecorderOptions(options_); !bad.empty()) {
    Fail(bad + ": " + kNotStarted);
    return false;
  }
  if (std::string why; !fs_.EnsureDirectory(options_.directory, &why)) {
    Fail(why + ": " + kNotStarted);
    return false;
  }
  return OpenNext(now_ns, kNotStarted);
}

void RotatingRecorder::Stop() {
  if (state_ == State::kRecording) {
    if (std::string why; !CloseFile(&why)) error_ = why;
  }
  state_ = State::kIdle;
}

bool RotatingRecorder::Write(std::size_t channel, std::uint64_t log_time_ns,
                             std::span<const std::uint8_t> data) {
  if (state_ != State::kRecording) {
    if (state_ == State::kFailed) ++messages_lost_;
    return false;
  }
  if (channel >= channels_.size()) {
    ++messages_lost_;
    error_ = "Write: unknown channel " + std::to_string(channel);  // a caller's bug: allocates
    return false;
  }
  const bool too_old = log_time_ns >= file_start_ns_ &&
                       log_time_ns - file_start_ns_ >= options_.max_file_seconds * kNsPerS;
  if ((too_old || writer_->bytes_written() >= options_.max_file_bytes) && !Rotate(log_time_ns)) {
    ++messages_lost_;
    return false;
  }
  if (writer_->bytes_written() >= next_free_check_ && !CheckFreeSpace(kStopped)) {
    ++messages_lost_;
    return false;
  }
  const auto id = static_cast<std::uint16_t>(channel + 1);
  if (!writer_->Write(id, sequence_[channel]++, log_time_ns, log_time_ns, data)) {
    ++messages_lost_;
    Fail(writer_->error() + ": " + kStopped);
    return false;
  }
  ++messages_written_;
  unflushed_ = writer_->buffered_bytes() == 0 ? 0 : unflushed_ + 1;
  return true;
}

RecorderStatus RotatingRecorder::status() const {
  RecorderStatus s;
  s.recording = recording();
  if (writer_) {
    s.file = Path(kept_.back().name);
    s.file_bytes = writer_->bytes_written();
    s.file_messages = writer_->message_count();
  }
  s.files_kept = kept_.size();
  s.kept_bytes = KeptBytes();
  s.free_bytes = free_bytes_;
  s.messages_written = messages_written_;
  s.messages_lost = messages_lost_;
  s.error = error_;
  return s;
}

bool RotatingRecorder::Rotate(std::uint64_t now_ns) {
  if (std::string why; !CloseFile(&why)) {
    Fail(why + ": " + kStopped);
    return false;
  }
  return OpenNext(now_ns, kStopped);
}

// With no file open: makes room (retention), checks free space, opens the file of `now_ns`.
bool RotatingRecorder::OpenNext(std::uint64_t now_ns, const char* consequence) {
  if (!ScanDirectory(consequence)) return false;
  ApplyRetention();
  return CheckFreeSpace(consequence) && OpenFile(now_ns, consequence);
}

// Our files in the directory, by n; the next n follows the largest.
bool RotatingRecorder::ScanDirectory(const char* consequence) {
  std::vector<FileEntry> entries;
  if (std::string why; !fs_.List(options_.directory, &entries, &why)) {
    Fail(why + ": " + consequence);
    return false;
  }
  kept_.clear();
  for (FileEntry& e : entries) {
    if (const auto n = ParseRecordingFileName(options_.prefix, e.name)) {
      kept_.push_back({std::move(e.name), *n, e.bytes});
      next_n_ = std::max(next_n_, *n + 1);
    }
  }
  std::sort(kept_.begin(), kept_.end(), [](const Kept& a, const Kept& b) { return a.n < b.n; });
  return true;
}

std::vector<RotatingRecorder::File> RotatingRecorder::List(std::string* error) const {
  std::vector<FileEntry> entries;
  if (std::string why; !fs_.List(options_.directory, &entries, &why)) {
    if (error != nullptr) *error = why;
    return {};
  }
  std::vector<std::pair<std::uint64_t, File>> ours;  // by n
  for (FileEntry& e : entries) {
    if (const auto n = ParseRecordingFileName(options_.prefix, e.name)) {
      ours.push_back({*n, {std::move(e.name), e.bytes}});
    }
  }
  std::sort(ours.begin(), ours.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<File> files;
  for (auto& [n, f] : ours) files.push_back(std::move(f));
  return files;
}

// Deletes the oldest files until those left and a new one at its largest fit the limits. Runs
// with no file open.
void RotatingRecorder::ApplyRetention() {
  auto over = [this] {
    const bool too_many =
        options_.retention_files != 0 && kept_.size() + 1 > options_.retention_files;
    return too_many || KeptBytes() + options_.max_file_bytes > options_.retention_bytes;
  };
  while (!kept_.empty() && over()) {
    if (std::string why; !fs_.Remove(Path(kept_.front().name), &why)) error_ = why;
    kept_.erase(kept_.begin());
  }
}

bool RotatingRecorder::CheckFreeSpace(const char* consequence) {
  std::string why;
  if (!fs_.FreeBytes(options_.directory, &free_bytes_, &why)) {
    Fail(why + ": " + consequence);
    return false;
  }
  if (free_bytes_ < options_.min_free_bytes) {
    const std::uint64_t needed_mib = (options_.min_free_bytes + kMiB - 1) / kMiB;
    Fail("only " + std::to_string(free_bytes_ / kMiB) + " MiB free on " + options_.directory +
         " (at least " + std::to_string(needed_mib) + " MiB needed): " + consequence);
    return false;
  }
  if (writer_) next_free_check_ = writer_->bytes_written() + options_.free_check_bytes;
  return true;
}

bool RotatingRecorder::OpenFile(std::uint64_t now_ns, const char* consequence) {
  Kept kept{RecordingFileName(options_.prefix, now_ns, next_n_), next_n_, 0};
  std::string why;
  file_ = fs_.Create(Path(kept.name), &why);
  if (!file_) {
    Fail(why + ": " + consequence);
    return false;
  }
  ++next_n_;
  kept_.push_back(std::move(kept));
  writer_ = std::make_unique<McapWriter>(*file_, options_.mcap);
  if (!DeclareFile(*writer_, channels_, options_.metadata)) {
    Fail(writer_->error() + ": " + consequence);
    return false;
  }
  state_ = State::kRecording;
  file_start_ns_ = now_ns;
  unflushed_ = 0;
  next_free_check_ = writer_->bytes_written() + options_.free_check_bytes;
  return true;
}

// Writes the summary and closes the file. False with *why when either fails; the messages of
// the last chunk are then counted lost.
bool RotatingRecorder::CloseFile(std::string* why) {
  if (!writer_) return true;
  bool ok = writer_->Close();
  if (!ok) {
    *why = writer_->error();
    LoseUnflushed();
  }
  kept_.back().bytes = writer_->bytes_written();
  if (!file_->Close() && ok) {
    *why = file_->error();
    ok = false;
  }
  writer_.reset();
  file_.reset();
  return ok;
}

// Stops recording because of `why`, closing the open file as well as it can.
void RotatingRecorder::Fail(std::string why) {
  std::string ignored;  // a close error would follow from `why`, which says the cause
  CloseFile(&ignored);
  state_ = State::kFailed;
  error_ = std::move(why);
}

void RotatingRecorder::LoseUnflushed() {
  messages_written_ -= unflushed_;
  messages_lost_ += unflushed_;
  unflushed_ = 0;
}

std::string RotatingRecorder::Path(const std::string& name) const {
  return options_.directory + "/" + name;
}

std::uint64_t RotatingRecorder::KeptBytes() const {
  std::uint64_t total = 0;
  for (const Kept& k : kept_) total += k.bytes;
  if (writer_) total += writer_->bytes_written() - kept_.back().bytes;
  return total;
}

}  // namespace robot_edge::recorder
