// The Cyclone DDS entities of robot-edge-dds (C API, dds/dds.h): a participant on one domain,
// the reader of rt/lowcmd and the writer of rt/lowstate. Every failure is a DdsError naming the
// call and Cyclone's reason. QoS: the reader is best-effort with a history of 1 (it matches
// any writer, and only the newest command matters); the writer is reliable with a history of 1
// and never blocks (it matches any reader; a sample that cannot go out at once is dropped).
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
  explicit Participant(std::uint32_t domain);
  dds_entity_t get() const { return participant_.get(); }

 private:
  Entity participant_;
};

// rt/lowcmd. Threads: one thread calls Take().
class LowCmdReader {
 public:
  explicit LowCmdReader(const Participant& participant);
  // Waits at most `wait` for a sample; calls `use` with the newest valid one taken (a sample
  // is lent only for the call). False when none came.
  bool Take(std::chrono::milliseconds wait,
            const std::function<void(const pnd_adam_msg_dds__LowCmd_&)>& use);

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
