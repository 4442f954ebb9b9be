#include "daemon/api/frame_pool.hpp"

namespace robot_edge::daemon {

FramePool::FramePool(std::size_t frames, std::size_t capacity_bytes)
    : frames_(frames), capacity_bytes_(capacity_bytes) {
  for (auto& frame : frames_) {
    frame = std::make_shared<std::string>();
    frame->reserve(capacity_bytes_);
  }
}

std::shared_ptr<std::string> FramePool::Take() {
  for (std::size_t i = 0; i < frames_.size(); ++i) {
    auto& frame = frames_[(next_ + i) % frames_.size()];
    if (frame.use_count() == 1) {
      next_ = (next_ + i + 1) % frames_.size();
      frame->clear();
      return frame;
    }
  }
  auto& oldest = frames_[next_];
  next_ = (next_ + 1) % frames_.size();
  oldest = std::make_shared<std::string>();
  oldest->reserve(capacity_bytes_);
  return oldest;
}

}  // namespace robot_edge::daemon
