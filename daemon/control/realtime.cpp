#include "daemon/control/realtime.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstring>

namespace robot_edge::daemon {

std::vector<std::string> ApplyRealtime(const config::RealtimeConfig& rt) {
  std::vector<std::string> refused;
  if (rt.priority > 0) {
    sched_param param{};
    param.sched_priority = rt.priority;
    if (const int e = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param); e != 0) {
      refused.push_back("SCHED_FIFO priority " + std::to_string(rt.priority) +
                        " refused: " + std::strerror(e) + " (needs CAP_SYS_NICE or LimitRTPRIO)");
    }
  }
  if (rt.cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(rt.cpu, &set);
    if (const int e = pthread_setaffinity_np(pthread_self(), sizeof(set), &set); e != 0) {
      refused.push_back("pinning to CPU " + std::to_string(rt.cpu) +
                        " refused: " + std::strerror(e));
    }
  }
  if (rt.lock_memory && ::mlockall(MCL_CURRENT | MCL_FUTURE) != 0) {
    refused.push_back(std::string("mlockall refused: ") + std::strerror(errno) +
                      " (needs CAP_IPC_LOCK or LimitMEMLOCK=infinity)");
  }
  return refused;
}

std::optional<std::string> NotRealtimeWarning(std::uint32_t control_stall_ms) {
  int policy = SCHED_OTHER;
  sched_param param{};
  if (pthread_getschedparam(pthread_self(), &policy, &param) == 0 &&
      (policy == SCHED_FIFO || policy == SCHED_RR)) {
    return std::nullopt;
  }
  std::string w =
      "the control thread runs at normal scheduling, not real-time (realtime.priority 0, or "
      "SCHED_FIFO refused): a busy computer can hold it up for tens of milliseconds (up to 30 ms "
      "measured beside two C++ builds, bench/run's tick-gap rows)";
  if (control_stall_ms == 0) return w + "; the stall detector is off (safety.control_stall_ms 0)";
  return w + ", and the supervisor DAMPs the robot after " + std::to_string(control_stall_ms) +
         " ms without a tick (safety.control_stall_ms). Give it realtime.priority (the unit grants "
         "LimitRTPRIO=95)";
}

}  // namespace robot_edge::daemon
