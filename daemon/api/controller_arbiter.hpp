// Who may command the robot (seed 001's `controller` / ControllerEvent), as pure logic: the
// client ids, names and times are passed in.
//
//   - A client whose Hello named a controller ("cloud", "ble", ...) may command; "" is an
//     observer that may only send DAMP.
//   - The first commanding client acquires control ("acquired"); a client of a higher-priority
//     controller takes it over with its next command ("override").
//   - Control is released after idle_timeout_us without a command from the holder ("timeout")
//     or when the holder's connection closes ("disconnect").
//   - Commands from anyone else are refused, except DAMP, which every client may send
//     (emergency stop); DAMP acquires control only when nobody holds it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace robot_edge::daemon {

struct ControllerChange {
  std::string previous;  // "" when nobody held control
  std::string current;   // "" when released
  std::string reason;    // "acquired", "override", "timeout", "disconnect"
};

class ControllerArbiter {
 public:
  // `priority`: controller names, highest priority first.
  ControllerArbiter(std::vector<std::string> priority, std::int64_t idle_timeout_us);

  struct Decision {
    bool accepted = false;
    std::optional<ControllerChange> change;
  };

  // Whether OnCommand() would accept it, changing nothing (a command still to be validated).
  bool WouldAccept(std::uint64_t client, const std::string& name, bool is_damp) const;
  // A command from client `client` whose Hello named `name`.
  Decision OnCommand(std::uint64_t client, const std::string& name, bool is_damp,
                     std::int64_t now_us);
  std::optional<ControllerChange> OnDisconnect(std::uint64_t client);
  // Releases control after the idle timeout.
  std::optional<ControllerChange> OnTimer(std::int64_t now_us);

  bool IsController(const std::string& name) const { return Rank(name) >= 0; }
  const std::string& current() const { return holder_name_; }
  std::uint64_t holder() const { return holder_; }                   // 0 when nobody
  std::int64_t last_command_us() const { return last_command_us_; }  // the holder's last

 private:
  // 0 = highest priority; -1 = not a controller.
  int Rank(const std::string& name) const;
  ControllerChange Take(std::uint64_t client, const std::string& name, const char* reason,
                        std::int64_t now_us);

  std::vector<std::string> priority_;
  std::int64_t idle_timeout_us_;
  std::uint64_t holder_ = 0;
  std::string holder_name_;
  std::int64_t last_command_us_ = 0;
};

}  // namespace robot_edge::daemon
