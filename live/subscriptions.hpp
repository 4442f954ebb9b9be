// One client's subscriptions (the protocol's subscribe / unsubscribe): the client's ids and the
// channels they name, both ways. Pure; each client's is owned by the live thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace robot_edge::live {

class Subscriptions {
 public:
  enum class Result {
    kOk,
    kIdInUse,            // the client already uses this id (the spec: ignore it, warn)
    kAlreadySubscribed,  // one subscription per channel and client
  };

  Result Add(std::uint32_t id, std::uint32_t channel);
  // The channel `id` named, nullopt when it named none.
  std::optional<std::uint32_t> Remove(std::uint32_t id);
  // Drops the subscription to `channel` (the channel went away); returns its id.
  std::optional<std::uint32_t> RemoveChannel(std::uint32_t channel);
  // The client's id for `channel`, nullopt when not subscribed.
  std::optional<std::uint32_t> IdFor(std::uint32_t channel) const;
  std::vector<std::uint32_t> Channels() const;
  std::size_t size() const { return by_id_.size(); }

 private:
  std::map<std::uint32_t, std::uint32_t> by_id_;       // id -> channel
  std::map<std::uint32_t, std::uint32_t> by_channel_;  // channel -> id
};

}  // namespace robot_edge::live
