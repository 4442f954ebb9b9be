// robot-edge-uplink's main loop (uplink.cpp), on the main thread: robot-edged's observer
// connection (and the `fleet` controller connection when commands are on), the spool, and what
// libmosquitto's network thread queued (mqtt.hpp). Returns when `stop` is set.
//   robot-edged -> events / diagnostics: spooled (spool.hpp), then published QoS 1 from the
//     spool, oldest first, at most kWindow in flight, each with the user property "seq" (the
//     spool's per-robot sequence); removed on PUBACK.
//   robot-edged -> telemetry: the newest, QoS 0, at telemetry_rate_hz while connected.
//   fleet commands -> robot-edged as the controller named by `controller`, timestamp_us and
//     sequence as sent, once through command_gate.hpp (retained, too old or stamped ahead:
//     refused, never sent, a command_result "dropped_by":"uplink" on `status`); robot-edged's
//     CommandResult goes to `status` with the latency since the sender's timestamp_us.
//   fleet `config` / `blackbox` messages published retained: refused and reported likewise.
//   fleet `blackbox` requests -> uploads on the Uploader's thread (blackbox_service.hpp); their
//     reports and the announcements of new black boxes go to `status`, QoS 1.
//   `status` reports at QoS 1 (command, config and upload results, announcements): spooled like
//     events (with "seq"); the retained online/offline document is published directly.
#pragma once

#include <atomic>

#include "uplink/options.hpp"

namespace robot_edge::uplink {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;

// One line on stderr (the journal under systemd).
void Log(const std::string& line);

int RunUplink(const UplinkOptions& options, const std::atomic<bool>& stop);

}  // namespace robot_edge::uplink
