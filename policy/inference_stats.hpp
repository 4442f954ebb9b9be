// How long the network takes: what EdgeDiagnostics reports as onnx_count / onnx_avg_ms /
// onnx_max_ms. One writer (the inference thread) records each evaluation; one reader (the API
// thread) takes a window once per diagnostics period. Lock-free: neither ever waits.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>

namespace robot_edge::policy {

struct InferenceWindow {
  std::uint64_t total = 0;            // evaluations since start
  std::uint64_t count = 0;            // evaluations in this window
  double avg_ms = 0.0;                // mean over this window (0 when none)
  double max_ms = 0.0;                // longest in this window (0 when none)
  std::uint64_t nonfinite_total = 0;  // NaN / infinite outputs since start
  std::uint64_t failures_total = 0;   // evaluations that threw, since start
};

// What the API thread sees (null in the daemon when no policy is configured).
class InferenceStats {
 public:
  virtual ~InferenceStats() = default;
  // Statistics since the previous call; total since start.
  virtual InferenceWindow TakeWindow() = 0;
  // What the last failed evaluation threw ("" when none has).
  virtual std::string LastFailure() const = 0;
};

// The counting half of InferenceStats (LastFailure() is the runner's).
class InferenceCounters {
 public:
  // Writer: one evaluation took `ns`.
  void Record(std::uint64_t ns) {
    window_.fetch_add(kOne + std::min(ns, kSumMask), std::memory_order_relaxed);
    total_.fetch_add(1, std::memory_order_relaxed);
    std::uint64_t max = max_ns_.load(std::memory_order_relaxed);
    while (ns > max && !max_ns_.compare_exchange_weak(max, ns, std::memory_order_relaxed)) {
    }
  }

  // Writer: an evaluation gave `n` non-finite outputs.
  void RecordNonFinite(std::uint64_t n) { nonfinite_.fetch_add(n, std::memory_order_relaxed); }
  // Writer: an evaluation threw.
  void RecordFailure() { failures_.fetch_add(1, std::memory_order_relaxed); }

  // Reader.
  InferenceWindow TakeWindow() {
    const std::uint64_t w = window_.exchange(0, std::memory_order_relaxed);
    InferenceWindow out;
    out.total = total_.load(std::memory_order_relaxed);
    out.nonfinite_total = nonfinite_.load(std::memory_order_relaxed);
    out.failures_total = failures_.load(std::memory_order_relaxed);
    out.count = w >> kSumBits;
    out.max_ms = static_cast<double>(max_ns_.exchange(0, std::memory_order_relaxed)) * 1e-6;
    if (out.count > 0)
      out.avg_ms = static_cast<double>(w & kSumMask) * 1e-6 / static_cast<double>(out.count);
    return out;
  }

 private:
  // Count and sum of one window in one word, so that a reader never sees one without the other:
  // 20 bits of count (≥ 200 000 = 2000 Hz × the longest diagnostics period, 100 s) and 44 bits of
  // nanoseconds (4.8 h, more than a window can hold).
  static constexpr unsigned kSumBits = 44;
  static constexpr std::uint64_t kOne = std::uint64_t{1} << kSumBits;
  static constexpr std::uint64_t kSumMask = kOne - 1;

  std::atomic<std::uint64_t> window_{0};
  std::atomic<std::uint64_t> total_{0};
  std::atomic<std::uint64_t> max_ns_{0};
  std::atomic<std::uint64_t> nonfinite_{0};
  std::atomic<std::uint64_t> failures_{0};
};

}  // namespace robot_edge::policy
