#include "recorder/black_box.hpp"

#include <algorithm>
#include <tuple>

#include "recorder/file_names.hpp"

namespace robot_edge::recorder {
namespace {

// What passing one slot costs against poll_budget_bytes besides its message bytes: so that a
// Poll that only skips (messages lost, out of the window) is bounded too.
constexpr std::size_t kSlotCost = 32;
// Triggers kept per dump; more are counted in "trigger_count" only.
constexpr std::size_t kMaxTriggers = 64;

}  // namespace

struct BlackBox::Dump {
  std::uint64_t trigger_ns = 0;
  std::uint64_t window_start = 0;  // ns, inclusive
  std::uint64_t window_end = 0;    // ns, inclusive
  std::vector<std::pair<std::uint64_t, std::string>> triggers;
  std::uint64_t trigger_count = 0;
  std::string path;  // the final name's path, set once created as path + kPartialSuffix
  std::unique_ptr<OutputFile> file;
  std::unique_ptr<McapWriter> writer;  // after `file`: destroyed (closed) first
  std::uint64_t cursor = 0;            // ring position of the next message to write
  std::uint64_t messages = 0;
  std::uint64_t lost = 0;
  bool lost_exact = true;
  std::string error;
};

McapWriterOptions BlackBoxMcapOptions() {
  McapWriterOptions o;
  o.chunk_size = 256u << 10;
  return o;
}

BlackBox::BlackBox(BlackBoxOptions options, std::vector<ChannelInfo> channels, FileSystem& fs)
    : options_(std::move(options)),
      channels_(std::move(channels)),
      fs_(fs),
      ring_(options_.capacity_bytes, options_.capacity_messages),
      sequence_(channels_.size(), 0) {}

BlackBox::~BlackBox() = default;

void BlackBox::Add(std::size_t channel, std::uint64_t log_time_ns,
                   std::span<const std::uint8_t> data) {
  if (channel >= channels_.size()) {
    ++messages_refused_;
    return;
  }
  // The sequence advances even for a refused message: the gap shows in the file.
  const std::uint32_t sequence = sequence_[channel]++;
  if (!ring_.Push(static_cast<std::uint32_t>(channel), sequence, log_time_ns, data)) {
    ++messages_refused_;
  }
}

void BlackBox::Trigger(std::uint64_t now_ns, std::string_view reason) {
  Dump* joined = nullptr;
  if (dump_ && now_ns <= dump_->window_end) {
    joined = dump_.get();
  } else if (queued_) {
    joined = queued_.get();
  }
  if (joined != nullptr) {
    if (joined->triggers.size() < kMaxTriggers) joined->triggers.emplace_back(now_ns, reason);
    ++joined->trigger_count;
    return;
  }
  (dump_ ? queued_ : dump_) = NewDump(now_ns, reason);
}

std::unique_ptr<BlackBox::Dump> BlackBox::NewDump(std::uint64_t now_ns,
                                                  std::string_view reason) const {
  auto d = std::make_unique<Dump>();
  d->trigger_ns = now_ns;
  d->window_start = now_ns - std::min(now_ns, options_.pre_ns);
  d->window_end = now_ns + std::min(UINT64_MAX - now_ns, options_.post_ns);
  d->triggers.emplace_back(now_ns, reason);
  d->trigger_count = 1;
  return d;
}

std::optional<DumpResult> BlackBox::Poll(std::uint64_t now_ns) {
  if (!dump_) dump_ = std::move(queued_);
  if (!dump_) return std::nullopt;
  Dump& d = *dump_;
  const Progress progress = (d.writer || Open(d)) ? WriteSome(d, now_ns) : Progress::kFailed;
  if (progress == Progress::kMore) return std::nullopt;
  DumpResult result = Finish(d, progress);
  dump_ = std::move(queued_);  // not opened yet: retention cannot touch its file
  const std::size_t slash = result.path.rfind('/');
  result.deleted =
      ApplyRetention(slash == std::string::npos ? "" : result.path.substr(slash + 1), now_ns);
  return result;
}

// Creates the file, declares channels and metadata, and finds the window's first message.
bool BlackBox::Open(Dump& d) {
  if (!IsFileNamePrefix(options_.prefix)) {
    d.error = "prefix \"" + options_.prefix + "\" is not a file name prefix ([A-Za-z0-9._-]+)";
    return false;
  }
  if (!fs_.EnsureDirectory(options_.directory, &d.error)) return false;
  const std::string name =
      BlackBoxFileName(options_.prefix, d.trigger_ns, d.triggers.front().second);
  const std::string path = options_.directory + "/" + name;
  d.file = fs_.Create(path + std::string(kPartialSuffix), &d.error);
  if (!d.file) return false;
  d.path = path;
  d.writer = std::make_unique<McapWriter>(*d.file, options_.mcap);
  if (!DeclareFile(*d.writer, channels_, options_.metadata)) {
    d.error = d.writer->error();
    return false;
  }
  d.cursor = ring_.LowerBound(d.window_start);
  d.lost_exact = ring_.begin() == 0 || ring_.last_dropped_time_ns() < d.window_start;
  return true;
}

BlackBox::Progress BlackBox::WriteSome(Dump& d, std::uint64_t now_ns) {
  std::size_t spent = 0;
  const std::size_t budget = std::max<std::size_t>(options_.poll_budget_bytes, 1);
  while (spent < budget) {
    spent += kSlotCost;
    if (d.cursor < ring_.begin()) {  // slots reused before the dump reached them
      d.lost += ring_.begin() - d.cursor;
      d.cursor = ring_.begin();
    }
    if (d.cursor == ring_.end()) {
      return now_ns > d.window_end ? Progress::kComplete : Progress::kMore;
    }
    const std::uint64_t t = ring_.time(d.cursor);
    if (t > d.window_end) return Progress::kComplete;
    if (t < d.window_start) {  // out of order, before the window
      ++d.cursor;
      continue;
    }
    if (d.cursor < ring_.data_begin()) {  // its bytes were overwritten
      ++d.lost;
      ++d.cursor;
      continue;
    }
    const MessageRing::Message m = ring_.at(d.cursor);
    if (!d.writer->Write(static_cast<std::uint16_t>(m.channel + 1), m.sequence, t, t, m.data)) {
      d.error = d.writer->error();
      return Progress::kFailed;
    }
    ++d.messages;
    ++d.cursor;
    spent += m.data.size();
  }
  return Progress::kMore;
}

// The "blackbox" Metadata record: what the dump covers and what it lost.
mcap::StringMap BlackBox::DumpMetadata(const Dump& d) {
  std::string lines;
  for (const auto& [time, reason] : d.triggers) {
    if (!lines.empty()) lines += '\n';
    lines += std::to_string(time);
    lines += ' ';
    lines += reason;
  }
  return {{"reason", d.triggers.front().second},
          {"triggers", lines},
          {"trigger_count", std::to_string(d.trigger_count)},
          {"trigger_time_ns", std::to_string(d.trigger_ns)},
          {"trigger_time_utc", UtcStampMs(d.trigger_ns)},
          {"window_start_ns", std::to_string(d.window_start)},
          {"window_end_ns", std::to_string(d.window_end)},
          {"messages", std::to_string(d.messages)},
          {"messages_lost", std::to_string(d.lost)},
          {"messages_lost_exact", d.lost_exact ? "true" : "false"}};
}

// Writes the "blackbox" Metadata record and closes the file (when complete), then reports.
DumpResult BlackBox::Finish(Dump& d, Progress progress) {
  bool ok = progress == Progress::kComplete;
  if (ok && !d.writer->AddMetadata("blackbox", DumpMetadata(d))) {
    d.error = d.writer->error();
    ok = false;
  }
  if (d.writer && !d.writer->Close() && ok) {
    d.error = d.writer->error();
    ok = false;
  }
  if (d.file && !d.file->Close() && ok) {
    d.error = d.file->error();
    ok = false;
  }
  if (ok && !fs_.Rename(d.path + std::string(kPartialSuffix), d.path, &d.error)) ok = false;
  DumpResult r;
  r.ok = ok;
  r.path = ok || d.path.empty() ? d.path : d.path + std::string(kPartialSuffix);
  r.trigger_time_ns = d.trigger_ns;
  r.triggers = d.triggers;
  r.messages = d.messages;
  r.messages_lost = d.lost;
  r.bytes = d.writer ? d.writer->bytes_written() : 0;
  if (ok) {
    ++dumps_written_;
  } else {
    ++dumps_failed_;
    r.error = "black box dump (" + d.triggers.front().second + ") failed: " + d.error;
    error_ = r.error;
  }
  return r;
}

// Deletes our oldest dump files beyond max_files, never `keep` (the dump just ended; see
// Retention in the header). Returns the names deleted.
std::vector<std::string> BlackBox::ApplyRetention(const std::string& keep, std::uint64_t now_ns) {
  std::vector<std::string> deleted;
  if (options_.max_files == 0) return deleted;
  std::string why;
  const std::vector<BlackBoxFile> files = List(&why);
  if (!why.empty()) error_ = why;
  for (const bool manual : {false, true}) {
    std::vector<const BlackBoxFile*> complete, partial;  // oldest first, as listed; not `keep`
    std::size_t kept_whole = 0, kept_partial = 0;        // `keep`, counted where it belongs
    for (const BlackBoxFile& f : files) {
      if ((f.reason.rfind(kManualDumpPrefix, 0) == 0) != manual) continue;
      if (f.name == keep) {
        ++(f.partial ? kept_partial : kept_whole);
        continue;
      }
      (f.partial ? partial : complete).push_back(&f);
    }
    for (auto* group : {&complete, &partial}) {  // dated after now: the oldest of all
      std::stable_partition(group->begin(), group->end(),
                            [&](const BlackBoxFile* f) { return f->trigger_time_ns > now_ns; });
    }
    const std::size_t whole_room = options_.max_files - std::min(options_.max_files, kept_whole);
    std::vector<const BlackBoxFile*> doomed;
    for (std::size_t i = 0; i + whole_room < complete.size(); ++i) doomed.push_back(complete[i]);
    const std::size_t whole = kept_whole + std::min(complete.size(), whole_room);
    for (std::size_t i = 0;
         i < partial.size() && whole + kept_partial + partial.size() - i > options_.max_files;
         ++i) {
      doomed.push_back(partial[i]);
    }
    for (const BlackBoxFile* f : doomed) {
      if (fs_.Remove(options_.directory + "/" + f->name, &why)) {
        deleted.push_back(f->name);
      } else {
        error_ = why;
      }
    }
  }
  return deleted;
}

std::vector<BlackBoxFile> BlackBox::List(std::string* error) const {
  std::vector<FileEntry> entries;
  std::string why;
  if (!fs_.List(options_.directory, &entries, &why)) {
    if (error != nullptr) *error = why;
    return {};
  }
  std::vector<BlackBoxFile> files;
  for (FileEntry& e : entries) {
    if (auto parsed = ParseBlackBoxFileName(options_.prefix, e.name)) {
      files.push_back({std::move(e.name), e.bytes, parsed->trigger_time_ns,
                       std::move(parsed->reason), parsed->partial});
    }
  }
  std::sort(files.begin(), files.end(), [](const BlackBoxFile& a, const BlackBoxFile& b) {
    return std::tie(a.trigger_time_ns, a.name) < std::tie(b.trigger_time_ns, b.name);
  });
  return files;
}

BlackBoxStatus BlackBox::status() const {
  BlackBoxStatus s;
  s.messages_held = ring_.end() - ring_.data_begin();
  s.bytes_held = ring_.used_bytes();
  s.messages_refused = messages_refused_;
  s.dumping = dumping();
  s.dumps_written = dumps_written_;
  s.dumps_failed = dumps_failed_;
  s.error = error_;
  return s;
}

}  // namespace robot_edge::recorder
