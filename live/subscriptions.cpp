#include "live/subscriptions.hpp"

namespace robot_edge::live {

Subscriptions::Result Subscriptions::Add(std::uint32_t id, std::uint32_t channel) {
  if (by_id_.count(id) != 0) return Result::kIdInUse;
  if (by_channel_.count(channel) != 0) return Result::kAlreadySubscribed;
  by_id_.emplace(id, channel);
  by_channel_.emplace(channel, id);
  return Result::kOk;
}

std::optional<std::uint32_t> Subscriptions::Remove(std::uint32_t id) {
  const auto it = by_id_.find(id);
  if (it == by_id_.end()) return std::nullopt;
  const std::uint32_t channel = it->second;
  by_id_.erase(it);
  by_channel_.erase(channel);
  return channel;
}

std::optional<std::uint32_t> Subscriptions::RemoveChannel(std::uint32_t channel) {
  const auto it = by_channel_.find(channel);
  if (it == by_channel_.end()) return std::nullopt;
  const std::uint32_t id = it->second;
  by_channel_.erase(it);
  by_id_.erase(id);
  return id;
}

std::optional<std::uint32_t> Subscriptions::IdFor(std::uint32_t channel) const {
  const auto it = by_channel_.find(channel);
  if (it == by_channel_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::uint32_t> Subscriptions::Channels() const {
  std::vector<std::uint32_t> channels;
  for (const auto& [channel, id] : by_channel_) channels.push_back(channel);
  return channels;
}

}  // namespace robot_edge::live
