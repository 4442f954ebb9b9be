// robot-edge-replay serve: a recording played to the live view (live/: the dashboard and the
// Foxglove WebSocket protocol), at its own pace, so a fall is looked at with the same dashboard
// as the live robot.
#pragma once

#include <atomic>
#include <ostream>
#include <string>

#include "live/options.hpp"
#include "tools/replay/recording.hpp"

namespace robot_edge::replay {

struct ServeOptions {
  live::LiveOptions live;       // address, port, token, web root
  double speed = 1.0;           // 2 = twice as fast
  bool loop = false;            // start again at the end
  bool wait_for_viewer = true;  // start playing 1 s after the first viewer connects
  std::string robot_document;   // the dashboard's /robot.json; "" = the file's "robot_document"
};

// Plays `recording` to a LiveServer until its end (forever with `loop`) or until `stop` is set:
// every channel advertised with its schema, each message published at its log time (paced from
// the first message, divided by `speed`, with its recorded log time). Prints the addresses and
// the progress to `out`. Throws std::runtime_error when the server cannot start or there is no
// robot description for the dashboard.
void Serve(const Recording& recording, const ServeOptions& options, std::ostream& out,
           const std::atomic<bool>& stop);

}  // namespace robot_edge::replay
