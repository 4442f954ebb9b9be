#include <cstdio>

#include "dds/bridge.hpp"

namespace robot_edge::dds {

void Log(const std::string& line) {
  const std::string text = "robot-edge-dds: " + line + "\n";
  std::fwrite(text.data(), 1, text.size(), stderr);  // one call: lines do not interleave
  std::fflush(stderr);
}

}  // namespace robot_edge::dds
