#include "can/error_frame.hpp"

#include <linux/can/error.h>

namespace robot_edge::can {

ErrorFrameInfo ClassifyErrorFrame(const can_frame& frame) {
  const canid_t id = frame.can_id & CAN_ERR_MASK;
  ErrorFrameInfo info;
  info.bus_off = (id & CAN_ERR_BUSOFF) != 0;
  info.restarted = (id & CAN_ERR_RESTARTED) != 0;
  info.controller_problem = (id & CAN_ERR_CRTL) != 0;
  info.protocol_or_bus_error = (id & (CAN_ERR_PROT | CAN_ERR_BUSERROR | CAN_ERR_ACK | CAN_ERR_TRX |
                                      CAN_ERR_LOSTARB | CAN_ERR_TX_TIMEOUT)) != 0;
  return info;
}

void CountErrorFrame(const can_frame& frame, BusCounters* counters) {
  BusCounters::Add(counters->error_frames, 1);
  const ErrorFrameInfo info = ClassifyErrorFrame(frame);
  if (info.bus_off) {
    BusCounters::Add(counters->bus_off_count, 1);
    counters->bus_off.store(true, std::memory_order_relaxed);
  }
  if (info.restarted) counters->bus_off.store(false, std::memory_order_relaxed);
}

}  // namespace robot_edge::can
