// MOVE/POLICY's sm::Policy: the network runs on an inference thread of its own at
// policy.rate_hz, on absolute deadlines, and never delays the control loop.
//
//   control thread (every tick in MOVE/POLICY)        inference thread (every 1/rate_hz)
//   Targets(): publish the latest inputs  ──TripleBuffer──>  InferOnce(): take the latest inputs,
//              return the latest targets  <──TripleBuffer──    observation -> network -> targets
//
// Targets() says kWaiting (the state machine holds the stand pose) until the first inference on
// inputs published since the last Reset(); between inferences the last targets hold. It reports
// a fault — which ends MOVE/POLICY at the control thread's next tick — when:
//   kNonFinite  the latest inference output NaN or infinity for some joint (its targets are not
//               used), or left NaN or infinity in the network's recurrent state (detail
//               sm::kNonFiniteState; LastFailure() names the state output);
//   kFailed     the latest inference threw (the exception is caught on the inference thread,
//               which goes on; LastFailure() says what);
//   kStale      the latest targets, or the wait for the first ones since Reset(), are older
//               than policy.stall_timeout_ms (two policy periods by default): the inference
//               thread stalled.
// Reset() (entering MOVE/POLICY) starts a new generation: the next inference clears the
// history, the last action and the network's recurrent state (zeros), and results of an older
// generation are never used. Between inferences of one generation the recurrent state carries
// over (InferenceRuntime keeps it).
// The inference thread runs only when there is something new: outside MOVE/POLICY nothing is
// published, and it sleeps.
//
// Threads: Reset() and Targets() belong to the control thread (they never wait, allocate, log
// or throw); InferOnce() to the inference thread (or a test driving it by hand, without
// Start()); TakeWindow() to the API thread; Start() / Stop() to the owner.
#pragma once

#include <array>
#include <climits>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "handoff/triple_buffer.hpp"
#include "policy/action.hpp"
#include "policy/inference_stats.hpp"
#include "policy/observation.hpp"
#include "policy/runtime.hpp"
#include "policy/setup.hpp"
#include "statemachine/policy.hpp"

namespace robot_edge::policy {

class PolicyRunner final : public sm::Policy, public InferenceStats {
 public:
  // `runtime`'s sizes match the observation and the policy joints (LoadPolicyModel() checks
  // them).
  // `start_us`: the daemon's start on the control loop's clock (the phase term's since: start);
  // kStartNow: the steady clock now (the daemon builds its runner at start-up).
  static constexpr std::int64_t kStartNow = INT64_MIN;
  PolicyRunner(const PolicySetup& setup, std::unique_ptr<InferenceRuntime> runtime,
               std::int64_t start_us = kStartNow);
  ~PolicyRunner() override;

  // Starts / stops (and joins) the inference thread. Stop() is idempotent.
  void Start();
  void Stop();

  // sm::Policy: control thread.
  void Reset(std::int64_t now_us) override;
  sm::PolicyResult Targets(std::int64_t now_us, const sm::Velocity& command,
                           const sm::Inputs& inputs, std::span<sm::JointTarget> out) override;

  // One inference on the latest published inputs: the inference thread's work, public so that
  // tests can drive it by hand. Returns false when nothing was published since the last one.
  // Never throws: a failed evaluation is published as a fault.
  bool InferOnce();

  // InferenceStats: API thread.
  InferenceWindow TakeWindow() override { return counters_.TakeWindow(); }
  std::string LastFailure() const override;

  const Observation& observation() const { return observation_; }
  // "45 -> 12 …; observation base_ang_vel 3 + … = 45; 12 joints at 50 Hz".
  std::string Describe() const;

 private:
  struct Published {               // control -> inference
    std::uint64_t sequence = 0;    // 1, 2, … per Targets() call
    std::uint32_t generation = 0;  // Reset() count
    std::int64_t time_us = 0;
    std::int64_t reset_us = 0;  // the generation's Reset()
    std::array<float, 3> command{};
    std::array<float, 3> gyro_rad_s{};
    std::array<float, 4> quat_wxyz{1, 0, 0, 0};
    std::vector<float> joint_pos_rad;  // every joint, firmware order
    std::vector<float> joint_vel_rad_s;
  };
  struct Result {  // inference -> control
    bool valid = false;
    std::uint32_t generation = 0;
    std::int64_t observed_us = 0;          // time_us of the inputs it was computed from
    bool failed = false;                   // the evaluation threw
    int nonfinite_joint = -1;              // first joint (firmware) with a non-finite action
    bool nonfinite_state = false;          // the recurrent state went NaN or infinite
    std::vector<sm::JointTarget> targets;  // every joint, firmware order
  };
  void ThreadBody();
  // The network on `in`; throws what the runtime throws.
  void Evaluate(const Published& in, Result* r);
  void PublishFailure(const Published& in, const char* what);

  double rate_hz_;  // policy.rate_hz
  std::unique_ptr<InferenceRuntime> runtime_;
  Observation observation_;
  ActionMap action_;
  std::int64_t period_us_;
  std::int64_t stall_us_;  // policy.stall_timeout_ms
  std::int64_t start_us_;  // the daemon's start
  TripleBuffer<Published> inputs_;
  TripleBuffer<Result> results_;
  InferenceCounters counters_;

  // CONTROL_ thread's.
  std::uint32_t generation_ = 0;
  std::uint64_t sequence_ = 0;
  std::int64_t reset_us_ = 0;

  // INFERENCE_ thread's.
  std::uint64_t last_sequence_ = 0;
  bool started_ = false;
  std::uint32_t last_generation_ = 0;
  std::vector<float> obs_, raw_, last_action_;

  // Written by the inference thread when an evaluation throws; read by the API thread.
  mutable std::mutex failure_mutex_;
  std::string last_failure_;

  // Owner <-> inference thread: only to wake it for Stop().
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace robot_edge::policy
