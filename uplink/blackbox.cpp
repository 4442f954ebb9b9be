#include "uplink/blackbox.hpp"

#include <algorithm>
#include <string_view>

namespace robot_edge::uplink {

namespace {

constexpr const char* kManualPrefix = "manual-";  // recorder::kManualDumpPrefix
// recorder::kPartialSuffix: a black box being written, or cut short (a failed dump, a crash).
constexpr std::string_view kPartialSuffix = ".partial";

bool IsPartial(const RecordingListing::File& f) { return f.name.ends_with(kPartialSuffix); }

std::string BaseName(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

UploadReport Refusal(const UploadRequest& request, std::string reason) {
  UploadReport r;
  r.state = UploadReport::State::kError;
  r.id = request.id;
  r.file = request.file;
  r.reason = std::move(reason);
  return r;
}

}  // namespace

bool BlackboxDesk::Request(UploadRequest request) {
  if (waiting_.size() >= kMaxWaiting) return false;
  waiting_.push_back(std::move(request));
  return true;
}

bool BlackboxDesk::ShouldList(std::int64_t now_us) {
  if (asked_) return false;
  if (waiting_.empty() &&
      (policy_ == AnnouncePolicy::kOff || now_us - last_asked_us_ < kListPeriodUs)) {
    return false;
  }
  asked_ = true;
  last_asked_us_ = now_us;
  return true;
}

BlackboxDesk::Outcome BlackboxDesk::OnListing(const RecordingListing& listing) {
  asked_ = false;
  Outcome out;
  while (!waiting_.empty()) {
    Resolve(listing, std::move(waiting_.front()), &out);
    waiting_.pop_front();
  }
  Announce(listing, &out);
  return out;
}

BlackboxDesk::Outcome BlackboxDesk::OnListingFailed(const std::string& error) {
  asked_ = false;
  Outcome out;
  for (const UploadRequest& r : waiting_) out.refusals.push_back(Refusal(r, error));
  waiting_.clear();
  return out;
}

void BlackboxDesk::Resolve(const RecordingListing& listing, UploadRequest request,
                           Outcome* out) const {
  const auto& boxes = listing.black_boxes;  // oldest trigger first (robot-edged sorts them)
  if (listing.directory.empty()) {
    out->refusals.push_back(Refusal(request, "robot-edged has no recordings directory"));
    return;
  }
  if (request.file == kLatestBlackBox) {  // the newest whole one
    if (listing.black_box_writing && !boxes.empty() && IsPartial(boxes.back())) {
      // the newest is being written: not an older one in its place (the fleet asks again)
      out->refusals.push_back(Refusal(request, "robot-edged is still writing this black box"));
      return;
    }
    const auto whole = std::find_if(boxes.rbegin(), boxes.rend(),
                                    [](const RecordingListing::File& f) { return !IsPartial(f); });
    if (whole == boxes.rend()) {
      out->refusals.push_back(Refusal(request, "no black box on this robot"));
      return;
    }
    request.file = whole->name;
  }
  const bool writing_it =
      listing.black_box_writing && !boxes.empty() && boxes.back().name == request.file;
  if (writing_it) {
    out->refusals.push_back(Refusal(request, "robot-edged is still writing this black box"));
    return;
  }
  if (!listing.recording_file.empty() && BaseName(listing.recording_file) == request.file) {
    out->refusals.push_back(Refusal(request, "this is the recording robot-edged is writing"));
    return;
  }
  // Only a file robot-edged offers (its listing names it: a black box or a recording): never
  // any other file of the directory (audit M3).
  auto named = [&](const RecordingListing::File& f) { return f.name == request.file; };
  const bool listed = std::any_of(boxes.begin(), boxes.end(), named) ||
                      std::any_of(listing.recordings.begin(), listing.recordings.end(), named);
  if (!listed) {
    out->refusals.push_back(
        Refusal(request,
                "robot-edged does not offer this file (not in its listing of black "
                "boxes and recordings)"));
    return;
  }
  out->jobs.push_back({std::move(request), listing.directory, max_bytes_, false});
}

void BlackboxDesk::Restore(std::set<std::string> known) {
  known_ = std::move(known);
  baseline_taken_ = true;
}

void BlackboxDesk::Announce(const RecordingListing& listing, Outcome* out) {
  std::set<std::string> listed;
  for (const RecordingListing::File& f : listing.black_boxes) listed.insert(f.name);
  for (auto it = known_.begin(); it != known_.end();) {  // deleted by robot-edged's retention
    if (listed.count(*it) == 0) {
      it = known_.erase(it);
      known_changed_ = true;
    } else {
      ++it;
    }
  }
  for (std::size_t i = 0; i < listing.black_boxes.size(); ++i) {
    const RecordingListing::File& f = listing.black_boxes[i];
    const bool open = listing.black_box_writing && i + 1 == listing.black_boxes.size();
    // announced once it is closed and whole (a partial one is renamed when it is)
    if (open || IsPartial(f) || known_.count(f.name) > 0) continue;
    known_.insert(f.name);
    known_changed_ = true;
    const bool manual = f.reason.rfind(kManualPrefix, 0) == 0;
    if (!baseline_taken_ || policy_ == AnnouncePolicy::kOff ||
        (policy_ == AnnouncePolicy::kAlerts && manual)) {
      continue;
    }
    UploadJob job;
    job.request.file = f.name;
    job.directory = listing.directory;
    job.max_bytes = max_bytes_;
    job.announce_only = true;
    out->jobs.push_back(std::move(job));
  }
  if (!baseline_taken_) known_changed_ = true;  // saved even when empty: the next run has it
  baseline_taken_ = true;
}

}  // namespace robot_edge::uplink
