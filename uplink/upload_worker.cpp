// Uploader (upload.hpp): the worker thread and its queue.
#include <chrono>
#include <utility>

#include "uplink/upload.hpp"

namespace robot_edge::uplink {

// Real time; Sleep waits on the Uploader's condition variable so that a stop ends it.
class Uploader::Clock : public UploadClock {
 public:
  explicit Clock(Uploader& owner) : owner_(owner) {}
  std::int64_t WallSeconds() override {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  std::int64_t MonotonicMicros() override {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  bool Sleep(std::int64_t us) override {
    std::unique_lock lock(owner_.mutex_);
    owner_.wake_.wait_for(lock, std::chrono::microseconds(us), [&] { return owner_.stop_; });
    return !owner_.stop_;
  }

 private:
  Uploader& owner_;
};

Uploader::Uploader(const TransportFactory& make, std::size_t queue_cap, Backoff backoff)
    : transport_(make(&abort_)), queue_cap_(queue_cap), backoff_(backoff) {
  worker_ = std::thread([this] { Run(); });
}

Uploader::~Uploader() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  abort_ = true;
  wake_.notify_all();
  worker_.join();
}

bool Uploader::Submit(UploadJob job) {
  {
    std::lock_guard lock(mutex_);
    if (queue_.size() >= queue_cap_) return false;
    queue_.push_back(std::move(job));
  }
  wake_.notify_all();
  return true;
}

std::vector<UploadReport> Uploader::Take() {
  std::lock_guard lock(mutex_);
  return std::exchange(reports_, {});
}

bool Uploader::Idle() {
  std::lock_guard lock(mutex_);
  return queue_.empty() && !busy_;
}

void Uploader::Run() {
  Clock clock(*this);
  for (;;) {
    UploadJob job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
    }
    RunUpload(job, *transport_, clock, backoff_, [&](const UploadReport& r) {
      if (r.state == UploadReport::State::kError) ++failures_;
      std::lock_guard lock(mutex_);
      if (reports_.size() < 1000) reports_.push_back(r);  // the main thread takes them often
    });
    std::lock_guard lock(mutex_);
    busy_ = false;
  }
}

}  // namespace robot_edge::uplink
