// The bring-up tools' requests (edge_api.proto MaintenanceRequest) on the API thread: who may run
// them, when, and their answers.
//
//   - Only a client whose controller is one of api.maintenance_controllers, only while the robot is
//   in
//     DAMP (every refusal says why).
//   - scan: the control thread probes the ids no joint has (ControlChannels::scan_request); the
//     answer comes when its ScanReport does (Poll()), with every joint's latest reply.
//   - jog: checked here, then queued through CommandIntake like any motion (it needs control).
//   - calibrate: computed here from the latest snapshot, written to the config's calibration
//     file (atomically: a temporary file renamed over it). It takes effect at the next start.
//   - zero: with confirm only; the control thread sends the motor's set-zero request.
//   - release-stop: lifts a latched stop, for a client on the Unix socket only (someone on the
//     robot); queued to the control thread, the robot stays in DAMP.
//   - clear-fault: damiao and robstride motors (AK has none: refused); the control thread sends
//     the motor's clear-fault request, then enable.
//
// Threads: the API thread's. Talks to the control thread only through ControlChannels.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/config.hpp"
#include "config/joint_table.hpp"
#include "daemon/api/command_intake.hpp"
#include "daemon/channels/control_channels.hpp"
#include "edge_api.pb.h"

namespace robot_edge::daemon {

class MaintenanceDesk {
 public:
  static constexpr std::uint32_t kDefaultScanMaxId = 32;
  static constexpr std::int64_t kScanTimeoutUs = 5'000'000;

  // All outlive the desk.
  MaintenanceDesk(const config::Config& config, ControlChannels* channels, CommandIntake* intake);

  struct Answer {
    std::optional<edge::MaintenanceResult> result;  // none: it comes from Poll()
    std::optional<ControllerChange> change;         // a jog took control
  };
  Answer Handle(const CommandIntake::Client& client, const edge::MaintenanceRequest& request,
                std::int64_t now_us);

  // A pending scan that finished or timed out: its client and answer.
  std::optional<std::pair<std::uint64_t, edge::MaintenanceResult>> Poll(std::int64_t now_us);
  void Disconnect(std::uint64_t client);

 private:
  struct PendingScan {
    std::uint64_t client = 0;
    std::uint32_t request_id = 0;
    std::uint32_t sequence = 0;
    std::int64_t deadline_us = 0;
  };

  std::optional<std::string> Refusal(const CommandIntake::Client& client,
                                     const ControlSnapshot& snapshot) const;
  Answer Scan(const CommandIntake::Client& client, const edge::MaintenanceRequest& request,
              std::int64_t now_us);
  Answer Jog(const CommandIntake::Client& client, const edge::MaintenanceRequest& request,
             const ControlSnapshot& snapshot, std::int64_t now_us);
  edge::MaintenanceResult Calibrate(const edge::MaintenanceRequest& request,
                                    const ControlSnapshot& snapshot) const;
  edge::MaintenanceResult Zero(const edge::MaintenanceRequest& request) const;
  edge::MaintenanceResult ClearFault(const edge::MaintenanceRequest& request) const;
  // A latched stop lifted by someone on the robot (client.local); the robot stays in DAMP.
  edge::MaintenanceResult ReleaseStop(const CommandIntake::Client& client,
                                      const edge::MaintenanceRequest& request,
                                      const ControlSnapshot& s, std::int64_t now_us);
  edge::MaintenanceResult ScanResult(const PendingScan& pending, const ScanReport& report);

  const config::Config& config_;
  const config::JointTable joints_;
  ControlChannels* channels_;
  CommandIntake* intake_;
  std::optional<PendingScan> scan_;
  std::uint32_t scan_sequence_ = 0;
};

}  // namespace robot_edge::daemon
