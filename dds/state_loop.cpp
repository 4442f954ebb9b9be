// The state thread (bridge.hpp): robot-edged's JointState stream -> rt/lowstate.
#include "dds/bridge.hpp"
#include "dds/options.hpp"

namespace robot_edge::dds {

namespace {

using namespace std::chrono_literals;

constexpr auto kWait = 100ms;                          // for a state, between looks at `stop`
constexpr std::int64_t kSilenceWarningUs = 2'000'000;  // no state this long: say so

struct StateCounts {
  std::uint64_t published = 0;
  std::uint64_t dropped = 0;  // Cyclone did not take them
};

void Publish(const edge::JointState& state, LowStateMapper& mapper, LowStateSample& sample,
             LowStateWriter& writer, StateCounts& counts) {
  mapper.Map(state, &sample);
  if (!writer.Write(sample.msg())) {
    ++counts.dropped;
    return;
  }
  if (counts.published++ == 0) Log("rt/lowstate: first state published");
}

}  // namespace

int RunStateLoop(client::Client& client, LowStateWriter& writer, std::size_t joints,
                 std::atomic<bool>& stop) {
  LowStateSample sample(joints);
  LowStateMapper mapper;
  StateCounts counts;
  std::int64_t last_state_us = client::MonotonicMicros();
  bool silent = false;
  int status = kExitFailed;
  try {
    while (!stop) {
      const auto message = client.Read(kWait);
      const std::int64_t now_us = client::MonotonicMicros();
      if (message && message->has_joint_state()) {
        Publish(message->joint_state(), mapper, sample, writer, counts);
        last_state_us = now_us;
        silent = false;
      } else if (!silent && now_us - last_state_us > kSilenceWarningUs) {
        Log("rt/lowstate: no joint state from robot-edged for 2 s");
        silent = true;
      }
    }
    status = kExitOk;
  } catch (const client::ClientError& e) {
    Log(std::string("robot-edged (state stream): ") + e.what());
  } catch (const std::exception& e) {
    Log(std::string("rt/lowstate: ") + e.what());
  }
  Log("rt/lowstate: " + std::to_string(counts.published) + " published, " +
      std::to_string(counts.dropped) + " dropped");
  stop = true;
  return status;
}

}  // namespace robot_edge::dds
