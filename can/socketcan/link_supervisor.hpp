// Supervision of a CAN controller through libsocketcan (the kernel's CAN netlink attributes):
// at start-up set the bitrate and restart-ms when configured, then read the controller state and
// error counters, and restart a bus after bus-off when the kernel does not (restart_ms == 0).
//
// vcan (and any link without CAN netlink attributes) supports none of this: the first call that
// finds it out says so once at debug level, the controller remembers it ("unsupported") and every
// later call returns at once without a system call. The bus itself works as usual.
//
// Threads: NEVER the control thread. Every call except the constructor is one or more netlink
// round trips (a socket, a request, a dump of every link; ~0.1-1 ms, unbounded if the kernel is
// busy), and they log. The daemon calls Configure() at start-up before the control thread starts,
// then Poll() and MaybeRestart() from its supervisor timer on the API thread. One thread owns an
// instance. libsocketcan itself prints its failures to stderr (e.g. "no link data found" on vcan).
#pragma once

#include <linux/can/netlink.h>

#include <cstdint>
#include <optional>
#include <string>

#include "can/wiring.hpp"

namespace robot_edge::can {

// Numbered like the edge protocol's CanControllerState (proto/edge_cloud.proto), without
// depending on protobuf: a static_cast converts.
enum class CanControllerState : std::uint8_t {
  kUnknown = 0,       // not reported (vcan, absent interface, or a failed read)
  kErrorActive = 1,   // TEC and REC < 96
  kErrorWarning = 2,  // TEC or REC >= 96
  kErrorPassive = 3,  // TEC or REC >= 128
  kBusOff = 4,        // TEC >= 256: the controller left the bus
  kStopped = 5,       // interface down (or the controller sleeping)
};

// Maps a linux/can/netlink.h CAN_STATE_* value (what can_get_state() reports) to the above.
// CAN_STATE_SLEEPING maps to kStopped (off the bus, not an error); unknown values to kUnknown.
CanControllerState FromKernelState(int can_state);
const char* ToString(CanControllerState state);

struct CanLinkStatus {
  CanControllerState state = CanControllerState::kUnknown;
  bool has_error_counters = false;  // false when the driver does not report them
  std::uint16_t tx_errors = 0;      // transmit error counter (TEC)
  std::uint16_t rx_errors = 0;      // receive error counter (REC)
};

// What the kernel offers for an interface.
enum class ControllerSupport {
  kUnknown,      // not asked yet
  kSupported,    // a CAN controller with netlink attributes (real hardware)
  kUnsupported,  // the link exists but has no CAN controller attributes (vcan): remembered
  kAbsent,       // no such interface (now; asked again next time)
};
const char* ToString(ControllerSupport support);

// The netlink operations CanLink uses, one libsocketcan call each (tests substitute a
// fake). Each returns 0 on success or an errno value (EIO when libsocketcan gave none).
class CanNetlink {
 public:
  enum class Link { kAbsent, kCan, kNotCan, kError };

  virtual ~CanNetlink() = default;
  // Whether `name` exists and answers CAN netlink queries. kNotCan: it exists but has no CAN
  // controller attributes and no parent device (vcan, vxcan); kError: a device-backed interface
  // that did not answer. For an absent name run as root, the kernel may run modprobe
  // ("netdev-<name>") first: milliseconds, another reason to stay off the control thread.
  virtual Link Probe(const std::string& name) = 0;
  virtual int GetState(const std::string& name, int* can_state) = 0;
  virtual int GetErrorCounters(const std::string& name, can_berr_counter* counters) = 0;
  virtual int GetBitrate(const std::string& name, std::uint32_t* bitrate) = 0;
  virtual int GetRestartMs(const std::string& name, std::uint32_t* restart_ms) = 0;
  virtual int Stop(const std::string& name) = 0;   // link down
  virtual int Start(const std::string& name) = 0;  // link up
  virtual int SetBitrate(const std::string& name, std::uint32_t bitrate) = 0;
  virtual int SetRestartMs(const std::string& name, std::uint32_t restart_ms) = 0;
  virtual int Restart(const std::string& name) = 0;  // after bus-off, with restart_ms == 0
};

// The real one: libsocketcan. Stateless, so one instance serves every controller.
CanNetlink& LibSocketCan();

// True when `name` is a virtual CAN link (vcan, vxcan: no CAN controller, no device), which is
// what a simulated robot sits on. null = LibSocketCan().
bool IsVirtualCanLink(const std::string& name, CanNetlink* netlink = nullptr);

class CanLink {
 public:
  // Least time between two restart attempts of one bus (ms).
  static constexpr std::int64_t kRestartIntervalMs = 1000;

  enum class ConfigureResult {
    kKept,         // bitrate 0 in the config: nothing asked of the kernel
    kUnchanged,    // the controller already had the configured bitrate and restart-ms
    kChanged,      // settings applied (link taken down, set, brought up)
    kUnsupported,  // no CAN netlink attributes (vcan): nothing to set (debug-logged)
  };
  enum class RestartResult {
    kNotNeeded,    // restart_ms != 0 (the kernel restarts), unsupported, or not bus-off
    kRateLimited,  // bus-off, but the last attempt was less than kRestartIntervalMs ago
    kRestarted,
    kFailed,  // logged as a warning
  };

  // No I/O. `netlink` must outlive the controller; null = LibSocketCan().
  CanLink(std::string interface, const BusConfig& bus, CanNetlink* netlink = nullptr);

  // Start-up, when bus.bitrate != 0: reads the current bitrate and restart-ms and changes only
  // what differs (the link goes down for the change and comes back up; a link found stopped is
  // brought up). Throws std::system_error naming the interface and the step that failed
  // (absent interface, EPERM without CAP_NET_ADMIN, bitrate the controller cannot do, ...).
  ConfigureResult Configure();

  // State and error counters; nullopt when not reported (see support()).
  std::optional<CanLinkStatus> Poll();

  // After the last Poll() reported kBusOff and bus.restart_ms == 0: can_do_restart, at most once
  // every kRestartIntervalMs. `now_ms`: any monotonic clock in ms (the caller's).
  RestartResult MaybeRestart(std::int64_t now_ms);

  ControllerSupport support() const { return support_; }
  const std::string& interface() const { return interface_; }

 private:
  // Asks the kernel what the interface is unless it is known unsupported. Returns support_.
  ControllerSupport Detect();
  void ApplySettings(std::uint32_t current_bitrate, std::uint32_t current_restart_ms);

  std::string interface_;
  std::uint32_t bitrate_;     // bit/s; 0 = keep
  std::uint32_t restart_ms_;  // 0 = MaybeRestart() restarts after bus-off
  CanNetlink* netlink_;
  ControllerSupport support_ = ControllerSupport::kUnknown;
  bool error_counters_supported_ = true;  // false once the driver did not report them
  bool poll_failed_ = false;              // a failed Poll() was logged (log transitions only)
  CanControllerState last_state_ = CanControllerState::kUnknown;
  std::optional<std::int64_t> last_restart_attempt_ms_;
};

const char* ToString(CanLink::ConfigureResult result);
const char* ToString(CanLink::RestartResult result);

}  // namespace robot_edge::can
