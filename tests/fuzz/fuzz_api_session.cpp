// Fuzz target: what a client's socket delivers, through the daemon's real path without the
// socket — MessageReader (framing, arena parse), the Hello (AccessPolicy), CommandIntake
// (controller arbitration, freshness, seed 000's validation and the joint stream's, the hand-off
// into the command pipe) — and on into the state machine, which the control thread would step.
#include <unistd.h>
#include <cstddef>
#include <cstdint>
#include <span>

#include "config/library_options.hpp"
#include "daemon/api/access.hpp"
#include "daemon/api/command_intake.hpp"
#include "daemon/api/message_reader.hpp"
#include "fuzz_support.hpp"
#include "statemachine/state_machine.hpp"

using namespace robot_edge;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const config::Config& config = fuzz::DefaultConfig();
  static const daemon::AccessPolicy access = daemon::AccessPolicy::Load(config, ::getuid());
  // Kept across inputs (their storage is large): the pipe is drained and the reader reset.
  static daemon::ControlChannels channels(config, /*command_slots=*/4, /*event_capacity=*/64);
  static daemon::MessageReader reader;
  reader.Reset();
  channels.urgent.store(0);
  // robot-edged's wall clock where the seeds' timestamps are (tests/fuzz/make_seeds.cpp), so that
  // their commands reach the validator and the state machine.
  std::int64_t now_us = 1'000'000;
  daemon::CommandIntake intake(
      config, &channels, [&now_us] { return 1'800'000'000'000'000 + 10 * (now_us - 1'000'000); });
  sm::StateMachine machine(config::MachineOptionsOf(config), config::BuildJointTable(config),
                           /*policy=*/nullptr);
  fuzz::HealthyRobot robot(config);

  daemon::Peer peer;
  peer.transport = (size > 0 && (data[0] & 1)) ? daemon::Transport::kTcp : daemon::Transport::kUnix;
  peer.has_credentials = true;
  peer.uid = ::getuid();
  peer.loopback = true;
  // The control thread's tick: the state machine steps and publishes its view for the door.
  const auto tick = [&] {
    machine.Step(now_us, robot.At(now_us));
    channels.snapshots.back().admission = machine.admission_view();
    channels.snapshots.Publish();
  };
  tick();
  bool welcomed = false;
  daemon::CommandIntake::Client client{1, "", true, ""};
  reader.Feed(std::span(data, size), [&](const edge::ClientMessage& m) {
    now_us += 2000;
    if (!welcomed) {
      if (!m.has_hello()) return false;
      if (access.Refusal(m.hello().controller(), peer, m.hello().token())) return false;
      client.controller = m.hello().controller();
      welcomed = true;
      return true;
    }
    if (m.has_time_sync()) return true;  // answered by the hub, nothing reaches the robot
    if (m.has_joint_command()) {
      intake.Submit(client, m.joint_command(), now_us);
    } else if (m.has_command()) {
      intake.Submit(client, m.command(), now_us);
    } else {
      return false;
    }
    while (daemon::CommandSlot* slot = channels.commands.Receive()) {
      machine.Submit(now_us, slot->command);
      channels.commands.Release(slot);
    }
    tick();
    return true;
  });
  intake.Disconnect(client.id, now_us);
  while (daemon::CommandSlot* slot = channels.commands.Receive()) channels.commands.Release(slot);
  return 0;
}
