// The optional real-time settings of the control thread (config `realtime`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/config.hpp"

namespace robot_edge::daemon {

// Applies SCHED_FIFO priority and CPU affinity to the calling thread, and mlockall to the
// process. Returns one message per setting that was refused (e.g. without CAP_SYS_NICE): the
// daemon reports them once and runs anyway.
std::vector<std::string> ApplyRealtime(const config::RealtimeConfig& realtime);

// What the calling thread's scheduling means for the stall detector, said once at start: nullopt
// when it runs at SCHED_FIFO or SCHED_RR; else a plain warning that it runs at normal priority,
// how long a busy computer held such a thread up where it was measured, and that the supervisor
// DAMPs the robot after `control_stall_ms` (0: the stall detector is off) without a tick.
std::optional<std::string> NotRealtimeWarning(std::uint32_t control_stall_ms);

}  // namespace robot_edge::daemon
