// Where MOVE/POLICY's targets come from. The state machine only calls this interface; the
// network itself (issue "MOVE/POLICY") runs elsewhere and hands its results over.
#pragma once

#include <cstdint>
#include <span>

#include "statemachine/io.hpp"

namespace robot_edge::sm {

class Policy {
 public:
  virtual ~Policy() = default;

  // Called when MOVE/POLICY is entered (history starts over).
  virtual void Reset(std::int64_t now_us) = 0;

  // Called every control tick in MOVE/POLICY, on the control thread: must not block, allocate,
  // log or throw. Writes one target per joint into `out` and returns true, or returns false while
  // it has no output yet (the state machine then holds the stand pose). Non-finite values are
  // replaced by the state machine (position: stand pose, gains: defaults, others: 0) and every
  // target is clamped like any other.
  virtual bool Targets(std::int64_t now_us, const Velocity& command, const Inputs& inputs,
                       std::span<JointTarget> out) = 0;
};

}  // namespace robot_edge::sm
