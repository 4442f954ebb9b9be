// Per-bus CAN health for EdgeDiagnostics: counters the control thread keeps (atomics), missed
// replies from the scheduler, and the controller's state through libsocketcan, which also
// restarts a bus after bus-off when the kernel does not (restart_ms == 0).
//
// Threads: the API thread (netlink calls and logging happen here, never on the control thread).
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "can/motor_scheduler.hpp"
#include "can/socketcan/link_supervisor.hpp"
#include "can/transport.hpp"
#include "config/config.hpp"
#include "edge_api.pb.h"

namespace robot_edge::daemon {

// Bits on the wire of one classical CAN frame with 8 data bytes and a standard id, without bit
// stuffing (111) — with worst-case stuffing it is 135.
inline constexpr double kBitsPerFrame = 111.0;

class BusHealth {
 public:
  // controllers[i] supervises buses[i] (may be empty: no supervision).
  BusHealth(const config::Config& config, const can::Transport& transport,
            const can::MotorScheduler* scheduler,
            std::vector<std::unique_ptr<can::CanLink>> controllers);

  // Polls the controllers (restarting after bus-off when due) and appends one CanBusHealth (the
  // specification's counters) and one CanBusExtension (the rest) per bus; bus load is measured
  // since the previous call.
  // Every bus is a virtual CAN link (vcan, vxcan): the robot is a simulator. Asked once, at
  // construction.
  bool simulated() const { return simulated_; }

  void Fill(std::int64_t now_us, google::protobuf::RepeatedPtrField<edge::CanBusHealth>* out,
            google::protobuf::RepeatedPtrField<edge::CanBusExtension>* extension);

 private:
  struct Previous {
    std::uint64_t frames = 0;
    std::int64_t time_us = -1;
  };
  const config::Config& config_;
  const can::Transport& transport_;
  const can::MotorScheduler* scheduler_;
  std::vector<std::unique_ptr<can::CanLink>> controllers_;
  std::vector<Previous> previous_;
  bool simulated_ = false;
};

}  // namespace robot_edge::daemon
