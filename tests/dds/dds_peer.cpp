// dds_vcan_peer: an Adam program of one identity for tests/dds/bridge_vcan_test.cpp, configured
// only through $CYCLONEDDS_URI (network and DDS Security, as README "DDS bridge" tells an Adam
// program to), one process per identity (Cyclone DDS 0.10 keeps one security identity per
// process's domain).
//
//   dds_vcan_peer DOMAIN SECONDS HZ
// Publishes rt/lowcmd for SECONDS at HZ: 25 motors, q 0 but L_Elbow (15) at 2.0 rad, kp 40,
// kd 1. Prints what it did: "wrote N samples, matched M readers at most", or which DDS call
// failed and why ("writer: Not Allowed By Security"), exiting 3 then.
#include <dds/dds.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "pnd_adam.h"

namespace {

constexpr std::size_t kJoints = 25;
constexpr std::size_t kElbow = 15;

int Failed(const char* what, dds_return_t code) {
  std::printf("%s: %s\n", what, dds_strretcode(code));
  return 3;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: dds_vcan_peer DOMAIN SECONDS HZ\n");
    return 2;
  }
  const auto domain = static_cast<dds_domainid_t>(std::atoi(argv[1]));
  const double seconds = std::atof(argv[2]);
  const double hz = std::atof(argv[3]);
  const dds_entity_t participant = dds_create_participant(domain, nullptr, nullptr);
  if (participant < 0) return Failed("participant", participant);
  const dds_entity_t topic =
      dds_create_topic(participant, &pnd_adam_msg_dds__LowCmd__desc, "rt/lowcmd", nullptr, nullptr);
  if (topic < 0) return Failed("topic", topic);
  const dds_entity_t writer = dds_create_writer(participant, topic, nullptr, nullptr);
  if (writer < 0) return Failed("writer", writer);

  std::vector<pnd_adam_msg_dds__MotorCmd_> motors(kJoints);
  for (std::size_t i = 0; i < kJoints; ++i) {
    motors[i] = {1, i == kElbow ? 2.0f : 0.0f, 0, 0, 40, 1, 0, 0};
  }
  pnd_adam_msg_dds__LowCmd_ cmd{};
  cmd.motor_cmd._buffer = motors.data();
  cmd.motor_cmd._length = cmd.motor_cmd._maximum = kJoints;
  const auto count = static_cast<int>(seconds * hz);
  std::uint32_t matched = 0;
  int written = 0;
  for (int i = 0; i < count; ++i) {
    if (dds_write(writer, &cmd) == DDS_RETCODE_OK) ++written;
    dds_publication_matched_status_t status{};
    dds_get_publication_matched_status(writer, &status);
    if (status.current_count > matched) matched = status.current_count;
    dds_sleepfor(static_cast<dds_duration_t>(1e9 / hz));
  }
  std::printf("wrote %d samples, matched %u readers at most\n", written, matched);
  dds_delete(participant);
  return 0;
}
