#include "daemon/api/bus_health.hpp"

#include <algorithm>

namespace robot_edge::daemon {

BusHealth::BusHealth(const config::Config& config, const can::Transport& transport,
                     const can::MotorScheduler* scheduler,
                     std::vector<std::unique_ptr<can::CanLink>> controllers)
    : config_(config),
      transport_(transport),
      scheduler_(scheduler),
      controllers_(std::move(controllers)),
      previous_(transport.bus_count()) {
  simulated_ = !controllers_.empty() &&
               std::all_of(controllers_.begin(), controllers_.end(), [](const auto& link) {
                 return link != nullptr && can::IsVirtualCanLink(link->interface());
               });
}

void BusHealth::Fill(std::int64_t now_us,
                     google::protobuf::RepeatedPtrField<edge::CanBusHealth>* out,
                     google::protobuf::RepeatedPtrField<edge::CanBusExtension>* extension) {
  for (std::size_t b = 0; b < previous_.size(); ++b) {
    const can::BusCounters& c = transport_.counters(b);
    edge::CanBusHealth* h = out->Add();
    h->set_interface(config_.buses[b].interface);
    h->set_frames_sent(c.frames_sent.load());
    h->set_frames_received(c.frames_received.load());
    h->set_error_frames(c.error_frames.load());
    h->set_bus_off_count(c.bus_off_count.load());
    edge::CanBusExtension* x = extension->Add();
    x->set_name(config_.buses[b].name);
    x->set_send_failures(c.send_failures.load());
    x->set_rx_overflows(transport_.rx_overflows());  // the socket is shared by every bus
    x->set_link_up(c.link_up.load());
    if (scheduler_ != nullptr) x->set_missed_replies(scheduler_->missed_replies(b));

    const std::uint64_t frames = h->frames_sent() + h->frames_received();
    Previous& p = previous_[b];
    const std::uint32_t bitrate =
        config_.buses[b].bitrate != 0 ? config_.buses[b].bitrate : 1000000;
    if (p.time_us >= 0 && now_us > p.time_us) {
      const double seconds = static_cast<double>(now_us - p.time_us) * 1e-6;
      x->set_bus_load(static_cast<float>(static_cast<double>(frames - p.frames) * kBitsPerFrame /
                                         seconds / bitrate));
    }
    p = {frames, now_us};

    if (b < controllers_.size() && controllers_[b]) {
      if (const auto status = controllers_[b]->Poll()) {
        x->set_state(static_cast<edge::CanControllerState>(status->state));
        x->set_tx_error_counter(status->tx_errors);
        x->set_rx_error_counter(status->rx_errors);
      }
      controllers_[b]->MaybeRestart(now_us / 1000);
    }
  }
}

}  // namespace robot_edge::daemon
