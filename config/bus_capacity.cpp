#include "config/bus_capacity.hpp"

#include <cmath>

namespace robot_edge::config {
namespace {

double BitsPerSecond(const Config& c, std::size_t bus) {
  const std::uint32_t bitrate = c.buses[bus].bitrate;
  return bitrate != 0 ? bitrate : 1e6;
}

}  // namespace

std::size_t MotorsOnBus(const Config& c, std::size_t bus) {
  std::size_t n = 0;
  for (const JointConfig& j : c.joints) n += j.bus == bus ? 1 : 0;
  return n;
}

double BusMotorLoad(const Config& c, std::size_t bus) {
  const double frames_per_s = 2.0 * static_cast<double>(MotorsOnBus(c, bus)) * c.control.rate_hz;
  return frames_per_s * kWorstCaseFrameBits / BitsPerSecond(c, bus);
}

std::size_t MaxMotorsPerBus(std::uint32_t bitrate, double rate_hz) {
  if (!(rate_hz > 0)) return 0;
  return static_cast<std::size_t>(std::floor(bitrate / (2.0 * rate_hz * kWorstCaseFrameBits)));
}

}  // namespace robot_edge::config
