#include "access/door_limits.hpp"

#include <algorithm>

namespace robot_edge::access {

PendingSlots::Taken PendingSlots::Take(const std::string& address) {
  if (slots_.size() >= max_total_) return {Verdict::kFull};
  auto it = per_address_.find(address);
  if (it != per_address_.end() && it->second >= max_per_address_) return {Verdict::kAddressFull};
  if (it == per_address_.end()) it = per_address_.emplace(address, 0).first;
  ++it->second;
  const Id id = next_++;
  slots_.emplace(id, address);
  return {Verdict::kAdmitted, id};
}

void PendingSlots::Release(Id id) {
  const auto slot = slots_.find(id);
  if (slot == slots_.end()) return;
  const auto it = per_address_.find(slot->second);
  if (--it->second == 0) per_address_.erase(it);
  slots_.erase(slot);
}

std::size_t PendingSlots::held_by(const std::string& address) const {
  const auto it = per_address_.find(address);
  return it == per_address_.end() ? 0 : it->second;
}

std::optional<PendingSlots::Id> PendingSlots::Victim(
    const std::string& address, const std::function<bool(Id)>& sent_nothing) const {
  if (slots_.size() < max_total_ || per_address_.empty()) return std::nullopt;
  std::size_t most = 0;
  for (const auto& [holder, count] : per_address_) most = std::max(most, count);
  if (most < held_by(address) + 2) return std::nullopt;
  std::optional<Id> oldest;
  for (const auto& [id, holder] : slots_) {  // oldest first, of the addresses holding the most
    if (per_address_.at(holder) != most) continue;
    if (!sent_nothing || sent_nothing(id)) return id;
    if (!oldest) oldest = id;
  }
  return oldest;
}

std::optional<std::chrono::milliseconds> WrongTokenDelay::Left(const std::string& address,
                                                               Clock::time_point now) const {
  const auto it = entries_.find(address);
  if (it == entries_.end() || now >= it->second.until) return std::nullopt;
  // Rounded up: "0 ms left" would read as "go ahead".
  return std::chrono::ceil<std::chrono::milliseconds>(it->second.until - now);
}

std::chrono::milliseconds WrongTokenDelay::Wrong(const std::string& address,
                                                 Clock::time_point now) {
  auto it = entries_.find(address);
  if (it != entries_.end() && now - it->second.until >= kForget) it->second.wrong = 0;
  if (it == entries_.end()) {
    MakeRoom(now);
    it = entries_.emplace(address, Entry{}).first;
  }
  Entry& e = it->second;
  e.wrong = std::min<std::uint32_t>(e.wrong + 1, 32);
  std::chrono::milliseconds delay{0};
  if (e.wrong >= 2) {
    delay = kFirstDelay;
    for (std::uint32_t i = 2; i < e.wrong && delay < kMaxDelay; ++i) delay *= 2;
    delay = std::min(delay, kMaxDelay);
  }
  e.until = now + delay;
  return delay;
}

// Forgotten entries first; if none, the one whose delay ends first (the least harm in dropping).
void WrongTokenDelay::MakeRoom(Clock::time_point now) {
  if (entries_.size() < kMaxAddresses) return;
  std::erase_if(entries_, [now](const auto& e) { return now - e.second.until >= kForget; });
  if (entries_.size() < kMaxAddresses) return;
  const auto soonest = std::min_element(entries_.begin(), entries_.end(), [](auto& a, auto& b) {
    return a.second.until < b.second.until;
  });
  entries_.erase(soonest);
}

}  // namespace robot_edge::access
