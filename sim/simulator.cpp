#include "sim/simulator.hpp"

#include <linux/can/error.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <csignal>

#include "sim/bus_faults.hpp"
#include "sim/mujoco_plant.hpp"

namespace robot_edge::sim {
namespace {

using Clock = std::chrono::steady_clock;

// After a socket error, wait this long before waiting again.
constexpr auto kRetryDelay = std::chrono::milliseconds(200);

// One socket for every bus: the kernel filter passes the motor ids of all buses (it applies on
// every interface); frames are routed by their bus.
can::SocketCanOptions TransportOptions(const config::Config& config, const SimRobot& robot) {
  can::SocketCanOptions options;
  for (const auto& bus : config.buses) options.interfaces.push_back(bus.interface);
  options.filters = robot.ReceiveFilters();
  options.receive_errors = false;  // the robot's side has no use for error frames
  return options;
}

}  // namespace

std::unique_ptr<Plant> MakePlant(const config::Config& config, const SimulatorOptions& options) {
  if (options.physics == "mujoco") {
    std::optional<double> gantry;
    if (options.gantry_height_m > 0) gantry = options.gantry_height_m;
    auto plant = std::make_unique<MujocoPlant>(config, options.model_path, gantry);
    std::string translated;
    for (const std::string& t : plant->translated())
      translated += (translated.empty() ? "" : "; ") + t;
    spdlog::info("model {}: translated for MuJoCo 2.2.2: {}", options.model_path, translated);
    return plant;
  }
  return std::make_unique<KinematicPlant>(config);
}

Simulator::Simulator(const config::Config& config, SimulatorOptions options)
    : config_(config),
      options_(std::move(options)),
      start_(Clock::now()),
      robot_(config, MakePlant(config, options_), 0),
      imu_timer_(io_),
      battery_timer_(io_),
      status_timer_(io_),
      signals_(io_, SIGINT, SIGTERM),
      retry_(io_),
      imu_period_(std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(1.0 / config.sim.imu_rate_hz))) {
  transport_ = std::make_unique<can::SocketCanTransport>(io_, TransportOptions(config, robot_));
  rx_.resize(can::SocketCanTransport::kMaxBatch);
  run_.reserve(can::SocketCanTransport::kMaxBatch);
  replies_.reserve(can::SocketCanTransport::kMaxBatch);
  out_.reserve(can::SocketCanTransport::kMaxBatch);
  if (!options_.control_path.empty()) {
    control_ = std::make_unique<ControlServer>(
        io_, options_.control_path,
        [this](std::string_view line) { return HandleControlLine(line); });
  }
}

Simulator::~Simulator() = default;

std::int64_t Simulator::NowUs() const {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start_).count();
}

void Simulator::Run() {
  signals_.async_wait([this](std::error_code ec, int signal) {
    if (ec) return;
    spdlog::info("signal {}: shutting down", signal);
    Shutdown();
  });
  WaitForFrames();
  next_imu_ = Clock::now();
  ScheduleImu();
  if (robot_.has_bms()) ScheduleBattery();
  ScheduleStatus();
  io_.run();
}

void Simulator::WaitForFrames() {
  transport_->socket().async_wait(asio::socket_base::wait_read,
                                  [this](std::error_code ec) { OnReadable(ec); });
}

void Simulator::OnReadable(std::error_code ec) {
  if (stopping_) return;
  if (ec) {  // the wait failed: wait again a little later
    retry_.expires_after(kRetryDelay);
    retry_.async_wait([this](std::error_code retry_ec) {
      if (!retry_ec && !stopping_) WaitForFrames();
    });
    return;
  }
  const std::int64_t now_us = NowUs();
  for (;;) {
    const std::size_t n = transport_->Receive(rx_);
    out_.clear();
    // Frames arrive bus by bus: hand each run of one bus to the robot.
    for (std::size_t i = 0; i < n;) {
      const std::uint32_t bus = rx_[i].bus;
      run_.clear();
      for (; i < n && rx_[i].bus == bus; ++i) run_.push_back(rx_[i].frame);
      replies_.clear();
      robot_.OnFrames(bus, run_, now_us, &replies_);
      for (const can_frame& r : replies_) out_.push_back({bus, r});
    }
    if (!out_.empty()) transport_->Send(out_);
    if (n < rx_.size()) break;  // drained
  }
  WaitForFrames();
}

void Simulator::ScheduleImu() {
  const auto now = Clock::now();
  next_imu_ += imu_period_;
  if (next_imu_ < now - imu_period_) next_imu_ = now + imu_period_;  // far behind: skip
  imu_timer_.expires_at(next_imu_);
  imu_timer_.async_wait([this](std::error_code ec) {
    if (ec || stopping_) return;
    robot_.AdvanceAll(NowUs());
    if (robot_.imu().enabled()) {
      const ImuFrameSet frames = robot_.ImuFrames();
      const auto bus = static_cast<std::uint32_t>(robot_.imu_bus());
      std::array<can::BusFrame, 3> out{};
      for (std::size_t i = 0; i < frames.size(); ++i) out[i] = {bus, frames[i]};
      transport_->Send(std::span(out.data(), frames.size()));
    }
    ScheduleImu();
  });
}

void Simulator::ScheduleBattery() {
  battery_timer_.expires_after(std::chrono::microseconds(BatteryModel::kPeriodUs));
  battery_timer_.async_wait([this](std::error_code ec) {
    if (ec || stopping_) return;
    robot_.AdvanceAll(NowUs());
    if (robot_.battery().enabled()) {
      const can::BusFrame frame{static_cast<std::uint32_t>(robot_.battery_bus()),
                                robot_.BatteryFrame()};
      transport_->Send(std::span<const can::BusFrame>(&frame, 1));
    }
    ScheduleBattery();
  });
}

void Simulator::ScheduleStatus() {
  status_timer_.expires_after(std::chrono::seconds(1));
  status_timer_.async_wait([this](std::error_code ec) {
    if (ec || stopping_) return;
    const std::int64_t now_us = NowUs();
    robot_.AdvanceAll(now_us);
    robot_.UpdateRates(now_us);
    if (options_.status_lines) {
      std::uint64_t send_failures = 0;
      for (std::size_t b = 0; b < transport_->bus_count(); ++b) {
        send_failures += transport_->counters(b).send_failures.load();
      }
      spdlog::info("{} send_failures={}", robot_.StatusLine(), send_failures);
    }
    const std::int64_t lag_us = robot_.totals().lagged_us;
    if (lag_us > reported_lag_us_) {
      spdlog::warn(
          "the physics fell behind real time: {:.0f} ms of simulated time skipped in "
          "the last second ({:.0f} ms in all); the machine is too slow for this model",
          static_cast<double>(lag_us - reported_lag_us_) * 1e-3,
          static_cast<double>(lag_us) * 1e-3);
      reported_lag_us_ = lag_us;
    }
    ScheduleStatus();
  });
}

std::string Simulator::HandleControlLine(std::string_view line) {
  const ParseResult parsed = ParseControlLine(line, config_);
  std::string reply;
  if (!parsed.command) {
    reply = "error: " + parsed.error;
  } else {
    switch (parsed.command->verb) {
      case ControlVerb::kBusOff:
      case ControlVerb::kRestarted:
      case ControlVerb::kLink: reply = ExecuteBusCommand(*parsed.command); break;
      default: reply = robot_.Execute(*parsed.command, NowUs()); break;
    }
  }
  spdlog::debug("control: '{}' -> '{}'", line, reply);
  return reply;
}

std::string Simulator::ExecuteBusCommand(const ControlCommand& command) {
  const config::BusConfig& bus = config_.buses[command.bus];
  if (command.verb == ControlVerb::kLink) {
    const std::string error = SetLinkUp(bus.interface, command.on);
    if (!error.empty()) return "error: " + error;
    spdlog::info("control: link {} {}", bus.interface, command.on ? "up" : "down");
    return "ok";
  }
  const canid_t error_class =
      command.verb == ControlVerb::kBusOff ? CAN_ERR_BUSOFF : CAN_ERR_RESTARTED;
  const can::BusFrame frame{static_cast<std::uint32_t>(command.bus), MakeErrorFrame(error_class)};
  if (transport_->Send(std::span<const can::BusFrame>(&frame, 1)) != 1) {
    return "error: " + bus.interface + ": the error frame was not sent (is the link down?)";
  }
  spdlog::info("control: {} error frame on {}",
               command.verb == ControlVerb::kBusOff ? "bus-off" : "restarted", bus.interface);
  return "ok";
}

void Simulator::Shutdown() {
  stopping_ = true;
  std::error_code ignored;
  signals_.cancel(ignored);
  imu_timer_.cancel();
  battery_timer_.cancel();
  status_timer_.cancel();
  if (control_) control_->Stop();
  retry_.cancel();
  transport_->socket().close(ignored);
}

}  // namespace robot_edge::sim
