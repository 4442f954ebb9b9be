#include "uplink/blackbox_service.hpp"

#include "uplink/announced_file.hpp"
#include "uplink/uplink.hpp"

namespace robot_edge::uplink {

namespace {

AnnouncePolicy Policy(const std::string& name) {
  if (name == "off") return AnnouncePolicy::kOff;
  if (name == "all") return AnnouncePolicy::kAll;
  return AnnouncePolicy::kAlerts;
}

std::string BaseName(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

BlackboxService::BlackboxService(const UplinkOptions& o)
    : o_(o),
      announced_path_(o.spool.dir + "/announced"),
      desk_(Policy(o.upload.announce), static_cast<std::uint64_t>(o.upload.max_mib) << 20),
      uploader_(
          [&o](const std::atomic<bool>* abort) {
            return MakeCurlTransport(o.upload.ca, o.upload.allow_plain_http_loopback, abort);
          },
          o.upload.queue, Backoff{static_cast<int>(o.upload.attempts)}) {
  if (auto known = ReadAnnounced(announced_path_)) desk_.Restore(std::move(*known));
}

void BlackboxService::OnRequest(const std::string& payload) {
  const std::int64_t now_s = static_cast<std::int64_t>(client::WallClockMicros() / 1'000'000);
  ParsedUploadRequest parsed =
      ParseUploadRequest(payload, now_s, o_.upload.allow_plain_http_loopback);
  if (parsed.request && desk_.Request(*parsed.request)) return;
  UploadReport r;
  r.id = parsed.id;
  r.reason = parsed.request ? "too many requests waiting" : parsed.error;
  if (parsed.request) r.file = parsed.request->file;
  ++refused_;
  Report(r);
}

void BlackboxService::Poll(std::int64_t now_us, client::Client* observer) {
  for (const UploadReport& r : uploader_.Take()) Report(r);
  if (observer == nullptr || !desk_.ShouldList(now_us)) return;
  edge::ClientMessage message;
  edge::RecorderRequest* request = message.mutable_recorder();
  request->set_request_id(++request_id_);
  request->set_op(edge::RecorderRequest::OP_BLACKBOX_LIST);
  try {
    observer->Send(message);
  } catch (const client::ClientError& e) {
    Apply(desk_.OnListingFailed(std::string("robot-edged: ") + e.what()));
  }
}

void BlackboxService::OnRecorderResult(const edge::RecorderResult& result) {
  if (result.request_id() != request_id_) return;  // not ours, or an old one
  if (!result.ok()) {
    Apply(desk_.OnListingFailed("robot-edged: " + result.error()));
    return;
  }
  RecordingListing listing;
  listing.directory = result.status().directory();
  listing.black_box_writing = result.status().black_box_writing();
  if (result.status().recording()) listing.recording_file = result.status().file();
  for (const edge::RecordingFile& f : result.black_box_files()) {
    listing.black_boxes.push_back({BaseName(f.path()), f.bytes(), f.reason(), f.trigger_time_us()});
  }
  for (const edge::RecordingFile& f : result.recording_files()) {
    listing.recordings.push_back({BaseName(f.path()), f.bytes(), "", 0});
  }
  Apply(desk_.OnListing(listing));
  if (desk_.TakeKnownChanged() && !WriteAnnounced(announced_path_, desk_.known())) {
    Log("cannot write " + announced_path_ + ": black boxes may be announced again");
  }
}

void BlackboxService::OnRobotLost() {
  Apply(desk_.OnListingFailed("robot-edged's connection dropped before it listed the files"));
}

void BlackboxService::Apply(BlackboxDesk::Outcome outcome) {
  for (const UploadReport& r : outcome.refusals) {
    ++refused_;
    Report(r);
  }
  for (UploadJob& job : outcome.jobs) {
    job.chunk_bytes = static_cast<std::uint64_t>(o_.upload.chunk_kib) << 10;
    UploadReport r;
    r.id = job.request.id;
    r.file = job.request.file;
    if (uploader_.Submit(std::move(job))) continue;
    r.reason = "the upload queue is full (upload.queue)";
    ++refused_;
    Report(r);
  }
}

void BlackboxService::Report(const UploadReport& report) {
  if (reports_.size() >= kMaxReports) reports_.pop_front();
  reports_.push_back(ReportJson(report));
}

std::vector<std::string> BlackboxService::TakeReports() {
  std::vector<std::string> out(reports_.begin(), reports_.end());
  reports_.clear();
  return out;
}

}  // namespace robot_edge::uplink
