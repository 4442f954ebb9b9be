// The fault matrix of the safety contract: each fault injected, many times, into robot-edged
// driving robot-edge-sim on vcan, and the time from the fault to the safe state on the wire,
// measured from the frames on the buses — the rig's BusMonitor, an independent capture, not the
// daemon's own log — with the outcome checked (nothing re-engaged, nothing leaked, the right
// frames in the right order). tests/e2e runs a few trials of each and fails on a broken bound;
// bench/ runs many and writes the table.
//
// The clock starts when the test injects the fault (sends the signal, the simulator command, the
// last packet of a stream) and stops when the last motor concerned has been sent its safe frame
// (read by the monitor thread: an upper bound, by the monitor's own scheduling delay).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "robot_rig.hpp"

namespace robot_edge::test {

enum class Fault {
  kStreamStops,        // a trajectory stream stops
  kClientDisconnects,  // the streaming client closes its connection mid-trajectory
  kStaleBurst,         // a 3 s network stall, then the stream's packets in a burst
  kReplayedPackets,    // duplicated and reordered packets after the stream's last one
  kPolicyNonFinite,    // the policy outputs infinity
  kInferenceStall,     // the inference thread stops (ptrace)
  kImuSilent,          // the IMU stops sending
  kMotorSilent,        // one motor stops replying (L_Knee)
  kBusDown,            // ip link set vcan2 down (then up)
  kBusOff,             // a bus-off error frame on vcan1
  kOvertemp,           // L_Knee at 85 °C
  kFall,               // the IMU tilts 75°
  kControlStall,       // the control thread stops (ptrace on its tid), the process runs on
  // From here on the faults end the daemon (EndsTheDaemon).
  kSigterm,       // systemctl stop
  kSigkill,       // SIGKILL, then the unit's ExecStopPost as systemd runs it
  kSigabrt,       // the systemd watchdog's kill, std::terminate
  kSigsegv,       // a crash
  kSigint,        // Ctrl-C in a terminal
  kSighup,        // the terminal goes away
  kSigbus,        // a crash: a bad mapped access
  kSigfpe,        // a crash: an integer division by zero
  kSigill,        // a crash: an illegal instruction
  kControlCrash,  // SIGSEGV on the control thread itself (tgkill), perhaps mid-tick
  // An exception escaping a thread (a test build's injected throw, injected_throw.hpp).
  kControlThrows,   // mid-tick: the control thread's catch DAMPs and stops the daemon
  kApiThrows,       // the API thread's catch stops the control thread (DAMP) and the daemon
  kRecorderThrows,  // std::terminate: SIGABRT's handler DAMPs
};

struct FaultInfo {
  Fault fault;
  const char* name;
  const char* from;        // the state the fault hits
  const char* safe_state;  // what "safe" is on the wire
  const char* decided_by;  // what sets the bound
  const char* recovery;    // what it takes to go on
};

// A fault that ends the daemon (a signal): each trial starts a robot of its own.
// They are the last of the enum, from kSigterm on.
constexpr bool EndsTheDaemon(Fault fault) { return fault >= Fault::kSigterm; }
// A fault that needs robot-edged built with ROBOT_EDGE_FAULT_INJECTION (not a Release build).
constexpr bool NeedsFaultInjection(Fault fault) { return fault >= Fault::kControlThrows; }
#ifdef ROBOT_EDGE_FAULT_INJECTION
inline constexpr bool kFaultInjectionBuilt = true;
#else
inline constexpr bool kFaultInjectionBuilt = false;
#endif

// Every fault, in the table's order.
const std::vector<FaultInfo>& Faults();
const FaultInfo& InfoOf(Fault fault);

// What starting `robot-edged --emergency-damp` may take (10 ms measured on the 2-core development
// machine; user-mode-linux needs ~300 ms more, which its tests add to their margin).
inline constexpr double kProcessStartMs = 50;

// The bound (ms) on the time from `fault` to the safe state on the wire for a robot configured
// with `config`: the configured time that decides it plus `margin_ms` (the capture and the
// scheduling: a few ms on the robot's kernel, hundreds under user-mode-linux).
double BoundMs(Fault fault, const config::Config& config, double margin_ms);

struct FaultRun {
  Fault fault;
  std::vector<double> latency_ms;     // one per trial that reached the safe state
  std::vector<std::string> problems;  // what went wrong in the other trials, or in any outcome
  double bound_ms = 0;                // BoundMs() for the robots it ran on
};

// Runs `trials` trials of `fault` on robots with the emulator's slack (tests/vcan/run under
// user-mode-linux; RobotOptions), starting robots as needed (a signal kills the daemon: one
// robot per trial). `progress`, when set, gets one line per trial.
FaultRun RunFault(Fault fault, int trials, double margin_ms,
                  const std::function<void(const std::string&)>& progress = {});

// Where the robot ends when `fault` hits it standing on its own feet: one trial on the MuJoCo
// humanoid (lowered from the gantry and released first), read from the simulator's ground truth
// 3 s after the safe state (a push stands in for the IMU's tilt). DAMP is limp: a standing robot
// it reaches sinks and tips over; policy.on_fault: stand keeps it up.
struct Ending {
  std::optional<Posture> posture;  // nullopt when the trial failed (see problem)
  double torso_height_m = 0;
  double tilt_deg = 0;
  std::string problem;
};
Ending OnItsFeet(Fault fault);

}  // namespace robot_edge::test
