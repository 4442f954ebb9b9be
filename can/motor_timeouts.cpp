#include "can/motor_timeouts.hpp"

#include <array>
#include <chrono>
#include <thread>

#include "can/damiao_codec.hpp"
#include "can/motor_protocol.hpp"

namespace robot_edge::can {
namespace {

struct Told {
  std::size_t joint;
  std::uint32_t bus;
  std::uint32_t motor_id;
  std::uint32_t master_id;
  MotorProtocol protocol;
  std::uint32_t wanted_ms;
};

std::vector<Told> MotorsToTell(const Wiring& wiring) {
  std::vector<Told> told;
  for (std::size_t j = 0; j < wiring.joints.size(); ++j) {
    const MotorModel& model = wiring.motor_of(j);
    if (!HasCanTimeoutSetting(model.family) || model.can_timeout_ms == 0) continue;
    const JointMotor& joint = wiring.joints[j];
    told.push_back({j, static_cast<std::uint32_t>(joint.bus), joint.can_id,
                    wiring.buses[joint.bus].master_id, ProtocolOf(model), model.can_timeout_ms});
  }
  return told;
}

std::int64_t NowUs() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Takes every waiting frame; notes the timeout replies. True once every motor answered its read
// (the write's own answer, where the family sends one, comes first and is overwritten).
bool CollectReplies(Transport& transport, const std::vector<Told>& told,
                    std::vector<CanTimeoutResult>* results, std::vector<bool>* read_answered) {
  std::array<BusFrame, 64> rx;
  std::size_t n;
  do {
    n = transport.Receive(rx);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t m = 0; m < told.size(); ++m) {
        std::uint32_t id = 0, ms = 0;
        if (rx[i].bus != told[m].bus ||
            !DecodeCanTimeoutReply(told[m].protocol.family, told[m].master_id, rx[i].frame, &id,
                                   &ms) ||
            id != told[m].motor_id) {
          continue;
        }
        // A damiao write is echoed with its value before the read's reply; both carry it.
        (*results)[m].answered = true;
        (*results)[m].read_ms = ms;
        const bool is_read_reply =
            told[m].protocol.family == MotorFamily::kRobstride ||
            rx[i].frame.data[2] == static_cast<std::uint8_t>(damiao::RegisterOp::kRead);
        if (is_read_reply) (*read_answered)[m] = true;
      }
    }
  } while (n == rx.size());
  for (bool answered : *read_answered) {
    if (!answered) return false;
  }
  return true;
}

}  // namespace

std::vector<CanTimeoutResult> SetMotorCanTimeouts(const Wiring& wiring, Transport& transport,
                                                  std::int64_t wait_us) {
  const std::vector<Told> told = MotorsToTell(wiring);
  std::vector<CanTimeoutResult> results;
  if (told.empty()) return results;
  std::vector<BusFrame> writes, reads;
  for (const Told& t : told) {
    results.push_back({t.joint, t.wanted_ms, false, 0});
    BusFrame w{t.bus, {}}, r{t.bus, {}};
    EncodeCanTimeoutWrite(t.protocol, t.motor_id, t.master_id, t.wanted_ms, &w.frame);
    EncodeCanTimeoutRead(t.protocol, t.motor_id, t.master_id, &r.frame);
    writes.push_back(w);
    reads.push_back(r);
  }
  transport.Send(writes);  // each bus keeps its order: a motor sees its write before its read
  transport.Send(reads);
  std::vector<bool> read_answered(told.size(), false);
  const std::int64_t deadline = NowUs() + wait_us;
  while (!CollectReplies(transport, told, &results, &read_answered) && NowUs() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::array<BusFrame, 64> rx;  // the rest (late feedback of a robstride write) goes nowhere
  while (transport.Receive(rx) == rx.size()) {
  }
  return results;
}

std::string Describe(const Wiring& wiring, const CanTimeoutResult& r) {
  const JointMotor& joint = wiring.joints[r.joint];
  std::string s = joint.joint + " (" + ToString(wiring.motor_of(r.joint).family) + " id " +
                  std::to_string(joint.can_id) + " on " + wiring.buses[joint.bus].name +
                  "): CAN-loss timeout " + std::to_string(r.wanted_ms) + " ms ";
  if (r.confirmed()) return s + "set and read back";
  if (!r.answered) return s + "NOT confirmed: the motor did not answer";
  return s + "NOT confirmed: the motor reports " + std::to_string(r.read_ms) + " ms";
}

}  // namespace robot_edge::can
