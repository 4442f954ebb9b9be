// Fuzz target: the simulator's two inputs — lines on its control socket (ParseControlLine, then
// SimRobot::Execute) and the command frames its motors receive (SimRobot::OnFrames: MIT commands,
// special frames, garbage). The input's lines go to the control socket until an empty line; the
// rest is frames: [bus][id][len][data × 8].
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "fuzz_support.hpp"
#include "sim/control_protocol.hpp"
#include "sim/sim_robot.hpp"

using namespace robot_edge;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const config::Config& config = fuzz::DefaultConfig();
  sim::SimRobot robot(config, 0);
  std::int64_t now_us = 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (line.empty()) break;
    const sim::ParseResult parsed = sim::ParseControlLine(line, config);
    if (parsed.command) robot.Execute(*parsed.command, now_us += 1000);
  }
  std::vector<can_frame> replies;
  replies.reserve(64);
  constexpr std::size_t kFrame = 11;
  for (std::size_t i = std::min(at, size); i + kFrame <= size; i += kFrame) {
    can_frame f{};
    f.can_id = data[i + 1];
    f.len = data[i + 2] & 0x0F;
    if (f.len > 8) f.len = 8;
    std::memcpy(f.data, data + i + 3, 8);
    replies.clear();
    robot.OnFrames(data[i] % config.buses.size(), std::span(&f, 1), now_us += 2000, &replies);
  }
  return 0;
}
