#include "inproc.hpp"

#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "can/imu_codec.hpp"
#include "can/mit_codec.hpp"
#include "can/motor_scheduler.hpp"
#include "daemon/control/realtime.hpp"

namespace robot_edge::bench {
namespace {

using namespace std::chrono_literals;

}  // namespace

// ---- LoopbackTransport ----

class LoopbackTransport::RingSource final : public FrameSource {
 public:
  RingSource(const LoopbackTransport& owner, int bus, std::vector<canid_t> ids)
      : owner_(owner),
        bus_(bus),
        ids_(std::move(ids)),
        tail_(owner.head_.load(std::memory_order_acquire)) {}

  std::size_t Read(int timeout_ms, std::vector<TappedFrame>* out) override {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
      const std::size_t n = Take(out);
      if (n > 0 || std::chrono::steady_clock::now() >= deadline) return n;
      std::this_thread::sleep_for(100us);
    }
  }
  void Drain() override { tail_ = owner_.head_.load(std::memory_order_acquire); }

 private:
  std::size_t Take(std::vector<TappedFrame>* out) {
    const std::uint64_t head = owner_.head_.load(std::memory_order_acquire);
    if (head - tail_ > kRingFrames) tail_ = head - kRingFrames;  // overwritten: skip ahead
    std::size_t kept = 0;
    for (; tail_ < head; ++tail_) {
      const TappedFrame f = owner_.ring_[tail_ % kRingFrames];
      if (bus_ >= 0 && f.bus != bus_) continue;
      const canid_t id = f.frame.can_id & CAN_SFF_MASK;
      if (!ids_.empty() && std::find(ids_.begin(), ids_.end(), id) == ids_.end()) continue;
      out->push_back(f);
      ++kept;
    }
    return kept;
  }

  const LoopbackTransport& owner_;
  int bus_;
  std::vector<canid_t> ids_;
  std::uint64_t tail_;
};

LoopbackTransport::LoopbackTransport(const config::Config& config)
    : replies_(config), ring_(kRingFrames) {
  for (const auto& b : config.buses) {
    buses_.push_back(std::make_unique<Bus>());
    buses_.back()->name = b.interface;
  }
  inbox_.reserve(4 * replies_.all().size() + 64);
}

std::size_t LoopbackTransport::Send(std::span<const can::BusFrame> frames) {
  const std::int64_t now = RealtimeNs();
  std::uint64_t head = head_.load(std::memory_order_relaxed);
  if (inbox_read_ == inbox_.size()) {
    inbox_.clear();
    inbox_read_ = 0;
  }
  for (const can::BusFrame& f : frames) {
    ring_[head++ % kRingFrames] = {now, static_cast<int>(f.bus), f.frame};
    can::BusCounters::Add(buses_[f.bus]->counters.frames_sent, 1);
    const can::BusFrame* reply = replies_.ReplyTo(f.bus, f.frame.can_id);
    if (reply && inbox_.size() < inbox_.capacity()) inbox_.push_back(*reply);
  }
  head_.store(head, std::memory_order_release);
  for (const can::BusFrame& f : replies_.imu()) {
    if (inbox_.size() < inbox_.capacity()) inbox_.push_back(f);
  }
  return frames.size();
}

std::size_t LoopbackTransport::Receive(std::span<can::BusFrame> out) {
  std::size_t n = 0;
  while (n < out.size() && inbox_read_ < inbox_.size()) {
    out[n] = inbox_[inbox_read_++];
    can::BusCounters::Add(buses_[out[n].bus]->counters.frames_received, 1);
    ++n;
  }
  return n;
}

std::unique_ptr<FrameSource> LoopbackTransport::Tap(const std::string& interface,
                                                    const std::vector<canid_t>& ids) {
  int bus = -1;
  for (std::size_t b = 0; b < buses_.size(); ++b) {
    if (buses_[b]->name == interface) bus = static_cast<int>(b);
  }
  if (!interface.empty() && bus < 0) throw std::runtime_error(interface + ": no such bus");
  return std::make_unique<RingSource>(*this, bus, ids);
}

// ---- InProcessDaemon ----

namespace {

std::string MakeTempDir() {
  char tmpl[] = "/tmp/robot-edge-bench.XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) throw std::runtime_error("mkdtemp failed");
  return tmpl;
}

config::Config Recording(config::Config c, const std::string& dir) {
  c.recorder.directory_path = dir + "/recordings";
  c.recorder.record_on_start = false;
  c.recorder.channels = {"joint_state", "telemetry", "events", "commands", "diagnostics", "can"};
  return c;
}

}  // namespace

InProcessDaemon::InProcessDaemon(const config::Config& config)
    : dir_(MakeTempDir()),
      config_(Recording(config, dir_)),
      transport_(config_),
      can_tap_(
          transport_,
          static_cast<std::size_t>(2 * config_.control.rate_hz) * (2 * config_.joints.size() + 8),
          &daemon::SteadyMicros),
      wake_fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)),
      channels_(config_, /*command_slots=*/32, /*events=*/4096),  // as daemon.cpp
      loop_(config_, can_tap_, /*policy=*/nullptr, &channels_),
      bus_health_(config_, transport_, &loop_.scheduler(), {}),
      access_(daemon::AccessPolicy::Load(config_, ::getuid())),
      recorder_(config_, &channels_, "bench", &can_tap_) {
  spdlog::set_level(spdlog::level::err);  // the watchdog trials would log a warning each
  socket_ = dir_ + "/api.sock";
  channels_.wake_fd = wake_fd_;
  hub_ = std::make_unique<daemon::Hub>(io_, config_, &channels_, &bus_health_, ::dup(wake_fd_),
                                       "bench", &access_, /*inference=*/nullptr, &recorder_);
  recorder_.Start();
  can_tap_.set_enabled(false);  // on for the recording window only (CopyCanFrames)
  listener_ =
      std::make_unique<daemon::Listener>(io_, [hub = hub_.get()](daemon::Stream s, daemon::Peer p) {
        hub->Accept(std::move(s), std::move(p));
      });
  listener_->ListenUnix(socket_);
  control_thread_ = std::thread([this] {
    control_tid_ = ::gettid();
    // As daemon.cpp's control thread: realtime.priority, cpu, lock_memory.
    for (const std::string& refused : daemon::ApplyRealtime(config_.realtime)) {
      std::fprintf(stderr, "bench_e2e: %s\n", refused.c_str());
    }
    loop_.Run();
  });
  hub_->Start();
  api_thread_ = std::thread([this] {
    api_tid_ = ::gettid();
    io_.run();
  });
  std::this_thread::sleep_for(200ms);  // every motor has replied
  live_ = StartLiveView(config_.source, socket_, dir_ + "/live", &live_port_);
}

InProcessDaemon::~InProcessDaemon() {
  live_.reset();
  loop_.RequestStop();
  control_thread_.join();
  asio::post(io_, [this] {
    listener_->Close();
    hub_->Stop("benchmark over");
  });
  std::this_thread::sleep_for(300ms);  // the Goodbyes
  io_.stop();
  api_thread_.join();
  recorder_.Stop();
  ::close(wake_fd_);
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

client::Client InProcessDaemon::Connect(const std::string& controller, bool want_results,
                                        bool telemetry) {
  return ConnectUnix(socket_, controller, want_results, telemetry);
}

double InProcessDaemon::DaemonCpuSeconds() {
  return bench::ThreadCpuSeconds(control_tid_) + bench::ThreadCpuSeconds(api_tid_);
}

double InProcessDaemon::SimCpuSeconds() { return std::nan(""); }

}  // namespace robot_edge::bench
