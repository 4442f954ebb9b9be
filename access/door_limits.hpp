// What a TCP listener lets in before a peer has proven who it is (the client API's port): how
// many connections may wait for their TLS handshake or their Hello, and how long an address that
// sent a wrong token must wait before its next Hello is heard. Pure: no socket, clock or log (the
// caller passes the time); memory bounded by the constants below however many peers knock.
//
// Threads: one (robot-edged's API thread); not thread-safe.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

namespace robot_edge::access {

// Connections accepted but not yet authenticated (TLS handshake under way, or no Hello welcomed
// yet), in all and per peer address. Each costs a descriptor until it is welcomed or closed.
// When all are taken, a newcomer may take over a slot of the address that holds the most
// (Victim): its oldest that sent nothing yet, else its oldest. A few addresses that fill the door
// with silent connections then cannot keep out a peer from another address, which only waits its
// turn behind addresses holding as many as it would; and a controller whose handshake is under
// way on an attacker's address is not the one cut off while silent connections are there.
class PendingSlots {
 public:
  using Id = std::uint64_t;  // a slot, in the order taken (older = smaller)
  enum class Verdict : std::uint8_t { kAdmitted, kFull, kAddressFull };
  struct Taken {
    Verdict verdict;
    Id id = 0;  // kAdmitted: the slot (give it back with Release)
  };

  PendingSlots(std::size_t max_total, std::size_t max_per_address)
      : max_total_(max_total), max_per_address_(max_per_address) {}

  // kAdmitted: one slot of `address` taken. Else nothing taken.
  Taken Take(const std::string& address);
  // Gives slot `id` back; a slot not held (given back already) is ignored.
  void Release(Id id);
  // When every slot is taken: the slot a newcomer from `address` may take over (after it is
  // given back), of the addresses holding the most, when that is at least two more than `address`
  // holds: the oldest for which `sent_nothing` is true, else the oldest (also when it is empty).
  // nullopt: none (the newcomer is refused).
  std::optional<Id> Victim(const std::string& address,
                           const std::function<bool(Id)>& sent_nothing = {}) const;

  std::size_t in_use() const { return slots_.size(); }
  std::size_t held_by(const std::string& address) const;
  std::size_t max_total() const { return max_total_; }
  std::size_t max_per_address() const { return max_per_address_; }

 private:
  std::size_t max_total_, max_per_address_;
  Id next_ = 1;
  std::map<Id, std::string> slots_;                 // held, oldest first: <= max_total_
  std::map<std::string, std::size_t> per_address_;  // only addresses with a slot
};

// After wrong tokens from an address, its next Hellos are refused (without looking at their
// token) for a delay that doubles with each wrong token: the first (a typo) costs nothing, the
// second kFirstDelay, then 2x, 4x ... up to kMaxDelay (reached at the 9th).
// The count is forgotten after kForget without a wrong token, or at once on a right token.
// At most kMaxAddresses are remembered: a new one then replaces one forgotten, else the one whose
// delay ends first.
class WrongTokenDelay {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds kFirstDelay{250};
  static constexpr std::chrono::milliseconds kMaxDelay{30000};
  static constexpr std::chrono::minutes kForget{10};
  static constexpr std::size_t kMaxAddresses = 1024;

  // How long `address` must still wait at `now`; nullopt when it may be heard.
  std::optional<std::chrono::milliseconds> Left(const std::string& address,
                                                Clock::time_point now) const;
  // A wrong token from `address` at `now`; returns the delay it must now wait (0 for the first).
  std::chrono::milliseconds Wrong(const std::string& address, Clock::time_point now);
  // A right token from `address`: its count starts again.
  void Right(const std::string& address) { entries_.erase(address); }

  std::size_t remembered() const { return entries_.size(); }

 private:
  struct Entry {
    std::uint32_t wrong = 0;  // wrong tokens since the count started
    Clock::time_point until;  // refused before this
  };
  void MakeRoom(Clock::time_point now);

  std::map<std::string, Entry> entries_;
};

}  // namespace robot_edge::access
