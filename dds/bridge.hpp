// robot-edge-dds's two loops. Each runs on a thread of its own with a Client of its own (one
// thread per Client: client.hpp); they share only `stop`, which either sets when it ends.
//
//   command thread: waits on rt/lowcmd (at most 20 ms at a time); of the samples taken, follows
//     one writer's (writer_follower.hpp: the others are ignored and logged), maps the newest to
//     a JointCommand (mapping.hpp) stamped with the sender's clock and sends it on the
//     controlling connection; a new writer followed after the previous one went away gets a new
//     connection (`reconnect`), so that robot-edged judges its freshness as a new client's;
//     reads what robot-edged answers there without waiting (CommandResults: refusals are
//     counted and logged) so that nothing piles up; syncs the robot's clock at start and every
//     5 s (end_time_us is on the robot's clock).
//   state thread: reads the JointStates of the observer connection's state stream and
//     publishes each as a LowState_ on rt/lowstate.
// Both return an exit status (options.hpp): kExitOk once `stop` is set, kExitFailed when
// robot-edged or DDS failed (logged).
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>

#include "client/client.hpp"
#include "dds/dds_io.hpp"
#include "dds/mapping.hpp"

namespace robot_edge::dds {

// One line on stderr (the journal under systemd), written whole: safe from any thread.
void Log(const std::string& line);

struct CommandLoopConfig {
  std::size_t joints = 0;  // the robot's joint count: motors per LowCmd_
  CommandSettings settings;
  std::string controller;        // for the log
  client::Millis timeout{2000};  // a clock sync's answer
  // A new controlling connection to robot-edged, its Hello answered (throws ClientError).
  std::function<client::Client()> reconnect;
};

// `client`: the controlling connection, which the loop owns from now on.
int RunCommandLoop(client::Client client, LowCmdReader& reader, const CommandLoopConfig& config,
                   std::atomic<bool>& stop);

// `joints`: motors per LowState_. The stream was requested already (Client::StreamState).
int RunStateLoop(client::Client& client, LowStateWriter& writer, std::size_t joints,
                 std::atomic<bool>& stop);

}  // namespace robot_edge::dds
