// How many MIT motors a CAN bus carries at the control rate (pure; config validation's).
//
// Every control tick robot-edged sends each motor one command frame and reads one reply: two
// classical frames of 8 data bytes with a standard id, at most kWorstCaseFrameBits each on the
// wire (111 bits without stuffing, 135 with the worst-case stuffing). A bus's motors must fit in
// one tick: at 500 Hz and 1 Mbit/s, 7 motors (7 × 2 × 135 bits = 1.89 ms of a 2 ms tick).
#pragma once

#include <cstddef>
#include <cstdint>

#include "config/config.hpp"

namespace robot_edge::config {

inline constexpr double kWorstCaseFrameBits = 135.0;
// Above this share of the bus (and at most 1), Warnings() says there is little room left.
inline constexpr double kBusLoadWarning = 0.9;

// Joints (one motor each) whose bus is buses[bus].
std::size_t MotorsOnBus(const Config& c, std::size_t bus);
// The share of buses[bus]'s bit time its motors' exchange takes at control.rate_hz, at
// worst-case stuffing (an unset bitrate counts as 1 Mbit/s). Above 1 it cannot be carried.
double BusMotorLoad(const Config& c, std::size_t bus);
// The most motors one bus of `bitrate` bit/s carries at `rate_hz` ticks per second.
std::size_t MaxMotorsPerBus(std::uint32_t bitrate, double rate_hz);

}  // namespace robot_edge::config
