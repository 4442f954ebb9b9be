// Serialized frames shared by every session that sends them, reused instead of allocated: a
// frame goes back to the pool once no session holds it any more (its use count is back to one).
//
// Threads: one (the API thread's).
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace robot_edge::daemon {

class FramePool {
 public:
  // `frames` kept, each with `capacity_bytes` reserved.
  FramePool(std::size_t frames, std::size_t capacity_bytes);

  // An empty frame no session holds. When slow sessions hold every pooled frame, a new one is
  // allocated and replaces the oldest in the pool (which lives on in its sessions' queues).
  std::shared_ptr<std::string> Take();

 private:
  std::vector<std::shared_ptr<std::string>> frames_;
  std::size_t capacity_bytes_;
  std::size_t next_ = 0;
};

}  // namespace robot_edge::daemon
