// Watching the buses from the outside, as candump does: a CAN_RAW socket with a kernel receive
// filter and kernel receive timestamps (SO_TIMESTAMPNS, CLOCK_REALTIME), read in batches with
// recvmmsg. It receives what the daemon and the simulator send (CAN_RAW delivers every frame
// sent on the host to the other sockets), stamped when the frame went through the interface.
//
// Threads: one owner per tap.
#pragma once

#include <linux/can.h>

#include <cstdint>
#include <string>
#include <vector>

namespace robot_edge::bench {

// CLOCK_REALTIME in ns: the clock of the kernel's receive timestamps.
std::int64_t RealtimeNs();

struct TappedFrame {
  std::int64_t t_ns;  // kernel receive timestamp, CLOCK_REALTIME
  int bus;            // index into the tap's interfaces
  can_frame frame;
};

// Where command frames are watched: a CAN socket (CanTap) or the daemon's own transport when it
// runs in-process (inproc.hpp). Each source sees the frames sent after it was created.
class FrameSource {
 public:
  virtual ~FrameSource() = default;
  // Appends the frames that arrive within `timeout_ms` (0 = only those waiting) to *out; returns
  // how many. Returns early once at least one batch was read.
  virtual std::size_t Read(int timeout_ms, std::vector<TappedFrame>* out) = 0;
  // Discards every frame waiting.
  virtual void Drain() = 0;
};

class CanTap final : public FrameSource {
 public:
  // Bound to `interface` ("" = every CAN interface; frames of interfaces not in `buses` are
  // dropped), receiving only standard frames with these ids (empty = every id). `buses` names the
  // interfaces in bus order (TappedFrame::bus).
  CanTap(const std::string& interface, const std::vector<std::string>& buses,
         const std::vector<canid_t>& ids);
  ~CanTap();
  CanTap(const CanTap&) = delete;
  CanTap& operator=(const CanTap&) = delete;

  std::size_t Read(int timeout_ms, std::vector<TappedFrame>* out) override;
  void Drain() override;
  // Sends one frame on the interface the tap is bound to.
  bool Write(const can_frame& frame);

 private:
  int fd_ = -1;
  std::vector<int> ifindex_;  // per bus
};

// A frame's 16-bit MIT position field (bytes 0-1, big-endian) and its 12-bit kp field.
inline std::uint16_t PositionCode(const can_frame& f) {
  return static_cast<std::uint16_t>((f.data[0] << 8) | f.data[1]);
}
inline std::uint16_t KpCode(const can_frame& f) {
  return static_cast<std::uint16_t>(((f.data[3] & 0x0F) << 8) | f.data[4]);
}
// FF FF FF FF FF FF FF Fx: a special frame (enter / exit motor mode, set zero).
bool IsSpecial(const can_frame& f);

// /sys/class/net/<interface>/statistics/tx_packets: frames sent on the bus by anyone.
std::uint64_t TxPackets(const std::string& interface);

}  // namespace robot_edge::bench
