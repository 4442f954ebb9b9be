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

}  // namespace robot_edge::daemon
