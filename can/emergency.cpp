#include "can/emergency.hpp"

#include <net/if.h>
#include <sys/socket.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <iterator>

#include "can/joint_transform.hpp"
#include "can/motor_protocol.hpp"

namespace robot_edge::can {
namespace {

RawFrame Frame(int ifindex, std::size_t bus, const can_frame& frame) {
  RawFrame f;
  f.address.can_family = AF_CAN;
  f.address.can_ifindex = ifindex;
  f.frame = frame;
  f.bus = bus;
  return f;
}

}  // namespace

std::vector<BusDamp> DampPlanOf(const Wiring& wiring) {
  std::vector<BusDamp> plan(wiring.buses.size());
  for (std::size_t b = 0; b < plan.size(); ++b) plan[b].interface = wiring.buses[b].interface;
  for (std::size_t j = 0; j < wiring.joints.size(); ++j) {
    const JointMotor& joint = wiring.joints[j];
    BusDamp& bus = plan[joint.bus];
    const MotorProtocol protocol = ProtocolOf(wiring.motor_of(j));
    const std::uint32_t master = wiring.buses[joint.bus].master_id;
    MitCommand limp;  // joint space: kp 0, the joint's damp_kd
    limp.kd = joint.damp_kd;
    bus.damp.push_back(
        EncodeCommandFrame(protocol, joint.can_id, master, ToMotor(joint.transform, limp)));
    can_frame disable;
    if (EncodeRequestFrame(protocol, joint.can_id, master, MotorRequest::kDisable, &disable)) {
      bus.exit.push_back(disable);
    }
  }
  return plan;
}

std::vector<RawFrame> ResolvePlan(const std::vector<BusDamp>& plan,
                                  std::vector<std::string>* missing) {
  std::vector<int> ifindex;
  for (const BusDamp& bus : plan) {
    ifindex.push_back(static_cast<int>(::if_nametoindex(bus.interface.c_str())));
    if (ifindex.back() == 0 && missing != nullptr) missing->push_back(bus.interface);
  }
  std::vector<RawFrame> frames;
  for (bool damp : {true, false}) {
    for (std::size_t b = 0; b < plan.size(); ++b) {
      if (ifindex[b] == 0) continue;
      for (const can_frame& f : damp ? plan[b].damp : plan[b].exit) {
        frames.push_back(Frame(ifindex[b], b, f));
      }
    }
  }
  return frames;
}

std::vector<RawFrame> EmergencyFrames(const Wiring& wiring, std::vector<std::string>* missing) {
  return ResolvePlan(DampPlanOf(wiring), missing);
}

namespace {

constexpr std::size_t kChunk = 2 * kMaxJoints;  // frames tracked at once (the stack)
enum FrameState : std::uint8_t { kPending = 0, kSent, kGivenUp };

bool Contains(const int* values, std::size_t n, int value) {
  for (std::size_t i = 0; i < n; ++i) {
    if (values[i] == value) return true;
  }
  return false;
}

// One attempt at every pending frame whose interface has refused nothing yet in this pass.
// Returns whether frames are still pending.
bool Pass(RawSender send, void* context, const RawFrame* frames, std::size_t count,
          FrameState* state) {
  int blocked[kMaxBuses * 4];  // interfaces whose queue is full in this pass
  std::size_t blocked_count = 0;
  bool pending = false;
  for (std::size_t i = 0; i < count; ++i) {
    if (state[i] != kPending) continue;
    const int ifindex = frames[i].address.can_ifindex;
    if (Contains(blocked, blocked_count, ifindex)) {
      pending = true;
      continue;
    }
    if (send(context, frames[i])) {
      state[i] = kSent;
    } else if (errno == ENOBUFS || errno == EAGAIN) {
      pending = true;
      if (blocked_count < std::size(blocked)) blocked[blocked_count++] = ifindex;
    } else {
      state[i] = kGivenUp;
    }
  }
  return pending;
}

std::size_t SendChunk(RawSender send, void* context, const RawFrame* frames, std::size_t count,
                      int retries, bool* sent) {
  FrameState state[kChunk] = {};
  for (int pass = 0; Pass(send, context, frames, count, state) && pass < retries; ++pass) {
    const timespec wait{0, 200'000};
    ::nanosleep(&wait, nullptr);
  }
  std::size_t n = 0;
  for (std::size_t i = 0; i < count; ++i) {
    n += state[i] == kSent;
    if (sent != nullptr) sent[i] = state[i] == kSent;
  }
  return n;
}

bool SendTo(void* context, const RawFrame& f) {
  const int fd = *static_cast<const int*>(context);
  return ::sendto(fd, &f.frame, sizeof(can_frame), MSG_DONTWAIT,
                  reinterpret_cast<const sockaddr*>(&f.address),
                  sizeof(sockaddr_can)) == static_cast<ssize_t>(sizeof(can_frame));
}

}  // namespace

std::size_t SendRawWith(RawSender send, void* context, const RawFrame* frames, std::size_t count,
                        int retries, bool* sent) {
  std::size_t n = 0;
  for (std::size_t from = 0; from < count; from += kChunk) {
    const std::size_t size = std::min(kChunk, count - from);
    n += SendChunk(send, context, frames + from, size, retries,
                   sent == nullptr ? nullptr : sent + from);
  }
  return n;
}

std::size_t SendRaw(int fd, const RawFrame* frames, std::size_t count, int retries, bool* sent) {
  return SendRawWith(SendTo, &fd, frames, count, retries, sent);
}

}  // namespace robot_edge::can
