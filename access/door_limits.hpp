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
#include <map>
#include <optional>
#include <string>

namespace robot_edge::access {

// Connections accepted but not yet authenticated (TLS handshake under way, or no Hello welcomed
// yet), in all and per peer address. Each costs a descriptor until it is welcomed or closed.
class PendingSlots {
 public:
  enum class Verdict : std::uint8_t { kAdmitted, kFull, kAddressFull };

  PendingSlots(std::size_t max_total, std::size_t max_per_address)
      : max_total_(max_total), max_per_address_(max_per_address) {}

  // kAdmitted: one slot of `address` taken (give it back with Release). Else nothing taken.
  Verdict Take(const std::string& address);
  void Release(const std::string& address);

  std::size_t in_use() const { return total_; }
  std::size_t max_total() const { return max_total_; }
  std::size_t max_per_address() const { return max_per_address_; }

 private:
  std::size_t max_total_, max_per_address_;
  std::size_t total_ = 0;
  std::map<std::string, std::size_t> per_address_;  // only addresses with a slot: <= max_total_
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
