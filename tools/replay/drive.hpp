// robot-edge-replay drive: a recording's commands sent again to a running robot-edged (the
// simulator, to reproduce a run), each at its recorded time after the first, each by a
// connection of its own client as the controller that sent it.
#pragma once

#include <atomic>
#include <cstdint>
#include <ostream>
#include <string>

#include "client/client.hpp"
#include "tools/replay/recording.hpp"

namespace robot_edge::replay {

struct DriveOptions {
  std::string socket;    // robot-edged's Unix socket, or
  std::string tcp_host;  // its TCP listener (when not empty)
  std::uint16_t tcp_port = 0;
  std::string token;  // Hello.token (over TCP)
  // Drive a robot-edged whose buses are real CAN (Welcome.simulated false): old commands,
  // stamped fresh, would move a real robot. Off: such a daemon is refused.
  bool real_robot = false;
};

struct DriveReport {
  std::size_t commands = 0;            // sent
  std::size_t clients = 0;             // connections opened (one per recorded client)
  double seconds = 0;                  // from the first command to the last
  double max_late_ms = 0;              // the latest a command was sent after its recorded time
  std::size_t accepted = 0;            // answered accepted by the daemon now
  std::size_t recorded_accepted = 0;   // of those sent, accepted in the recording
  std::size_t answered_otherwise = 0;  // accepted now and refused then, or the other way
  std::size_t unanswered = 0;          // no answer within 2 s of the last command
};

// Sends every command of the recording's /commands channel (CommandRecords that carry one), in
// file order, paced by their arrival times. Each is stamped as sent now minus the delay it
// arrived with in the recording (received_us − timestamp_us), so that the daemon's freshness
// rules see them as the original did even when this program runs late; sequences are kept. Each
// connection asks for CommandResults and stays until every command is answered (at most 2 s after
// the last): the answers are counted against the recording's. Throws
// client::ClientError when robot-edged cannot be reached and std::runtime_error when the file has
// no /commands channel, or when robot-edged drives real CAN buses and options.real_robot is off
// (nothing is sent then).
DriveReport Drive(const Recording& recording, const DriveOptions& options, std::ostream& out,
                  const std::atomic<bool>& stop);

}  // namespace robot_edge::replay
