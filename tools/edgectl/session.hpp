// robot-edgectl's subcommands: each runs on a connected, welcomed client and returns an exit
// status (options.hpp). main() provides the process's streams and Ctrl-C; tests provide theirs.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>

#include "client/client.hpp"
#include "tools/edgectl/options.hpp"

namespace robot_edge::edgectl {

struct Context {
  client::Client* client = nullptr;
  edge::Welcome welcome;
  Options options;
  std::ostream* out = nullptr;                               // results: text or JSON lines
  std::ostream* err = nullptr;                               // errors, refusals, warnings
  std::function<bool()> interrupted = [] { return false; };  // Ctrl-C / SIGTERM seen
  std::function<std::uint64_t()> wall_clock_us;              // µs since the Unix epoch

  client::Millis timeout() const;
  std::vector<std::string> joint_names() const;
};

// Connects as `options` say, says Hello, runs the subcommand. Every failure is printed to `err`
// and mapped to an exit status: cannot connect 3, refused / timeout / connection lost 1, a bad
// argument only the daemon's answer reveals (an unknown joint) 2.
int RunConnected(const Options& options, std::ostream& out, std::ostream& err,
                 std::function<bool()> interrupted);

// The subcommands (observe.cpp, command.cpp, stream.cpp).
int RunStatus(Context& ctx);
int RunWatch(Context& ctx);
int RunEvents(Context& ctx);
int RunDiag(Context& ctx);
int RunMode(Context& ctx, edge::Mode mode);
int RunWalk(Context& ctx);
int RunMove(Context& ctx);
int RunHold(Context& ctx);
int RunSine(Context& ctx);  // sine.cpp
int RunScan(Context& ctx);  // bringup.cpp
int RunJog(Context& ctx);
int RunCheckDirection(Context& ctx);
int RunCalibrate(Context& ctx);
int RunZero(Context& ctx);
int RunClearFault(Context& ctx);
int RunReleaseStop(Context& ctx);
int RunRecord(Context& ctx);  // record.cpp
int RunBlackBox(Context& ctx);

// The measured pose from the next telemetry frame, one position per joint. Throws ClientError.
std::vector<float> MeasuredPose(Context& ctx);

// Shared by the commanding subcommands: waits for the result of command `sequence` and
// reports it ("accepted ..." on out, "refused: REASON" on err). Returns the exit status.
int ReportResult(Context& ctx, std::uint32_t sequence, const char* what);

}  // namespace robot_edge::edgectl
