// The uplink's black-box uploads, on its main thread (uplink.cpp): requests from `blackbox`,
// listings asked of robot-edged on the observer connection (answered in its message stream, so
// nothing is read out of order or dropped), jobs handed to the Uploader's thread, and the JSON
// reports for `status`. Nothing here waits on the network or the disk.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "client/client.hpp"
#include "uplink/blackbox.hpp"
#include "uplink/options.hpp"
#include "uplink/upload.hpp"

namespace robot_edge::uplink {

class BlackboxService {
 public:
  explicit BlackboxService(const UplinkOptions& options);

  // A message on `blackbox`: parsed, refused (a report) or waiting for the next listing.
  void OnRequest(const std::string& payload);
  // Asks robot-edged for the listing when the desk wants one (`observer` may be null).
  void Poll(std::int64_t now_us, client::Client* observer);
  void OnRecorderResult(const edge::RecorderResult& result);
  // The observer connection dropped: a listing asked on it will not come.
  void OnRobotLost();
  // JSON reports for `status`, oldest first; at most kMaxReports kept (the oldest dropped).
  std::vector<std::string> TakeReports();
  std::uint64_t failures() const { return uploader_.failures() + refused_; }

  static constexpr std::size_t kMaxReports = 256;

 private:
  void Apply(BlackboxDesk::Outcome outcome);
  void Report(const UploadReport& report);

  const UplinkOptions& o_;
  std::string announced_path_;  // <spool.dir>/announced (announced_file.hpp)
  BlackboxDesk desk_;
  Uploader uploader_;
  std::uint32_t request_id_ = 0x55500000;  // this client's RecorderRequest ids
  std::uint64_t refused_ = 0;              // requests refused before an upload began
  std::deque<std::string> reports_;
};

}  // namespace robot_edge::uplink
