#include "daemon/channels/command_pipe.hpp"

namespace robot_edge::daemon {

CommandPipe::CommandPipe(std::size_t slots, std::size_t joints, std::size_t max_segments)
    : to_control_(slots), free_(slots) {
  for (std::size_t i = 0; i < slots; ++i) {
    storage_.push_back(std::make_unique<CommandSlot>(joints, max_segments));
    free_.Push(storage_.back().get());
  }
}

CommandSlot* CommandPipe::Acquire() {
  CommandSlot* slot = nullptr;
  return free_.Pop(&slot) ? slot : nullptr;
}

void CommandPipe::Send(CommandSlot* slot) {
  // Cannot fail: a queue holds as many entries as there are slots.
  to_control_.Push(slot);
}

CommandSlot* CommandPipe::Receive() {
  CommandSlot* slot = nullptr;
  return to_control_.Pop(&slot) ? slot : nullptr;
}

void CommandPipe::Release(CommandSlot* slot) { free_.Push(slot); }

}  // namespace robot_edge::daemon
