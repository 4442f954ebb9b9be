// Fuzz target: what the buses deliver to the control loop — motor replies, IMU and BMS frames,
// garbled or not, on any bus with any id and length — through the real receive step:
// FakeTransport -> MotorScheduler (the reply, IMU and BMS decoders, the optional accelerometer's
// included: imu.accel_id and battery.source can are set) -> ControlLoop::Tick (alerts, the state
// machine, the next commands). Each input is a
// run of at most kMaxTicks ticks; each tick gets the frames of one chunk. The robot mixes the
// three motor families: L_Hip_Roll and R_Hip_Roll are Damiao motors, the knees Robstride ones
// behind a 2:1 reduction, L_Elbow is reversed with an offset.
//   frame: [bus][id hi][id lo][flags][data × 8]; any bus byte but 0xFF picks bus % buses.
//   flags: low 4 bits the length; bit 4 set: a 29-bit frame whose id is
//   (flags >> 5) << 24 | id hi << 16 | id lo << 8 (the low byte, a Robstride reply's host id, is
//   the master id 0); clear: an 11-bit id.
//   end of chunk: [0xFF][n]: the clock jumps (n + 1) periods and the tick runs, so a few ticks
//   reach the reply, IMU and fall timeouts (50-100 ms) that would otherwise take 25-50 ticks.
// The cap keeps an input cheap: a tick (encoding 25 commands) costs ~12 us under ASan, and
// libFuzzer's 4 kB inputs held ~60 of them.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "can/fake_transport.hpp"
#include "daemon/control/control_loop.hpp"
#include "fuzz_support.hpp"

using namespace robot_edge;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The default robot, with trajectory storage cut to what a CAN input can use (none): building
  // 100 segments' buffers for every input was most of the time per input.
  static const config::Config config = [] {
    config::Config c = fuzz::DefaultConfig();
    c.control.max_segments = 2;
    c.imu.accel_id = 0x103;  // as shipped; set here so the optional frame is fuzzed regardless
    c.battery.source = config::BatteryConfig::Source::kCan;  // as shipped, likewise
    c.battery.bus_name = c.imu.bus_name;
    c.battery.bus = c.imu.bus;
    c.battery.can_id = 0x180;
    config::MotorModel damiao = c.motors[0], robstride = c.motors[0];
    damiao.name = "damiao";
    damiao.family = config::MotorFamily::kDamiao;
    robstride.name = "robstride";
    robstride.family = config::MotorFamily::kRobstride;
    c.motors.push_back(damiao);
    c.motors.push_back(robstride);
    for (std::size_t j : {1, 7}) c.joints[j].motor = 1;  // L_Hip_Roll, R_Hip_Roll
    for (std::size_t j : {3, 9}) {                       // L_Knee, R_Knee
      c.joints[j].motor = 2;
      c.joints[j].gear_ratio = 0.5;
    }
    c.joints[15].direction = -1;  // L_Elbow
    c.joints[15].offset_rad = 0.3;
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
    const std::uint8_t flags = data[i + 3];
    if (flags & 0x10) {
      f.can_id = CAN_EFF_FLAG | (static_cast<canid_t>(flags >> 5) << 24) |
                 (static_cast<canid_t>(data[i + 1]) << 16) |
                 (static_cast<canid_t>(data[i + 2]) << 8);
    } else {
      f.can_id = ((static_cast<canid_t>(data[i + 1]) << 8) | data[i + 2]) & CAN_SFF_MASK;
    }
    f.len = flags & 0x0F;
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
