// Where MOVE/POLICY's targets come from. The state machine only calls this interface; the
// network itself (issue "MOVE/POLICY") runs elsewhere and hands its results over.
#pragma once

#include <cstdint>
#include <span>

#include "statemachine/io.hpp"

namespace robot_edge::sm {

enum class PolicyStatus : std::uint8_t { kTargets, kWaiting, kFault };

struct PolicyResult {
  PolicyStatus status = PolicyStatus::kWaiting;
  PolicyFault fault = PolicyFault::kStale;  // kFault: which
  std::uint32_t detail = 0;                 // kFault: per PolicyFault (io.hpp)
};

class Policy {
 public:
  virtual ~Policy() = default;

  // Called when MOVE/POLICY is entered (history starts over).
  virtual void Reset(std::int64_t now_us) = 0;

  // Called every control tick in MOVE/POLICY, on the control thread: must not block, allocate,
  // log or throw. kTargets: one target per joint was written into `out` (each is then clamped
  // like any other; a non-finite value never reaches a motor). kWaiting: no output yet since
  // Reset() (the state machine holds the stand pose). Any fault ends MOVE/POLICY.
  virtual PolicyResult Targets(std::int64_t now_us, const Velocity& command, const Inputs& inputs,
                               std::span<JointTarget> out) = 0;
};

}  // namespace robot_edge::sm
