// Which file a fleet's upload request means, and which black boxes to announce (pure: no I/O, no
// clock; `now_us` is the caller's monotonic clock). The main thread owns it.
//
// Flow (docs/fleet-uploads.md): requests wait for robot-edged's next RecorderResult
// (OP_BLACKBOX_LIST with its status), asked at once when one is pending and every kListPeriodUs
// otherwise. Then:
//   - "latest" is the black box with the newest trigger time;
//   - a name must be one robot-edged listed: nothing else in the directory is ever uploaded
//     (the job then opens it with O_NOFOLLOW through the directory's fd: OpenInDirectory);
//   - the black box robot-edged is still writing (black_box_writing: the newest one) and the
//     continuous recording's open file are refused: closed files only;
//   - a new black box (not in the first listing, which is the baseline) is announced once when
//     the policy says so (`alerts`: not the ones an operator asked for, `manual-...`; `all`).
//     Restore() gives back the names a previous run had seen (announced_file.hpp): there is then
//     no baseline, and every closed black box not among them is new. The names seen are pruned
//     to the files listed (robot-edged's retention deletes old ones).
#pragma once

#include <cstdint>
#include <deque>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "uplink/upload.hpp"

namespace robot_edge::uplink {

enum class AnnouncePolicy { kOff, kAlerts, kAll };

struct RecordingListing {  // robot-edged's RecorderResult, as the desk needs it
  struct File {
    std::string name;  // inside `directory`
    std::uint64_t bytes = 0;
    std::string reason;
    std::uint64_t trigger_time_us = 0;
  };
  std::string directory;  // RecorderStatus.directory
  bool black_box_writing = false;
  std::string recording_file;  // RecorderStatus.file when recording ("" = none), a path
  std::vector<File> black_boxes;
  std::vector<File> recordings;  // RecorderResult.recording_files (reason and time empty)
};

class BlackboxDesk {
 public:
  static constexpr std::int64_t kListPeriodUs = 5'000'000;
  static constexpr std::size_t kMaxWaiting = 16;

  BlackboxDesk(AnnouncePolicy policy, std::uint64_t max_bytes)
      : policy_(policy), max_bytes_(max_bytes) {}

  // A valid request; false when kMaxWaiting already wait (the caller refuses it).
  bool Request(UploadRequest request);
  // True when the uplink should send OP_BLACKBOX_LIST now; then it counts as asked.
  bool ShouldList(std::int64_t now_us);
  // The answer arrived (or failed: `ok` false, every waiting request is refused with `error`).
  struct Outcome {
    std::vector<UploadJob> jobs;         // uploads, then announcements (announce_only)
    std::vector<UploadReport> refusals;  // kError reports
  };
  Outcome OnListing(const RecordingListing& listing);
  Outcome OnListingFailed(const std::string& error);

  // The black boxes a previous run had seen: no baseline is taken; the others are new.
  void Restore(std::set<std::string> known);
  const std::set<std::string>& known() const { return known_; }
  // True once after each listing that changed known() (the caller saves it).
  bool TakeKnownChanged() { return std::exchange(known_changed_, false); }

 private:
  void Resolve(const RecordingListing& listing, UploadRequest request, Outcome* out) const;
  void Announce(const RecordingListing& listing, Outcome* out);

  AnnouncePolicy policy_;
  std::uint64_t max_bytes_;
  std::deque<UploadRequest> waiting_;
  bool asked_ = false;  // a listing is on its way
  std::int64_t last_asked_us_ = -kListPeriodUs;
  bool baseline_taken_ = false;
  std::set<std::string> known_;  // black boxes seen (announced or in the baseline)
  bool known_changed_ = false;
};

}  // namespace robot_edge::uplink
