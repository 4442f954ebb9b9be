// Synthetic traffic for the black box tests, time passed in from kT0 = 2024-05-01 12:00:00 UTC:
//   channel 0 /joints   500 Hz, at kT0 + i * 2 ms, `joint_bytes` each
//   channel 1 /battery   10 Hz, at kT0 + j * 100 ms + 1 ms, joint_bytes + 100 each
//   channel 2 /alerts   sporadic, about every 1.7 s, 10..409 bytes
// and the owner's loop: Add each message, Trigger when its time comes, Poll after every message.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "recorder/black_box.hpp"

namespace robot_edge::recorder::test {

inline constexpr std::uint64_t kMs = 1'000'000;
inline constexpr std::uint64_t kS = 1'000'000'000;
inline constexpr std::uint64_t kT0 = 1'714'564'800 * kS;

struct Event {
  std::uint64_t time_ns = 0;
  std::uint32_t channel = 0;
  std::uint32_t sequence = 0;  // per channel
  std::uint32_t size = 0;
};

inline std::vector<ChannelInfo> Channels() {
  return {{"/joints", "edge.Joints", "protobuf", "schema", "protobuf"},
          {"/battery", "edge.Battery", "protobuf", "schema", "protobuf"},
          {"/alerts", "", "", "", "json"}};
}

// Messages in [kT0 + from_ns, kT0 + from_ns + duration_ns), in time order.
inline std::vector<Event> Events(std::uint64_t duration_ns, std::uint32_t joint_bytes,
                                 std::uint64_t from_ns = 0) {
  std::vector<Event> out;
  const std::uint64_t begin = kT0 + from_ns, end = begin + duration_ns;
  for (std::uint32_t i = 0; begin + i * 2 * kMs < end; ++i) {
    out.push_back({begin + i * 2 * kMs, 0, i, joint_bytes});
  }
  for (std::uint32_t j = 0; begin + j * 100 * kMs + kMs < end; ++j) {
    out.push_back({begin + j * 100 * kMs + kMs, 1, j, joint_bytes + 100});
  }
  for (std::uint32_t k = 0;; ++k) {
    const std::uint64_t t = begin + k * 1700 * kMs + (k * k % 7) * 97 * kMs + 300'000;
    if (t >= end) break;
    out.push_back({t, 2, k, 10 + k * 37 % 400});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Event& a, const Event& b) { return a.time_ns < b.time_ns; });
  return out;
}

inline std::vector<std::uint8_t> PayloadOf(const Event& e) {
  std::vector<std::uint8_t> p(e.size);
  for (std::size_t k = 0; k < p.size(); ++k) {
    p[k] = static_cast<std::uint8_t>(e.channel * 31 + e.sequence * 7 + k);
  }
  return p;
}

// The events whose time is in [from, to].
inline std::vector<Event> Window(const std::vector<Event>& events, std::uint64_t from,
                                 std::uint64_t to) {
  std::vector<Event> out;
  for (const Event& e : events) {
    if (e.time_ns >= from && e.time_ns <= to) out.push_back(e);
  }
  return out;
}

struct TriggerAt {
  std::uint64_t time_ns = 0;
  std::string reason;
};

// The owner's loop over `events`; then, with `finish`, Polls 10 s after the last event until no
// dump is left. Returns the dumps' results in the order they ended.
inline std::vector<DumpResult> Feed(BlackBox& box, const std::vector<Event>& events,
                                    const std::vector<TriggerAt>& triggers, bool finish = true) {
  std::vector<DumpResult> results;
  std::size_t next = 0;
  for (const Event& e : events) {
    box.Add(e.channel, e.time_ns, PayloadOf(e));
    for (; next < triggers.size() && triggers[next].time_ns <= e.time_ns; ++next) {
      box.Trigger(triggers[next].time_ns, triggers[next].reason);
    }
    if (auto r = box.Poll(e.time_ns)) results.push_back(std::move(*r));
  }
  const std::uint64_t later = events.empty() ? kT0 : events.back().time_ns + 10 * kS;
  for (int k = 0; finish && box.dumping() && k < 1'000'000; ++k) {
    if (auto r = box.Poll(later)) results.push_back(std::move(*r));
  }
  return results;
}

}  // namespace robot_edge::recorder::test
