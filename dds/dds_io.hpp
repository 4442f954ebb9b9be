// The Cyclone DDS entities of robot-edge-dds (C API, dds/dds.h): a participant on one domain,
// the reader of rt/lowcmd and the writer of rt/lowstate. Every failure is a DdsError naming the
// call and Cyclone's reason. QoS: the reader is best-effort with a history of kLowCmdHistory (it
// matches any writer; the command thread follows one of them, and a few samples of others must
// not push the followed writer's out before they are taken); the writer is reliable with a history
// of 1 and never blocks (it matches any reader; a sample that cannot go out at once is dropped).
#pragma once

#include <dds/dds.h>

#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>

#include "pnd_adam.h"

namespace robot_edge::dds {

inline constexpr const char* kLowCmdTopic = "rt/lowcmd";
inline constexpr const char* kLowStateTopic = "rt/lowstate";
inline constexpr int kLowCmdHistory = 8;  // samples kept by the reader of rt/lowcmd

class DdsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Deletes a Cyclone entity (and its children) when destroyed.
class Entity {
 public:
  Entity() = default;
  explicit Entity(dds_entity_t handle) : handle_(handle) {}
  Entity(Entity&& other) noexcept : handle_(other.handle_) { other.handle_ = 0; }
  Entity& operator=(Entity&& other) noexcept;
  Entity(const Entity&) = delete;
  Entity& operator=(const Entity&) = delete;
  ~Entity();
  dds_entity_t get() const { return handle_; }

 private:
  dds_entity_t handle_ = 0;
};

// A domain participant. Deleting it deletes the readers and writers made from it: it outlives
// them.
class Participant {
 public:
  // `config`: Cyclone's configuration for the domain (security.hpp); "" = $CYCLONEDDS_URI's.
  Participant(std::uint32_t domain, const std::string& config);
  dds_entity_t get() const { return participant_.get(); }

  // Whether DDS Security is in effect as robot-edge-dds needs it: Cyclone refuses this
  // participant a writer of rt/lowcmd (DDS_RETCODE_NOT_ALLOWED_BY_SECURITY: access control is
  // on, the governance controls writing rt/lowcmd, and our permissions do not grant it). False
  // when the writer could be made (it is deleted at once, having written nothing).
  bool WritingLowCmdIsControlled() const;

 private:
  Entity domain_;  // made by dds_create_domain when a config is given
  Entity participant_;
};

// One sample of rt/lowcmd as the reader got it: the sample (lent for the call) and who sent it.
struct LowCmdSample {
  const pnd_adam_msg_dds__LowCmd_& msg;
  std::uint64_t writer;    // dds_sample_info_t.publication_handle
  std::int64_t source_ns;  // dds_sample_info_t.source_timestamp: the writer's clock, ns
};

// rt/lowcmd. Threads: one thread calls Take().
class LowCmdReader {
 public:
  explicit LowCmdReader(const Participant& participant);
  // Waits at most `wait` for samples; calls `use` with each valid one taken, oldest first (a
  // sample is lent only for the call). False when none came.
  bool Take(std::chrono::milliseconds wait, const std::function<void(const LowCmdSample&)>& use);
  // Whether the writer `writer` (a publication handle) is still matched.
  bool Matched(std::uint64_t writer) const;

 private:
  Entity topic_;
  Entity reader_;
  Entity waitset_;
  dds_entity_t condition_ = 0;  // a child of reader_
};

// rt/lowstate. Threads: one thread calls Write().
class LowStateWriter {
 public:
  explicit LowStateWriter(const Participant& participant);
  // False when Cyclone did not take the sample (then it is dropped).
  bool Write(const pnd_adam_msg_dds__LowState_& sample);

 private:
  Entity topic_;
  Entity writer_;
};

}  // namespace robot_edge::dds
