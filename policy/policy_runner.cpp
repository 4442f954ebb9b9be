#include "policy/policy_runner.hpp"

#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <sstream>

namespace robot_edge::policy {
namespace {

std::uint64_t SteadyNs() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

}  // namespace

PolicyRunner::PolicyRunner(const PolicySetup& setup, std::unique_ptr<InferenceRuntime> runtime,
                           std::int64_t start_us)
    : rate_hz_(setup.policy.rate_hz),
      runtime_(std::move(runtime)),
      observation_(setup),
      action_(setup),
      period_us_(static_cast<std::int64_t>(1e6 / setup.policy.rate_hz + 0.5)),
      stall_us_(setup.policy.stall_timeout_us()),
      start_us_(start_us != kStartNow ? start_us : static_cast<std::int64_t>(SteadyNs() / 1000)),
      inputs_([&] {
        Published p;
        p.joint_pos_rad.assign(setup.joints.size(), 0.0f);
        p.joint_vel_rad_s.assign(setup.joints.size(), 0.0f);
        return p;
      }()),
      results_([&] {
        Result r;
        r.targets.resize(setup.joints.size());
        return r;
      }()),
      obs_(observation_.size()),
      raw_(action_.size()),
      last_action_(action_.size()) {}

PolicyRunner::~PolicyRunner() { Stop(); }

std::string PolicyRunner::Describe() const {
  std::ostringstream s;
  s << runtime_->Describe() << "; observation " << observation_.Describe() << "; " << action_.size()
    << " joints at " << rate_hz_ << " Hz";
  return s.str();
}

void PolicyRunner::Start() {
  if (thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stop_ = false;
  }
  thread_ = std::thread([this] { ThreadBody(); });
  pthread_setname_np(thread_.native_handle(), "re-inference");  // as ps and the tests see it
}

void PolicyRunner::Stop() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PolicyRunner::ThreadBody() {
  const std::chrono::microseconds period(period_us_);
  auto deadline = std::chrono::steady_clock::now();
  std::unique_lock lock(mutex_);
  while (!stop_) {
    deadline += period;
    if (wake_.wait_until(lock, deadline, [this] { return stop_; })) break;
    lock.unlock();
    InferOnce();
    lock.lock();
    // Fell more than a period behind (a stall): resume from now instead of catching up.
    const auto now = std::chrono::steady_clock::now();
    if (now > deadline + period) deadline = now;
  }
}

// ---- Control thread ----

void PolicyRunner::Reset(std::int64_t now_us) {
  ++generation_;
  reset_us_ = now_us;
}

sm::PolicyResult PolicyRunner::Targets(std::int64_t now_us, const sm::Velocity& command,
                                       const sm::Inputs& inputs, std::span<sm::JointTarget> out) {
  Published& p = inputs_.back();
  p.sequence = ++sequence_;
  p.generation = generation_;
  p.time_us = now_us;
  p.reset_us = reset_us_;
  p.command = {command.vx, command.vy, command.vyaw};
  p.gyro_rad_s = inputs.imu.gyro_rad_s;
  p.quat_wxyz = inputs.imu.quat_wxyz;
  const std::size_t n = std::min(p.joint_pos_rad.size(), inputs.joints.size());
  for (std::size_t j = 0; j < n; ++j) {
    p.joint_pos_rad[j] = inputs.joints[j].position_rad;
    p.joint_vel_rad_s[j] = inputs.joints[j].velocity_rad_s;
  }
  inputs_.Publish();

  using sm::PolicyFault;
  using sm::PolicyStatus;
  const Result& r = results_.Latest();
  const auto ms = [](std::int64_t us) { return static_cast<std::uint32_t>(us / 1000); };
  if (!r.valid || r.generation != generation_) {  // nothing since Reset()
    if (now_us - reset_us_ > stall_us_) {
      return {PolicyStatus::kFault, PolicyFault::kStale, ms(now_us - reset_us_)};
    }
    return {PolicyStatus::kWaiting, PolicyFault::kStale, 0};
  }
  if (r.failed) return {PolicyStatus::kFault, PolicyFault::kFailed, 0};
  if (r.nonfinite_state) {
    return {PolicyStatus::kFault, PolicyFault::kNonFinite, sm::kNonFiniteState};
  }
  if (r.nonfinite_joint >= 0) {
    return {PolicyStatus::kFault, PolicyFault::kNonFinite,
            static_cast<std::uint32_t>(r.nonfinite_joint)};
  }
  if (now_us - r.observed_us > stall_us_) {
    return {PolicyStatus::kFault, PolicyFault::kStale, ms(now_us - r.observed_us)};
  }
  std::copy_n(r.targets.begin(), std::min(r.targets.size(), out.size()), out.begin());
  return {PolicyStatus::kTargets, PolicyFault::kStale, 0};
}

// ---- Inference thread ----

bool PolicyRunner::InferOnce() {
  const Published& in = inputs_.Latest();
  if (in.sequence == last_sequence_) return false;
  last_sequence_ = in.sequence;
  if (!started_ || in.generation != last_generation_) {  // entered MOVE/POLICY anew
    observation_.Reset();
    runtime_->ResetState();
    std::fill(last_action_.begin(), last_action_.end(), 0.0f);
    last_generation_ = in.generation;
    started_ = true;
  }
  Result& r = results_.back();
  try {
    Evaluate(in, &r);
  } catch (const std::exception& e) {
    PublishFailure(in, e.what());
    return true;
  } catch (...) {
    PublishFailure(in, "an exception that is not a std::exception");
    return true;
  }
  r.valid = true;
  r.failed = false;
  r.generation = in.generation;
  r.observed_us = in.time_us;
  results_.Publish();
  return true;
}

void PolicyRunner::Evaluate(const Published& in, Result* r) {
  ObservationInputs oi;
  oi.gyro_rad_s = in.gyro_rad_s;
  oi.quat_wxyz = in.quat_wxyz;
  oi.command = in.command;
  oi.joint_pos_rad = in.joint_pos_rad;
  oi.joint_vel_rad_s = in.joint_vel_rad_s;
  oi.last_action = last_action_;
  oi.policy_time_s = static_cast<double>(in.time_us - in.reset_us) * 1e-6;
  oi.start_time_s = static_cast<double>(in.time_us - start_us_) * 1e-6;
  observation_.Assemble(oi, obs_);

  const std::uint64_t start = SteadyNs();
  runtime_->Run(obs_, raw_);
  counters_.Record(SteadyNs() - start);

  // The observation has used the previous last action.
  const ActionMap::Outcome outcome = action_.Apply(raw_, last_action_, r->targets);
  if (outcome.nonfinite > 0) counters_.RecordNonFinite(outcome.nonfinite);
  r->nonfinite_joint = outcome.first_nonfinite_joint;
  const char* state = runtime_->NonFiniteState();
  r->nonfinite_state = state != nullptr;
  if (state != nullptr) {  // rare (it ends MOVE/POLICY): the message may allocate
    std::lock_guard lock(failure_mutex_);
    last_failure_ =
        std::string("the recurrent state '") + state + "' is NaN or infinity after the inference";
  }
}

void PolicyRunner::PublishFailure(const Published& in, const char* what) {
  counters_.RecordFailure();
  {
    std::lock_guard lock(failure_mutex_);
    last_failure_ = what;
  }
  Result& r = results_.back();
  r.valid = true;
  r.failed = true;
  r.nonfinite_joint = -1;
  r.nonfinite_state = false;
  r.generation = in.generation;
  r.observed_us = in.time_us;
  results_.Publish();
}

std::string PolicyRunner::LastFailure() const {
  std::lock_guard lock(failure_mutex_);
  return last_failure_;
}

}  // namespace robot_edge::policy
