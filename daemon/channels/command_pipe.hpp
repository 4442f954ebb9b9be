// Commands from the API thread to the control thread, without locks or allocation: a fixed pool
// of slots (each with room for a whole trajectory) circulates through two single-producer /
// single-consumer queues. The API thread validates into a free slot and sends it; the control
// thread applies it and releases it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "handoff/spsc_queue.hpp"
#include "statemachine/io.hpp"
#include "statemachine/joint_stream.hpp"
#include "statemachine/trajectory.hpp"

namespace robot_edge::daemon {

struct CommandSlot {
  CommandSlot(std::size_t joints, std::size_t max_segments)
      : trajectory(joints, max_segments), joint_stream(joints) {}

  // command.trajectory points at `trajectory` for a trajectory request, command.joint_stream at
  // `joint_stream` for a joint command.
  sm::Command command;
  sm::Trajectory trajectory;
  sm::JointStreamCommand joint_stream;
  std::uint64_t client_id = 0;  // 0: internal (the daemon itself)
  bool want_result = false;     // answer the client with a CommandResult
};

class CommandPipe {
 public:
  CommandPipe(std::size_t slots, std::size_t joints, std::size_t max_segments);

  // API thread: a free slot, or nullptr when every slot is in flight.
  CommandSlot* Acquire();
  // API thread: hands `slot` (from Acquire) to the control thread.
  void Send(CommandSlot* slot);

  // Control thread: the next command, or nullptr.
  CommandSlot* Receive();
  // Control thread: returns a received slot to the pool.
  void Release(CommandSlot* slot);

 private:
  std::vector<std::unique_ptr<CommandSlot>> storage_;
  SpscQueue<CommandSlot*> to_control_;
  SpscQueue<CommandSlot*> free_;
};

}  // namespace robot_edge::daemon
