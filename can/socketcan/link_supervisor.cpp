#include "can/socketcan/link_supervisor.hpp"

#include <libsocketcan.h>
#include <net/if.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <filesystem>
#include <system_error>
#include <utility>

namespace robot_edge::can {
namespace {

// errno after a failed libsocketcan call, or EIO when it left none (its "get" calls fail without
// one when the attribute is missing).
int LastError() { return errno != 0 ? errno : EIO; }

// Runs one libsocketcan call: 0 on success, else an errno value.
template <typename Call>
int Checked(Call&& call) {
  errno = 0;
  return std::forward<Call>(call)() == 0 ? 0 : LastError();
}

class LibSocketCanNetlink final : public CanNetlink {
 public:
  Link Probe(const std::string& name) override {
    if (::if_nametoindex(name.c_str()) == 0) return Link::kAbsent;
    int state = 0;
    if (::can_get_state(name.c_str(), &state) == 0) return Link::kCan;
    if (::if_nametoindex(name.c_str()) == 0) return Link::kAbsent;  // vanished meanwhile
    // A real controller sits on a bus device (USB, PCI, SPI, platform); vcan has no parent.
    std::error_code ec;
    return std::filesystem::exists("/sys/class/net/" + name + "/device", ec) ? Link::kError
                                                                             : Link::kNotCan;
  }
  int GetState(const std::string& name, int* can_state) override {
    return Checked([&] { return ::can_get_state(name.c_str(), can_state); });
  }
  int GetErrorCounters(const std::string& name, can_berr_counter* counters) override {
    return Checked([&] { return ::can_get_berr_counter(name.c_str(), counters); });
  }
  int GetBitrate(const std::string& name, std::uint32_t* bitrate) override {
    can_bittiming timing{};
    const int error = Checked([&] { return ::can_get_bittiming(name.c_str(), &timing); });
    if (error == 0) *bitrate = timing.bitrate;
    return error;
  }
  int GetRestartMs(const std::string& name, std::uint32_t* restart_ms) override {
    return Checked([&] { return ::can_get_restart_ms(name.c_str(), restart_ms); });
  }
  int Stop(const std::string& name) override {
    return Checked([&] { return ::can_do_stop(name.c_str()); });
  }
  int Start(const std::string& name) override {
    return Checked([&] { return ::can_do_start(name.c_str()); });
  }
  int SetBitrate(const std::string& name, std::uint32_t bitrate) override {
    return Checked([&] { return ::can_set_bitrate(name.c_str(), bitrate); });
  }
  int SetRestartMs(const std::string& name, std::uint32_t restart_ms) override {
    return Checked([&] { return ::can_set_restart_ms(name.c_str(), restart_ms); });
  }
  int Restart(const std::string& name) override {
    return Checked([&] { return ::can_do_restart(name.c_str()); });
  }
};

std::system_error Failure(const std::string& interface, const std::string& step, int error) {
  return std::system_error(error, std::generic_category(), interface + ": " + step);
}

}  // namespace

CanNetlink& LibSocketCan() {
  static LibSocketCanNetlink netlink;
  return netlink;
}

bool IsVirtualCanLink(const std::string& name, CanNetlink* netlink) {
  return (netlink != nullptr ? *netlink : LibSocketCan()).Probe(name) == CanNetlink::Link::kNotCan;
}

CanControllerState FromKernelState(int can_state) {
  switch (can_state) {
    case CAN_STATE_ERROR_ACTIVE: return CanControllerState::kErrorActive;
    case CAN_STATE_ERROR_WARNING: return CanControllerState::kErrorWarning;
    case CAN_STATE_ERROR_PASSIVE: return CanControllerState::kErrorPassive;
    case CAN_STATE_BUS_OFF: return CanControllerState::kBusOff;
    case CAN_STATE_STOPPED: return CanControllerState::kStopped;
    case CAN_STATE_SLEEPING: return CanControllerState::kStopped;
    default: return CanControllerState::kUnknown;
  }
}

const char* ToString(CanControllerState state) {
  switch (state) {
    case CanControllerState::kUnknown: return "unknown";
    case CanControllerState::kErrorActive: return "error-active";
    case CanControllerState::kErrorWarning: return "error-warning";
    case CanControllerState::kErrorPassive: return "error-passive";
    case CanControllerState::kBusOff: return "bus-off";
    case CanControllerState::kStopped: return "stopped";
  }
  return "unknown";
}

const char* ToString(ControllerSupport support) {
  switch (support) {
    case ControllerSupport::kUnknown: return "unknown";
    case ControllerSupport::kSupported: return "supported";
    case ControllerSupport::kUnsupported: return "unsupported";
    case ControllerSupport::kAbsent: return "absent";
  }
  return "unknown";
}

const char* ToString(CanLink::ConfigureResult result) {
  switch (result) {
    case CanLink::ConfigureResult::kKept: return "kept";
    case CanLink::ConfigureResult::kUnchanged: return "unchanged";
    case CanLink::ConfigureResult::kChanged: return "changed";
    case CanLink::ConfigureResult::kUnsupported: return "unsupported";
  }
  return "unknown";
}

const char* ToString(CanLink::RestartResult result) {
  switch (result) {
    case CanLink::RestartResult::kNotNeeded: return "not needed";
    case CanLink::RestartResult::kRateLimited: return "rate-limited";
    case CanLink::RestartResult::kRestarted: return "restarted";
    case CanLink::RestartResult::kFailed: return "failed";
  }
  return "unknown";
}

CanLink::CanLink(std::string interface, const BusConfig& bus, CanNetlink* netlink)
    : interface_(std::move(interface)),
      bitrate_(bus.bitrate),
      restart_ms_(bus.restart_ms),
      netlink_(netlink != nullptr ? netlink : &LibSocketCan()) {}

ControllerSupport CanLink::Detect() {
  if (support_ == ControllerSupport::kUnsupported) return support_;
  const ControllerSupport before = support_;
  switch (netlink_->Probe(interface_)) {
    case CanNetlink::Link::kCan: support_ = ControllerSupport::kSupported; break;
    case CanNetlink::Link::kAbsent: support_ = ControllerSupport::kAbsent; break;
    case CanNetlink::Link::kNotCan:
      support_ = ControllerSupport::kUnsupported;
      spdlog::debug(
          "{}: no CAN controller netlink attributes (vcan?): bitrate, restart-ms, controller "
          "state and error counters are not supported there; carrying on without them",
          interface_);
      return support_;
    case CanNetlink::Link::kError: support_ = ControllerSupport::kUnknown; break;
  }
  if (support_ == ControllerSupport::kAbsent && before != ControllerSupport::kAbsent) {
    spdlog::warn("{}: no such network interface: controller state not reported", interface_);
  }
  return support_;
}

CanLink::ConfigureResult CanLink::Configure() {
  if (bitrate_ == 0) return ConfigureResult::kKept;
  switch (Detect()) {
    case ControllerSupport::kSupported: break;
    case ControllerSupport::kUnsupported: return ConfigureResult::kUnsupported;
    case ControllerSupport::kAbsent:
      throw Failure(interface_, "no such CAN interface (cannot set its bitrate)", ENODEV);
    case ControllerSupport::kUnknown:
      throw Failure(interface_, "the CAN controller does not answer netlink queries", EIO);
  }
  std::uint32_t bitrate = 0;
  std::uint32_t restart_ms = 0;
  int can_state = 0;
  if (const int e = netlink_->GetBitrate(interface_, &bitrate); e != 0) {
    throw Failure(interface_, "cannot read the bit timing", e);
  }
  if (const int e = netlink_->GetRestartMs(interface_, &restart_ms); e != 0) {
    throw Failure(interface_, "cannot read restart-ms", e);
  }
  if (const int e = netlink_->GetState(interface_, &can_state); e != 0) {
    throw Failure(interface_, "cannot read the controller state", e);
  }
  if (bitrate == bitrate_ && restart_ms == restart_ms_) {
    if (FromKernelState(can_state) == CanControllerState::kStopped) {
      if (const int e = netlink_->Start(interface_); e != 0) {
        throw Failure(interface_, "cannot bring the link up", e);
      }
      spdlog::info("{}: link was down; brought up", interface_);
    }
    return ConfigureResult::kUnchanged;
  }
  ApplySettings(bitrate, restart_ms);
  return ConfigureResult::kChanged;
}

void CanLink::ApplySettings(std::uint32_t current_bitrate, std::uint32_t current_restart_ms) {
  if (const int e = netlink_->Stop(interface_); e != 0) {
    throw Failure(interface_, "cannot take the link down to change its settings", e);
  }
  int error = 0;
  std::string step;
  if (current_bitrate != bitrate_) {
    error = netlink_->SetBitrate(interface_, bitrate_);
    if (error != 0) step = "cannot set the bitrate to " + std::to_string(bitrate_) + " bit/s";
  }
  if (error == 0 && current_restart_ms != restart_ms_) {
    error = netlink_->SetRestartMs(interface_, restart_ms_);
    if (error != 0) step = "cannot set restart-ms to " + std::to_string(restart_ms_);
  }
  // Up again in every case: a failed change leaves the previous settings in place.
  const int start_error = netlink_->Start(interface_);
  if (error != 0) throw Failure(interface_, step, error);
  if (start_error != 0) throw Failure(interface_, "cannot bring the link up", start_error);
  spdlog::info("{}: bitrate {} -> {} bit/s, restart-ms {} -> {}", interface_, current_bitrate,
               bitrate_, current_restart_ms, restart_ms_);
}

std::optional<CanLinkStatus> CanLink::Poll() {
  last_state_ = CanControllerState::kUnknown;
  if (support_ != ControllerSupport::kSupported && Detect() != ControllerSupport::kSupported) {
    return std::nullopt;
  }
  int can_state = 0;
  if (const int e = netlink_->GetState(interface_, &can_state); e != 0) {
    if (!poll_failed_) {
      spdlog::warn("{}: cannot read the controller state: {}", interface_,
                   std::generic_category().message(e));
    }
    poll_failed_ = true;
    support_ = ControllerSupport::kUnknown;  // ask again what the interface is next time
    return std::nullopt;
  }
  poll_failed_ = false;
  CanLinkStatus status;
  status.state = FromKernelState(can_state);
  if (error_counters_supported_) {
    can_berr_counter counters{};
    if (netlink_->GetErrorCounters(interface_, &counters) == 0) {
      status.has_error_counters = true;
      status.tx_errors = counters.txerr;
      status.rx_errors = counters.rxerr;
    } else {
      error_counters_supported_ = false;  // the driver does not report them: stop asking
      spdlog::debug("{}: the driver does not report error counters", interface_);
    }
  }
  last_state_ = status.state;
  return status;
}

CanLink::RestartResult CanLink::MaybeRestart(std::int64_t now_ms) {
  if (restart_ms_ != 0 || support_ != ControllerSupport::kSupported ||
      last_state_ != CanControllerState::kBusOff) {
    return RestartResult::kNotNeeded;
  }
  if (last_restart_attempt_ms_ && now_ms - *last_restart_attempt_ms_ < kRestartIntervalMs) {
    return RestartResult::kRateLimited;
  }
  last_restart_attempt_ms_ = now_ms;
  if (const int e = netlink_->Restart(interface_); e != 0) {
    spdlog::warn("{}: bus-off, and the controller restart failed: {}", interface_,
                 std::generic_category().message(e));
    return RestartResult::kFailed;
  }
  spdlog::info("{}: bus-off: controller restarted", interface_);
  return RestartResult::kRestarted;
}

}  // namespace robot_edge::can
