// A latched stop kept on disk, so that it outlives robot-edged: a crash, SIGKILL, a restart to
// apply a configuration, a boot (docs/safety.md, "A stop outlives the process"). The file exists
// exactly while a stop is latched; a release removes it.
//
// The file (text; replaced atomically and fsync'ed, atomic_file.hpp; mode 0640):
//   robot-edge stop-latch 1
//   stopped_by 'observer' (client 7, uid 1000 pid 42)
//   holder cloud                  the controller that held control ("" after the key: none)
//   end
// Anything at that name but exactly that in a regular file (empty, truncated, another version, a
// symlink, dangling or not, a directory) still means a stop: it reads as latched by "an
// unreadable stop record", with no holder, so that only a local release (robot-edgectl
// release-stop) lifts it. Never half-trusted towards motion. Only a missing name is no stop.
//
// Where: $STATE_DIRECTORY/stop-latch under the unit (StateDirectory=robot-edge: persistent, so a
// boot keeps it); run by hand without it, beside the DAMP plan in the runtime directory.
//
// Threads: the API thread and start-up (it allocates and waits on the disk); never the control
// thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "statemachine/io.hpp"

namespace robot_edge::daemon {

// `state_directory` ($STATE_DIRECTORY, the first when it lists several) when set and not empty,
// else `damp_plan_path`'s directory; "" when both are empty (no file: a stop then lasts only
// the process).
std::string StopLatchPath(const char* state_directory, const std::string& damp_plan_path);

std::string EncodeStopLatch(const sm::StopLatch& latch);
// The latch a file's text means: always latched (see above); `*problem` says why when the text
// is not a valid record.
sm::StopLatch DecodeStopLatch(std::string_view text, std::string* problem);

// Reads `path`: nullopt when there is no file (no stop); else the latch it holds (DecodeStopLatch)
// and, in *problem, why it could not be read as written. An unreadable existing file is latched.
std::optional<sm::StopLatch> ReadStopLatch(const std::string& path, std::string* problem);

// Why a stop could not be kept in `path`'s directory though it exists (a read-only mount, no
// write permission): "" when it can, or when the directory does not exist (run by hand, without
// the unit's directories: a stop then lasts only the process). robot-edged starts latched
// when it is not "": it cannot know that no stop was in force (fail closed).
std::string StopLatchDirectoryProblem(const std::string& path);

// Keeps the file in step with the state machine's latch: writes it when a stop latched (or its
// record changed), removes it when released; a failure is tried again at the next Observe().
class StopLatchKeeper {
 public:
  // `path` "" keeps nothing. `initial`: what is on disk now (ReadStopLatch at start).
  StopLatchKeeper(std::string path, const sm::StopLatch& initial);

  struct Change {
    enum class Kind { kNone, kWritten, kRemoved, kFailed } kind = Kind::kNone;
    std::string error;  // kFailed: why (naming the file)
  };
  Change Observe(const sm::StopLatch& latch);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  sm::StopLatch kept_;
};

}  // namespace robot_edge::daemon
