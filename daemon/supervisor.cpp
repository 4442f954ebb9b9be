#include "daemon/supervisor.hpp"

#include <pthread.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "daemon/channels/clock.hpp"
#include "daemon/control/control_loop.hpp"

namespace robot_edge::daemon {

Liveness::Verdict Liveness::Check(std::int64_t now_us, std::int64_t last_tick_us,
                                  std::int64_t api_heartbeat_us) {
  Verdict v;
  const bool ticking = last_tick_us >= 0;
  const std::int64_t control_age = now_us - last_tick_us;
  const bool control_ok = ticking && control_age < kControlStallUs;
  const std::int64_t api_age = now_us - api_heartbeat_us;
  const bool api_ok = api_age < kApiStallUs;
  if (ticking && !control_ok && !control_stalled_) {
    v.reports.push_back("control loop stalled for " + std::to_string(control_age / 1000) +
                        " ms: not feeding the systemd watchdog");
  } else if (control_ok && control_stalled_) {
    v.reports.push_back("control loop ticking again");
  }
  control_stalled_ = ticking && !control_ok;
  if (!api_ok && !api_stalled_) {
    api_stall_since_us_ = api_heartbeat_us;
    v.stop_walking = true;
    v.reports.push_back("API thread stalled for " + std::to_string(api_age / 1000) +
                        " ms: walking stopped, the systemd watchdog is no longer fed (it kills "
                        "robot-edged after WatchdogSec, and DAMP follows)");
  } else if (api_ok && api_stalled_) {
    v.reports.push_back("API thread responsive again after " +
                        std::to_string((api_heartbeat_us - api_stall_since_us_) / 1000) + " ms");
  }
  api_stalled_ = !api_ok;
  v.feed_watchdog = control_ok && api_ok;
  return v;
}

std::uint32_t StallJudge::Check(std::int64_t now_us, std::int64_t last_tick_us) {
  const bool on_time = last_check_us_ >= 0 && now_us - last_check_us_ <= 2 * check_period_us_;
  last_check_us_ = now_us;
  if (stall_us_ <= 0 || last_tick_us < 0) return 0;
  const std::int64_t age_us = now_us - last_tick_us;
  if (age_us < stall_us_) {
    damped_ = false;
    return 0;
  }
  if (damped_ || !on_time) return 0;
  damped_ = true;
  return static_cast<std::uint32_t>(std::clamp<std::int64_t>(age_us / 1000, 1, UINT32_MAX));
}

namespace {

std::int64_t CheckPeriodUs(std::int64_t control_stall_us) {
  if (control_stall_us <= 0) return Supervisor::kCheckPeriodUs;
  return std::clamp<std::int64_t>(control_stall_us / 4, 1000, Supervisor::kCheckPeriodUs);
}

}  // namespace

Supervisor::Supervisor(const ControlLoop& loop, ControlChannels* channels,
                       SystemdNotifier* notifier, const std::atomic<std::int64_t>* api_heartbeat_us,
                       std::int64_t control_stall_us, StallDamp stall_damp)
    : loop_(loop),
      channels_(channels),
      notifier_(notifier),
      api_heartbeat_us_(api_heartbeat_us),
      check_period_us_(CheckPeriodUs(control_stall_us)),
      stall_damp_(std::move(stall_damp)),
      stall_judge_(control_stall_us, check_period_us_) {}

Supervisor::~Supervisor() { Stop(); }

void Supervisor::Start() {
  thread_ = std::thread([this] { Run(); });
  pthread_setname_np(thread_.native_handle(), "re-supervisor");
}

void Supervisor::Stop() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool Supervisor::WaitForStop() {
  std::unique_lock lock(mutex_);
  return wake_.wait_for(lock, std::chrono::microseconds(check_period_us_),
                        [this] { return stop_; });
}

// The checks run without the mutex held (a log line, a datagram, the stall DAMP): Stop() waits
// for the check under way only, by joining.
void Supervisor::Run() {
  const auto feed_period = notifier_->watchdog_period();
  while (!WaitForStop()) {
    const std::int64_t now = SteadyMicros();
    CheckStall(now);
    Liveness::Verdict v = liveness_.Check(now, loop_.last_tick_us(),
                                          api_heartbeat_us_->load(std::memory_order_relaxed));
    if (v.stop_walking) channels_->urgent.fetch_or(kUrgentStopWalking, std::memory_order_acq_rel);
    for (const std::string& r : v.reports) {
      notifier_->Status(r);
      spdlog::warn("{}", r);
    }
    if (v.feed_watchdog && feed_period && now >= next_feed_us_) {
      notifier_->Watchdog();
      next_feed_us_ = now + feed_period->count();
    }
  }
}

void Supervisor::CheckStall(std::int64_t now_us) {
  const std::uint32_t stalled_ms = stall_judge_.Check(now_us, loop_.last_tick_us());
  if (stalled_ms == 0) return;
  const std::size_t sent = stall_damp_(stalled_ms);  // first: the log can wait
  const std::string report = "control thread stalled for " + std::to_string(stalled_ms) +
                             " ms: DAMP sent to every motor from the supervisor (" +
                             std::to_string(sent) + " frames)";
  notifier_->Status(report);
  spdlog::error("{}", report);
}

}  // namespace robot_edge::daemon
