// The optional real-time settings of the control thread (config `realtime`).
#pragma once

#include <string>
#include <vector>

#include "config/config.hpp"

namespace robot_edge::daemon {

// Applies SCHED_FIFO priority and CPU affinity to the calling thread, and mlockall to the
// process. Returns one message per setting that was refused (e.g. without CAP_SYS_NICE): the
// daemon reports them once and runs anyway.
std::vector<std::string> ApplyRealtime(const config::RealtimeConfig& realtime);

}  // namespace robot_edge::daemon
