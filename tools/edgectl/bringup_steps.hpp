// The steps the bring-up subcommands share (bringup.cpp, check_direction.cpp): naming a joint,
// asking robot-edged for a MaintenanceRequest, jogging a joint, ending in DAMP.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "tools/edgectl/session.hpp"

namespace robot_edge::edgectl {

using Clock = std::chrono::steady_clock;
// How often a jog is renewed: well inside the 200 ms trajectory timeout.
inline constexpr client::Millis kJogPeriod{50};
inline constexpr float kArrivedRad = 0.02f;

// Firmware index of the joint named `name`. Throws std::invalid_argument (exit 2) when unknown.
std::uint32_t JointIndex(const Context& ctx, const std::string& name);

// Sends `request` (its request_id set here) and waits for the answer; prints a refusal on err
// (and the answer as JSON with --json). nullopt when refused or unanswered.
std::optional<edge::MaintenanceResult> Ask(Context& ctx, edge::MaintenanceRequest request,
                                           client::Millis timeout);

edge::MaintenanceRequest JogRequest(std::uint32_t joint, float target, double speed);

// Jogs `joint` towards `target` until it is there (true), or `limit` passes, Ctrl-C, or a
// refusal (false). *position: the last measured position.
bool JogTo(Context& ctx, std::uint32_t joint, float target, double speed, Clock::duration limit,
           float* position);

// Ends a jog: DAMP (the jogged joint too). kExitOk, or kExitFailed when not confirmed.
int Damp(Context& ctx);

// The joint's position in the next telemetry frame.
std::optional<float> MeasuredPosition(Context& ctx, std::uint32_t joint);

}  // namespace robot_edge::edgectl
