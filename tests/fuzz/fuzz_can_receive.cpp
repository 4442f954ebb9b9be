// Fuzz target: what the buses deliver to the control loop — motor replies and IMU frames, garbled
// or not, on any bus with any id and length — through the real receive step: FakeTransport ->
// MotorScheduler (the reply and IMU decoders) -> ControlLoop::Tick (alerts, the state machine,
// the next commands). Each input is a run of at most kMaxTicks ticks; each tick gets the frames
// of one chunk.
//   frame: [bus][id hi][id lo][len (low 4 bits)][data × 8]; any bus byte but 0xFF picks
//   bus % buses.
//   end of chunk: [0xFF][n]: the clock jumps (n + 1) periods and the tick runs, so a few ticks
//   reach the reply, IMU and fall timeouts (50-100 ms) that would otherwise take 25-50 ticks.
// The cap keeps an input cheap: a tick (encoding 25 commands) costs ~12 us under ASan, and
// libFuzzer's 4 kB inputs held ~60 of them.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "can/fake_transport.hpp"
#include "daemon/control_loop.hpp"
#include "fuzz_support.hpp"

using namespace robot_edge;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The default robot, with trajectory storage cut to what a CAN input can use (none): building
  // 100 segments' buffers for every input was most of the time per input.
  static const config::Config config = [] {
    config::Config c = fuzz::DefaultConfig();
    c.control.max_segments = 2;
    return c;
  }();
  can::FakeTransport transport(fuzz::InterfacesOf(config), /*capacity=*/256);
  // Kept across inputs (its storage is large); nothing is left in it between inputs.
  static daemon::ControlChannels channels(config, /*command_slots=*/4, /*event_capacity=*/256);
  daemon::ControlLoop loop(config, transport, /*policy=*/nullptr, &channels);
  constexpr std::size_t kFrame = 12;
  constexpr int kMaxTicks = 8;
  constexpr std::int64_t kPeriodUs = 2000;
  std::int64_t now_us = 1'000'000;
  int ticks = 0;
  std::size_t i = 0;
  while (i < size && ticks < kMaxTicks) {
    if (data[i] == 0xFF || i + kFrame > size) {
      const std::int64_t periods = (data[i] == 0xFF && i + 1 < size) ? 1 + data[i + 1] : 1;
      loop.Tick(now_us += periods * kPeriodUs);
      ++ticks;
      transport.ClearSent();
      daemon::ControlEvent e;
      while (channels.events.Pop(&e)) {
      }
      i += data[i] == 0xFF ? 2 : kFrame;
      continue;
    }
    can_frame f{};
    f.can_id = ((static_cast<canid_t>(data[i + 1]) << 8) | data[i + 2]) & CAN_SFF_MASK;
    f.len = data[i + 3] & 0x0F;
    if (f.len > 8) f.len = 8;
    std::memcpy(f.data, data + i + 4, 8);
    transport.Inject(data[i] % static_cast<std::uint32_t>(config.buses.size()), f);
    i += kFrame;
  }
  loop.Tick(now_us += kPeriodUs);
  daemon::ControlEvent e;
  while (channels.events.Pop(&e)) {
  }
  return 0;
}
