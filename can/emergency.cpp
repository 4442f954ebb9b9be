#include "can/emergency.hpp"

#include <net/if.h>
#include <sys/socket.h>
#include <time.h>

#include <algorithm>
#include <cerrno>

#include "can/joint_transform.hpp"
#include "can/motor_protocol.hpp"
#include "config/joint_table.hpp"

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

std::vector<RawFrame> EmergencyFrames(const config::Config& config,
                                      std::vector<std::string>* missing) {
  std::vector<int> ifindex;
  for (const config::BusConfig& bus : config.buses) {
    ifindex.push_back(static_cast<int>(::if_nametoindex(bus.interface.c_str())));
    if (ifindex.back() == 0 && missing != nullptr) missing->push_back(bus.interface);
  }
  std::vector<RawFrame> damp, exit;
  for (std::size_t j = 0; j < config.joints.size(); ++j) {
    const config::JointConfig& joint = config.joints[j];
    if (ifindex[joint.bus] == 0) continue;
    const MotorProtocol protocol = ProtocolOf(config.motor_of(j));
    const std::uint32_t master = config.buses[joint.bus].master_id;
    MitCommand limp;  // joint space: kp 0, the joint's damp_kd
    limp.kd = static_cast<float>(joint.damp_kd);
    damp.push_back(Frame(ifindex[joint.bus], joint.bus,
                         EncodeCommandFrame(protocol, joint.can_id, master,
                                            ToMotor(config::TransformOf(joint), limp))));
    can_frame disable;
    if (EncodeRequestFrame(protocol, joint.can_id, master, MotorRequest::kDisable, &disable)) {
      exit.push_back(Frame(ifindex[joint.bus], joint.bus, disable));
    }
  }
  damp.insert(damp.end(), exit.begin(), exit.end());
  return damp;
}

std::size_t SendRaw(int fd, const RawFrame* frames, std::size_t count, int retries, bool* sent) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < count; ++i) {
    bool ok = false;
    for (int attempt = 0; attempt <= retries && !ok; ++attempt) {
      const ssize_t r =
          ::sendto(fd, &frames[i].frame, sizeof(can_frame), MSG_DONTWAIT,
                   reinterpret_cast<const sockaddr*>(&frames[i].address), sizeof(sockaddr_can));
      ok = r == static_cast<ssize_t>(sizeof(can_frame));
      if (ok || (errno != ENOBUFS && errno != EAGAIN)) break;
      const timespec wait{0, 200'000};
      ::nanosleep(&wait, nullptr);
    }
    n += ok;
    if (sent != nullptr) sent[i] = ok;
  }
  return n;
}

}  // namespace robot_edge::can
